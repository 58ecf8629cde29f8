// Template stand-in: `toolspec generate` writes the real contract.ts (one typed handler per tool) in its place.
import type { ToolContext } from './context.js';

export interface ToolHandlers {
  example: (args: { text: string }, ctx: ToolContext) => string | Promise<string>;
}

export type ToolName = keyof ToolHandlers;

export type Handler<Name extends ToolName> = ToolHandlers[Name];
