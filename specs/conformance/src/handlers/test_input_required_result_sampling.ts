import type { Handler } from '../generated/contract.js';
import { samplingText } from '../generated/context.js';

export const handler: Handler<'test_input_required_result_sampling'> = async (_args, ctx) => {
  const answer = await ctx.sample('capital_question', {
    messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
    maxTokens: 100,
  });
  return `The model says: ${samplingText(answer)}`;
};
