/**
 * tools.ts: what the server needs besides handlers: its identity, the manifest and each tool's validators.
 * registry.ts: each tool bound to its handler module.
 */
import path from 'node:path';
import type { ServerModel, ToolModel } from '../model.js';
import { assignment, key, PRINT_WIDTH, tsStr } from './text.js';
import { validatorNames } from './validators.js';

export function emitTools(model: ServerModel): string {
  const v = validatorNames(model);
  const { instructions, ...info } = model.server;
  const rows = model.tools.map((t) => {
    const n = v.get(t.name)!;
    const binding = `{ input: v.${n.input} as Validator${n.output ? `, output: v.${n.output} as Validator` : ''} }`;
    const one = `  [${tsStr(t.name)}, ${binding}],`;
    return one.length <= PRINT_WIDTH ? one : `  [\n    ${tsStr(t.name)},\n    ${binding},\n  ],`;
  });
  const infoJson = tsStr(JSON.stringify(info));
  const infoLine =
    `export const serverInfo: Implementation = JSON.parse(${infoJson}) as Implementation;`.length <= PRINT_WIDTH
      ? `export const serverInfo: Implementation = JSON.parse(${infoJson}) as Implementation;`
      : `export const serverInfo: Implementation = JSON.parse(\n  ${infoJson},\n) as Implementation;`;
  return `import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { ToolBinding, Validator } from './dispatcher.js';
import * as v from './validators.js';

export { toolNames, tools } from './manifest.js';

${infoLine}

${assignment('export const instructions: string | undefined', instructions === undefined ? 'undefined' : tsStr(instructions))}

/** Tools per tools/list page (options.pageSize); 0 sends all tools in one page. */
export const pageSize = ${model.options.pageSize};

export const bindings: ReadonlyMap<string, ToolBinding> = new Map<string, ToolBinding>([
${rows.join('\n')}
]);
`;
}

/** The import specifier of a tool's handler module, from the generated folder. */
export function handlerImport(model: ServerModel, tool: ToolModel): string {
  const from = path.posix.join(model.options.generatedDir);
  const to = path.posix.join(model.options.handlersDir, handlerFileName(tool));
  const rel = path.posix.relative(from, to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

export function handlerFileName(tool: ToolModel): string {
  return `${tool.name}.ts`;
}

export function emitRegistry(model: ServerModel): string {
  const imports = model.tools.map((t) => `import { handler as handle${t.typeName} } from ${tsStr(handlerImport(model, t))};`);
  const rows = model.tools.map((t) => `  ${key(t.name)}: handle${t.typeName},`);
  return `import type { ToolHandlers } from './contract.js';
${imports.join('\n')}

/** Every tool bound to the \`handler\` export of its module in ${model.options.handlersDir}/. */
export const handlers: ToolHandlers = {
${rows.join('\n')}
};
`;
}
