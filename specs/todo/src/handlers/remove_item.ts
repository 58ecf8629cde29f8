import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';
import { items } from './store.js';

export const handler: Handler<'remove_item'> = async ({ id }, ctx) => {
  const item = items.find((i) => i.id === id);
  if (!item) throw new ToolError(`There is no item #${id}; list_items shows the ids.`);
  // Asks the user. Without an answer yet the call ends here, and it is made again with the answer.
  const answer = await ctx.elicit('confirm', {
    message: `Remove #${id} "${item.text}" from the list?`,
    requestedSchema: { type: 'object', properties: { sure: { type: 'boolean', title: 'Remove it' } }, required: ['sure'] },
  });
  if (answer.action !== 'accept' || !answer.content.sure) return `Kept #${id} ${item.text}.`;
  items.splice(items.indexOf(item), 1);
  return `Removed #${id} ${item.text}.`;
};
