/**
 * tools.ts: what the server needs besides handlers: its identity, the manifest and each tool's validators.
 * registry.ts: each tool bound to its handler module.
 */
import path from 'node:path';
import type { ServerModel, ToolModel } from '../model.js';
import { handlerFileName } from '../names.js';
import { assignment, PRINT_WIDTH } from './layout.js';
import { commentLine, key, tsStr } from './text.js';
import { validatorNames } from './validators.js';

export function emitTools(model: ServerModel): string {
  const v = validatorNames(model);
  const { instructions, ...info } = model.server;
  const rows = model.tools.map((t) => {
    const n = v.get(t.name)!;
    const binding = `{ input: v.${n.input}${n.output ? `, output: v.${n.output}` : ''} }`;
    const pad = '        ';
    const one = `${pad}[${tsStr(t.name)}, ${binding}],`;
    return one.length <= PRINT_WIDTH ? one : `${pad}[\n${pad}  ${tsStr(t.name)},\n${pad}  ${binding},\n${pad}],`;
  });
  // One tool (or none): prettier keeps the Map's array on one line where it fits.
  const only = model.tools.length === 1 ? model.tools[0]! : undefined;
  const single =
    model.tools.length > 1
      ? undefined
      : only
        ? `[${tsStr(only.name)}, { input: v.${v.get(only.name)!.input}${v.get(only.name)!.output ? `, output: v.${v.get(only.name)!.output}` : ''} }]`
        : '';
  const infoJson = tsStr(JSON.stringify(info));
  const infoLine =
    `export const serverInfo: Implementation = JSON.parse(${infoJson}) as Implementation;`.length <= PRINT_WIDTH
      ? `export const serverInfo: Implementation = JSON.parse(${infoJson}) as Implementation;`
      : `export const serverInfo: Implementation = JSON.parse(\n  ${infoJson},\n) as Implementation;`;
  const { ttlMs, scope } = model.options.cache;
  return `import type { CacheHint, Implementation } from '@modelcontextprotocol/server';
import type { ToolBinding } from './dispatcher.js';
import type { McpParamHeader } from './web.js';

export { toolNames, tools } from './manifest.js';

${infoLine}

${assignment('export const instructions: string | undefined', instructions === undefined ? 'undefined' : tsStr(instructions))}

/** Tools per tools/list page (options.pageSize); 0 sends all tools in one page. */
export const pageSize = ${model.options.pageSize};

/** How long 2026-07-28 clients may cache tools/list (options.cache). */
export const cacheHint: CacheHint = { ttlMs: ${ttlMs}, cacheScope: '${scope}' };

/** Arguments 2026-07-28 clients mirror into Mcp-Param-* headers (x-mcp-header), by tool: checked over HTTP. */
${assignment('export const mcpHeaders: Readonly<Record<string, readonly McpParamHeader[]>>', mcpHeadersLiteral(model))}

/** Time limits of calls in milliseconds (the spec's timeout, options.timeout), by tool. */
${assignment('export const timeouts: Readonly<Record<string, number>>', timeoutsLiteral(model))}

let bindings: Promise<ReadonlyMap<string, ToolBinding>> | undefined;

/** Each tool's validators. They load on first use: answering tools/list needs none of them. */
export function loadBindings(): Promise<ReadonlyMap<string, ToolBinding>> {
${bindingsLoad(rows, single)}
  return bindings;
}
`;
}

/** `bindings ??= import('./validators.js').then(…)` in prettier's shape: as one line, the arrow on its own, or broken. */
function bindingsLoad(rows: readonly string[], single: string | undefined): string {
  if (single !== undefined) {
    const map = `new Map<string, ToolBinding>([${single}])`;
    const whole = `  bindings ??= import('./validators.js').then((v) => ${map});`;
    if (whole.length <= PRINT_WIDTH) return whole;
    const arrow = `    (v) => ${map},`;
    if (arrow.length <= PRINT_WIDTH) return `  bindings ??= import('./validators.js').then(\n${arrow}\n  );`;
  }
  return `  bindings ??= import('./validators.js').then(
    (v) =>
      new Map<string, ToolBinding>([
${rows.join('\n')}
      ]),
  );`;
}

/** The import specifier of a tool's handler module, from the generated folder. */
export function handlerImport(model: ServerModel, tool: ToolModel): string {
  const from = path.posix.join(model.options.generatedDir);
  const to = path.posix.join(model.options.handlersDir, handlerFileName(tool));
  const rel = path.posix.relative(from, to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

export { handlerFileName } from '../names.js';

export function emitRegistry(model: ServerModel): string {
  const rows = model.tools.map((t) => {
    const one = `  ${key(t.name)}: lazy(() => import(${tsStr(handlerImport(model, t))})),`;
    return one.length <= PRINT_WIDTH
      ? one
      : `  ${key(t.name)}: lazy(\n    () => import(${tsStr(handlerImport(model, t))}),\n  ),`;
  });
  return `import type { ToolHandlers } from './contract.js';
import { lazy } from './lazy.js';

/** Every tool bound to the \`handler\` export of its module in ${commentLine(model.options.handlersDir)}/. */
export const handlers: ToolHandlers = ${rows.length ? `{\n${rows.join('\n')}\n}` : '{}'};
`;
}

function mcpHeadersLiteral(model: ServerModel): string {
  const entries = model.tools.flatMap((t) => {
    const declared = t.mcpHeaders;
    if (!declared.length) return [];
    const list = declared.map(
      (d) => `{ header: ${tsStr(d.header)}, path: [${d.path.map(tsStr).join(', ')}], type: ${tsStr(d.type)} }`,
    );
    return [`${key(t.name)}: [${list.join(', ')}]`];
  });
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}

function timeoutsLiteral(model: ServerModel): string {
  const entries = model.tools.flatMap((t) => {
    const ms = t.timeoutMs ?? model.options.timeoutMs;
    return ms > 0 ? [`${key(t.name)}: ${ms}`] : [];
  });
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}
