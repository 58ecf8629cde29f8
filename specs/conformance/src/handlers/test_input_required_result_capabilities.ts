import type { Handler } from '../generated/contract.js';
import { samplingText } from '../generated/context.js';

export const handler: Handler<'test_input_required_result_capabilities'> = async (_args, ctx) => {
  // Ask only what the client said it can answer.
  const can = ctx.clientCapabilities ?? {};
  const parts: string[] = [];
  if (can.sampling) {
    const answer = await ctx.sample('summary', {
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
      maxTokens: 20,
    });
    parts.push(`model: ${samplingText(answer)}`);
  }
  if (can.elicitation) {
    const answer = await ctx.elicit('name', {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    parts.push(`user: ${answer.action}`);
  }
  return parts.join('; ') || 'the client can answer nothing, so nothing was asked';
};
