import type { Handler } from '../generated/contract.js';
import { samplingText } from '../generated/context.js';

export const handler: Handler<'test_sampling'> = async ({ prompt }, ctx) => {
  const answer = await ctx.sample('answer', {
    messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
    maxTokens: 100,
  });
  return `LLM response: ${samplingText(answer)}`;
};
