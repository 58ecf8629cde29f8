import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_input_required_result_tampered_state'> = async (_args, ctx) => {
  // The requestState this round ends with is sealed: a changed one is refused (-32602) before the handler runs.
  const answer = await ctx.elicit('confirm', {
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  });
  return `confirmed: ${answer.action}`;
};
