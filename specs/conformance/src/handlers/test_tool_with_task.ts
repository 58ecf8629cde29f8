import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_tool_with_task'> = async (_args, ctx) => {
  // Asked before any other wait: answered in the call's own rounds, before a task exists.
  const answer = await ctx.elicit('user_name', {
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return `Hello, ${answer.action === 'accept' ? answer.content.name : 'stranger'}!`;
};
