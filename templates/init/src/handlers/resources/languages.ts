import type { ResourceHandler } from '../../generated/contract.js';

export const handler: ResourceHandler<'languages'> = () => ['en', 'fr', 'de'].join('\n');
