import type { PromptHandler } from '../../generated/contract.js';
import { items } from '../store.js';

export const handler: PromptHandler<'plan_day'> = ({ focus }) => {
  const open = items.filter((i) => !i.done);
  const list = open.length
    ? open.map((i) => `- #${i.id} ${i.text} (${i.priority}${i.due ? `, due ${i.due}` : ''})`).join('\n')
    : '(nothing open)';
  return `Plan my day${focus ? `, ${focus} first` : ''}. My open items:\n${list}`;
};
