import type { Handler } from '../generated/contract.js';
import { items } from './store.js';

export const handler: Handler<'add_item'> = (args) => {
  const item = { id: Math.max(0, ...items.map((i) => i.id)) + 1, text: args.text, priority: args.priority, done: false, ...(args.due ? { due: args.due } : {}) };
  items.push(item);
  // The structured value itself: the dispatcher validates it and sends it as structuredContent plus JSON text.
  return { id: item.id, text: item.text, priority: item.priority };
};
