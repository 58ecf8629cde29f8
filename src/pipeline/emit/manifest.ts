/**
 * manifest.json (exactly the tools/list payload) and manifest.ts (the same, typed). Schemas go out as the author
 * wrote them, with the shared $defs they use bundled in, or with refs inlined when options.refs says so.
 */
import type { SchemaModel, ServerModel, ToolDefinition } from '../model.js';
import type { Options } from '../../core/options.js';
import { inlineRefs } from '../schema/forms.js';
import { literal } from './text.js';

const inlined = new WeakMap<SchemaModel, Record<string, unknown>>();

/**
 * A schema as clients receive it. Never to be changed by the caller (with refs: bundle it is the model's own): the
 * inlined form is computed once per schema, for the manifest's two files and lint's rules.
 */
export function clientSchema(schema: SchemaModel, options: Options): Record<string, unknown> {
  if (options.refs !== 'inline') return schema.schema;
  let out = inlined.get(schema);
  if (!out) inlined.set(schema, (out = inlineRefs(schema.schema)));
  return out;
}

export function manifestTools(model: ServerModel): ToolDefinition[] {
  // The schemas replace the definition's own in place: its keys keep their order.
  return model.tools.map((t) => ({
    ...t.definition,
    inputSchema: clientSchema(t.input, model.options),
    ...(t.output && { outputSchema: clientSchema(t.output, model.options) }),
  }));
}

export function emitManifestJson(model: ServerModel): string {
  return `${JSON.stringify({ tools: manifestTools(model) }, null, 2)}\n`;
}

/**
 * manifest.ts: the same payload as a module, data printed by JSON.stringify (literal(), text.ts), not formatted:
 * a spec's tools are its largest data, and the manifest changes with any description.
 */
export function emitManifestModule(model: ServerModel): string {
  const names = model.tools.map((t) => t.name);
  return `import type { Tool } from '@modelcontextprotocol/server';

/** The tools/list payload's tools, in the spec's order; manifest.json holds the same. */
export const tools = ${literal(manifestTools(model), 2)} as readonly Tool[];

/** Every tool name, in the spec's order. */
export const toolNames = ${literal(names, 2)} as const;
`;
}
