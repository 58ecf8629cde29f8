// Template stand-in: `toolspec generate` writes the real tools.ts (server info, manifest, validators) in its place.
import type { CacheHint, Implementation, Tool } from '@modelcontextprotocol/server';
import type { ToolBinding } from './dispatcher.js';
import type { McpParamHeader } from './web.js';
import type { AccessPolicy, AuthModule } from './access.js';

export const serverInfo: Implementation = { name: 'stand-in', version: '0.0.0' };
export const instructions: string | undefined = undefined;
export const pageSize = 0;
export const cacheHint: CacheHint = { ttlMs: 0, cacheScope: 'private' };
export const mcpHeaders: Readonly<Record<string, readonly McpParamHeader[]>> = {};
export const timeouts: Readonly<Record<string, number>> = {};
export const taskModes: Readonly<Record<string, 'optional' | 'required'>> = {};
export const tools: readonly Tool[] = [];
export const objectOutputs: readonly string[] = [];
export const loadBindings = (): Promise<ReadonlyMap<string, ToolBinding>> => Promise.resolve(new Map());
export const access: AccessPolicy | undefined = undefined;
export const loadAuth: (() => Promise<AuthModule>) | undefined = undefined;
