import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_input_required_result_list_roots'> = async (_args, ctx) => {
  const roots = await ctx.listRoots('client_roots');
  return `Roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`;
};
