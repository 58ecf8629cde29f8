import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_input_required_result_request_state'> = async (_args, ctx) => {
  // Kept across rounds in the sealed requestState: the second round sees the first round's value.
  const started = await ctx.keep('started', () => 'round-1');
  const answer = await ctx.elicit('confirm', {
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  });
  const confirmed = answer.action === 'accept' && answer.content.ok;
  return `state-ok: kept ${started} through round ${ctx.round}; confirmed=${confirmed}`;
};
