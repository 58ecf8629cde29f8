/**
 * tools.ts: what the server needs besides handlers: its identity, the manifest and each tool's validators.
 * registry.ts: each tool bound to its handler module.
 */
import type { ServerModel, ToolModel } from '../model.js';
import { objectRoot } from '../schema/keywords.js';
import { handlerFile, importFromGenerated } from './primitives.js';
import { commentLine, key, literal, str } from './text.js';
import { toolTypeNames } from './types.js';
import { validatorName } from './validators.js';

export function emitTools(model: ServerModel): string[] {
  const { instructions, ...info } = model.server;
  const rows = model.tools.map((t) => {
    const { input, output } = toolTypeNames(t);
    const bound = [`input: v.${validatorName(input)}`, ...(output ? [`output: v.${validatorName(output)}`] : [])];
    return `[${str(t.name)}, { ${bound.join(', ')} }],`;
  });
  const { ttlMs } = model.options.cache;
  // A list that depends on the caller's token is no one else's to cache.
  const scope = model.auth?.filterList ? 'private' : model.options.cache.scope;
  /** A value per tool, only for the tools that have one. */
  const byTool = (value: (t: ToolModel) => unknown) =>
    literal(Object.fromEntries(model.tools.map((t) => [t.name, value(t)]).filter(([, v]) => v !== undefined)));
  const headers = (t: ToolModel) => (t.mcpHeaders.length ? t.mcpHeaders : undefined);
  const timeout = (t: ToolModel) => {
    const ms = t.timeoutMs ?? model.options.timeoutMs;
    return ms > 0 ? ms : undefined;
  };
  // The tools whose output root is an object by its `$ref` or `allOf` only (the runtime's legacyTools).
  const objectOutputs = model.tools.flatMap((t) =>
    t.output && t.output.schema['type'] !== 'object' && objectRoot(t.output.schema) ? [t.name] : [],
  );
  return [
    `import type { CacheHint, Implementation } from '@modelcontextprotocol/server';
import type { ToolBinding } from './dispatcher.js';
import type { McpParamHeader } from './web.js';
import type { AccessPolicy, AuthModule } from './access.js';

export { toolNames, tools } from './manifest.js';
`,
    `export const serverInfo: Implementation = ${literal(info)};`,
    `export const instructions: string | undefined = ${instructions === undefined ? 'undefined' : str(instructions)};`,
    `/** Tools per tools/list page (options.pageSize); 0 sends all tools in one page. */
export const pageSize = ${model.options.pageSize};

/** How long 2026-07-28 clients may cache tools/list (options.cache). */
export const cacheHint: CacheHint = { ttlMs: ${ttlMs}, cacheScope: ${str(scope)} };

/** Tools whose output schema's root resolves to an object without saying type: object (2025 clients are told). */
export const objectOutputs: readonly string[] = ${literal(objectOutputs)};
`,
    `/** Arguments 2026-07-28 clients mirror into Mcp-Param-* headers (x-mcp-header), by tool: checked over HTTP. */
export const mcpHeaders: Readonly<Record<string, readonly McpParamHeader[]>> = ${byTool(headers)};

/** Time limits of calls in milliseconds (the spec's timeout, options.timeout), by tool. */
export const timeouts: Readonly<Record<string, number>> = ${byTool(timeout)};

/** The tools that run as tasks for clients with the tasks extension (the spec's task), by tool. */
export const taskModes: Readonly<Record<string, 'optional' | 'required'>> = ${byTool((t) => t.task)};
`,
    `/** Who may call what over HTTP (the spec's auth, and each tool's, prompt's and resource's scopes); none: undefined. */
export const access: AccessPolicy | undefined = ${model.auth ? literal(accessPolicy(model)) : 'undefined'};

/** The token verifier (auth.ts, with its JOSE library), loaded on the first HTTP request. */
export const loadAuth: (() => Promise<AuthModule>) | undefined = ${model.auth ? "() => import('./auth.js')" : 'undefined'};
`,
    `let bindings: Promise<ReadonlyMap<string, ToolBinding>> | undefined;

/** Each tool's validators. They load on first use: answering tools/list needs none of them. */
export function loadBindings(): Promise<ReadonlyMap<string, ToolBinding>> {
  bindings ??= import('./validators.js').then((${rows.length ? 'v' : ''}) => new Map<string, ToolBinding>([
${rows.join('\n')}
  ]));
  return bindings;
}
`,
  ];
}

export function emitRegistry(model: ServerModel): string[] {
  const rows = model.tools.map((t) => {
    const handler = importFromGenerated(model, handlerFile(model, t));
    return `${key(t.name)}: lazy(() => import(${str(handler)})),`;
  });
  return [
    // (A spec with no tools yet imports no lazy: a project compiled with noUnusedLocals stays clean.)
    `import type { ToolHandlers } from './contract.js';
${rows.length ? "import { lazy } from './lazy.js';\n" : ''}`,
    `/** Every tool bound to the \`handler\` export of its module in ${commentLine(model.options.handlersDir)}/. */
export const handlers: ToolHandlers = {
${rows.join('\n')}
};
`,
  ];
}

/** The spec's auth with every element's scopes resolved (its own, else auth.scopes): what the runtime checks. */
function accessPolicy(model: ServerModel): Record<string, unknown> {
  const { scopes, ...auth } = model.auth!;
  const of = (items: readonly { name: string; scopes?: string[] }[]) =>
    Object.fromEntries(items.map((i) => [i.name, i.scopes ?? scopes]));
  return { ...auth, scopes, tools: of(model.tools), prompts: of(model.prompts), resources: of(model.resources) };
}
