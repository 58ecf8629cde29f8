import type { Handler } from '../generated/contract.js';
import { wait } from './fixtures.js';

export const handler: Handler<'test_tool_with_progress'> = async (_args, ctx) => {
  for (const progress of [0, 50, 100]) {
    await ctx.progress(progress, { total: 100, message: `Completed step ${progress} of 100` });
    if (progress < 100) await wait(50);
  }
  return 'Progress reported: 0, 50 and 100 of 100';
};
