import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_elicitation'> = async ({ message }, ctx) => {
  const answer = await ctx.elicit('user', {
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address" },
      },
      required: ['username', 'email'],
    },
  });
  return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
};
