// Template stand-in: `toolspec generate` writes the real tools.ts (server info, manifest, validators) in its place.
import type { Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolBinding } from './dispatcher.js';

export const serverInfo: Implementation = { name: 'stand-in', version: '0.0.0' };
export const instructions: string | undefined = undefined;
export const pageSize = 0;
export const timeouts: Readonly<Record<string, number>> = {};
export const tools: readonly Tool[] = [];
export const loadBindings = (): Promise<ReadonlyMap<string, ToolBinding>> => Promise.resolve(new Map());
