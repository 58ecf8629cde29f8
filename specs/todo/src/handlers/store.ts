/** The to-do list, in memory: a module beside the handlers that no tool is named after. */
export interface Item {
  id: number;
  text: string;
  priority: 'low' | 'normal' | 'high';
  due?: string;
  done: boolean;
}

export const items: Item[] = [];
