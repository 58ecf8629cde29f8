import type { Handler } from '../generated/contract.js';
import { NAME_FORM } from './fixtures.js';

export const handler: Handler<'test_input_required_result_elicitation'> = async (_args, ctx) => {
  const answer = await ctx.elicit('user_name', { message: 'What is your name?', requestedSchema: NAME_FORM });
  if (answer.action !== 'accept') return `No name given (${answer.action}).`;
  return `Hello, ${answer.content.name}!`;
};
