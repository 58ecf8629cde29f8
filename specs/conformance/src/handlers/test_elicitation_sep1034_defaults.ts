import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_elicitation_sep1034_defaults'> = async (_args, ctx) => {
  const answer = await ctx.elicit('form', {
    message: 'Please review and update the form fields with defaults',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: {
          type: 'string',
          description: 'User status',
          enum: ['active', 'inactive', 'pending'],
          default: 'active',
        },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    },
  });
  return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
};
