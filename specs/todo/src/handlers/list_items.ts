import type { Handler } from '../generated/contract.js';
import { items } from './store.js';

export const handler: Handler<'list_items'> = (args) => {
  const shown = items.filter((i) => args.include_done || !i.done).sort((a, b) => Number(a.done) - Number(b.done));
  if (!shown.length) return 'The list is empty.';
  return shown.map((i) => `${i.done ? '[x]' : '[ ]'} #${i.id} ${i.text} (${i.priority}${i.due ? `, due ${i.due}` : ''})`).join('\n');
};
