import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';
import { items } from './store.js';

export const handler: Handler<'complete_item'> = (args) => {
  const item = items.find((i) => i.id === args.id);
  // A ToolError's message reaches the model as is, so it can correct the call.
  if (!item) throw new ToolError(`There is no item #${args.id}; list_items shows the ids.`);
  item.done = true;
  return `Done: #${item.id} ${item.text}`;
};
