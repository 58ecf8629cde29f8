import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_missing_capability'> = async (_args, ctx) => {
  // Asked of a client that did not declare sampling, the SDK refuses the call with -32021 (HTTP 400).
  await ctx.sample('llm_answer', {
    messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }],
    maxTokens: 16,
  });
  return 'sampling round-trip complete';
};
