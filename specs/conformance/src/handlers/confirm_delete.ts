import { setTimeout as sleep } from 'node:timers/promises';
import type { Handler } from '../generated/contract.js';

export const handler: Handler<'confirm_delete'> = async ({ filename = 'the file' }, ctx) => {
  // Some work first: the call is a task by the time it asks, so the question goes through the task.
  await sleep(10, undefined, { signal: ctx.signal });
  const answer = await ctx.elicit('confirm', {
    message: `Delete ${filename}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  return answer.action === 'accept' && answer.content.confirm ? `Deleted ${filename}` : `Kept ${filename}`;
};
