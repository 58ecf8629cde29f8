import { setTimeout as sleep } from 'node:timers/promises';
import type { Handler } from '../generated/contract.js';

export const handler: Handler<'multi_input'> = async (_args, ctx) => {
  await sleep(10, undefined, { signal: ctx.signal });
  // Two questions at once: the task waits in input_required until both are answered.
  const [name, confirm] = await Promise.all([
    ctx.elicit('name', {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    }),
    ctx.elicit('confirm', {
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    }),
  ]);
  return `name=${name.action === 'accept' ? name.content.name : '-'}, confirm=${confirm.action === 'accept' ? confirm.content.confirm : '-'}`;
};
