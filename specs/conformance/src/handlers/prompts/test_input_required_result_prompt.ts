import type { PromptHandler } from '../../generated/contract.js';

export const handler: PromptHandler<'test_input_required_result_prompt'> = async (_args, ctx) => {
  const answer = await ctx.elicit('user_context', {
    message: 'What context should the prompt use?',
    requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
  });
  const context = answer.action === 'accept' ? answer.content.context : 'none';
  return `Use this context: ${context}`;
};
