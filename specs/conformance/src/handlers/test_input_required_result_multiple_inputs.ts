import type { Handler } from '../generated/contract.js';
import { samplingText } from '../generated/context.js';
import { NAME_FORM } from './fixtures.js';

export const handler: Handler<'test_input_required_result_multiple_inputs'> = async (_args, ctx) => {
  // Three questions in one round: all three are sent together, and answered together.
  const [name, greeting, roots] = await Promise.all([
    ctx.elicit('user_name', { message: 'What is your name?', requestedSchema: NAME_FORM }),
    ctx.sample('greeting', {
      messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
      maxTokens: 50,
    }),
    ctx.listRoots('client_roots'),
  ]);
  const who = name.action === 'accept' ? name.content.name : 'stranger';
  return `${samplingText(greeting)} ${who} (${roots.length} roots)`;
};
