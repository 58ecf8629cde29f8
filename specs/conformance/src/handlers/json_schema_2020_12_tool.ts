import type { Handler } from '../generated/contract.js';

export const handler: Handler<'json_schema_2020_12_tool'> = (args) =>
  `Contact ${args.name ?? 'someone'} by ${args.contactMethod ?? 'email'}`;
