import type { ResourceHandler } from '../../generated/contract.js';

export const handler: ResourceHandler<'static-text'> = () => 'This is the content of the static text resource.';
