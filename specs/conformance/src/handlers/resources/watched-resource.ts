import type { ResourceHandler } from '../../generated/contract.js';

export const handler: ResourceHandler<'watched-resource'> = () => 'A resource clients subscribe to.';
