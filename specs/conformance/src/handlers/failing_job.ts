import { setTimeout as sleep } from 'node:timers/promises';
import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';

export const handler: Handler<'failing_job'> = async (_args, ctx) => {
  await sleep(1000, undefined, { signal: ctx.signal });
  // A tool error: the task ends completed, its result isError (failed is for JSON-RPC errors).
  throw new ToolError('The job failed: the input could not be processed');
};
