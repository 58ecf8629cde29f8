import { setTimeout as sleep } from 'node:timers/promises';
import type { Handler } from '../generated/contract.js';

export const handler: Handler<'slow_compute'> = async ({ seconds = 0, label = 'job' }, ctx) => {
  // The task's signal: tasks/cancel (or the task's time to live) stops the wait.
  if (seconds > 0) await sleep(seconds * 1000, undefined, { signal: ctx.signal });
  return `${label}: computed after ${seconds} s`;
};
