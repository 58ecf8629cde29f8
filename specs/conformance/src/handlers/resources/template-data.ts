import type { ResourceHandler } from '../../generated/contract.js';

export const handler: ResourceHandler<'template-data'> = ({ id }) =>
  JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
