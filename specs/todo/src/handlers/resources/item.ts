import type { ResourceCompleter, ResourceHandler } from '../../generated/contract.js';
import { items } from '../store.js';

/** An item as JSON, or undefined (resource not found) for an id the list does not have. */
export const handler: ResourceHandler<'item'> = ({ id }) => {
  const item = items.find((i) => String(i.id) === id);
  return item && JSON.stringify(item);
};

export const complete: ResourceCompleter<'item'> = {
  id: (value) => items.map((i) => String(i.id)).filter((id) => id.startsWith(value)),
};
