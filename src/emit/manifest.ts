/**
 * manifest.json (exactly the tools/list payload) and manifest.ts (the same, typed). Schemas go out as the author
 * wrote them, with the shared $defs they use bundled in, or with refs inlined when options.refs says so.
 */
import type { SchemaModel, ServerModel, ToolDefinition } from '../model.js';
import type { Options } from '../options.js';
import { inlineRefs } from '../schema/forms.js';
import { fitOrBreak, PRINT_WIDTH } from './layout.js';
import { tsStr } from './text.js';

export function clientSchema(schema: SchemaModel, options: Options): Record<string, unknown> {
  return options.refs === 'inline' ? inlineRefs(schema.schema) : schema.schema;
}

export function manifestTools(model: ServerModel): ToolDefinition[] {
  return model.tools.map((t) => {
    const def: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t.definition)) {
      if (k === 'inputSchema') def[k] = clientSchema(t.input, model.options);
      else if (k === 'outputSchema' && t.output) def[k] = clientSchema(t.output, model.options);
      else def[k] = v;
    }
    return def as unknown as ToolDefinition;
  });
}

export function emitManifestJson(model: ServerModel): string {
  return `${JSON.stringify({ tools: manifestTools(model) }, null, 2)}\n`;
}

/** `export const tools = JSON.parse(…)` on one line when it fits, else broken as prettier breaks it. */
function toolsLine(literal: string): string {
  const one = `export const tools: readonly Tool[] = JSON.parse(${literal}) as Tool[];`;
  return one.length <= PRINT_WIDTH
    ? one
    : `export const tools: readonly Tool[] = JSON.parse(\n  ${literal},\n) as Tool[];`;
}

/** Parsed from a JSON string: faster to load than an object literal, and no type checking of a large literal. */
export function emitManifestModule(model: ServerModel): string {
  const json = JSON.stringify(manifestTools(model));
  return `import type { Tool } from '@modelcontextprotocol/server';

/** The tools/list payload's tools, in the spec's order; manifest.json holds the same. */
${toolsLine(tsStr(json))}

/** Every tool name, in the spec's order. */
${fitOrBreak(
  'export const toolNames = [',
  model.tools.map((t) => tsStr(t.name)),
  '] as const;',
)}
`;
}
