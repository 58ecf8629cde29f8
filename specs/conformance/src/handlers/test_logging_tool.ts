import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_logging_tool'> = async (_args, ctx) => {
  // Delivered only when the request carried a log level (2026-07-28) or the client set one (2025).
  await ctx.log('info', 'test_logging_tool ran');
  return 'logged through the request-scoped channel';
};
