// Template stand-in: `toolspec generate` writes the real registry.ts (each tool bound to its handler module).
import type { ToolHandlers } from './contract.js';

export const handlers: ToolHandlers = {
  example: (args) => args.text,
};
