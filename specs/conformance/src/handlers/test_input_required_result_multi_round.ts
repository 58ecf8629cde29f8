import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_input_required_result_multi_round'> = async (_args, ctx) => {
  const name = await ctx.elicit('step1', {
    message: 'Step 1: What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  const color = await ctx.elicit('step2', {
    message: 'Step 2: What is your favorite color?',
    requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
  });
  if (name.action !== 'accept' || color.action !== 'accept') return 'The questions were not answered.';
  return `${name.content.name} likes ${color.content.color}.`;
};
