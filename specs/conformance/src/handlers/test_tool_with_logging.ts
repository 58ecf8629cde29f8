import type { Handler } from '../generated/contract.js';
import { wait } from './fixtures.js';

export const handler: Handler<'test_tool_with_logging'> = async (_args, ctx) => {
  await ctx.log('info', 'Tool execution started');
  await wait(50);
  await ctx.log('info', 'Tool processing data');
  await wait(50);
  await ctx.log('info', 'Tool execution completed');
  return 'Tool with logging executed successfully';
};
