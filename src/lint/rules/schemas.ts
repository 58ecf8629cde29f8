/** Rules about the tools' JSON Schemas as clients receive them. */
import { clientSchema } from '../../pipeline/emit/manifest.js';
import type { ToolModel } from '../../pipeline/model.js';
import { isObject, objectRoot, walkSchema, type SchemaPath } from '../../pipeline/schema/keywords.js';
import type { Rule } from '../types.js';

/** Keywords that constrain an object's properties some other way than `properties`. */
const SHAPING = 'patternProperties propertyNames dependentSchemas $ref $dynamicRef allOf anyOf oneOf if not'.split(' ');

/** True when the root of an input schema takes any object at all: no properties, nothing closing it. */
export function acceptsAnyObject(schema: Record<string, unknown>): boolean {
  const props = schema['properties'];
  if (isObject(props) && Object.keys(props).length) return false;
  if (SHAPING.some((k) => schema[k] !== undefined)) return false;
  const closed = (v: unknown) => v !== undefined && v !== true && !(isObject(v) && !Object.keys(v).length);
  return !closed(schema['additionalProperties']) && !closed(schema['unevaluatedProperties']);
}

export const openInputSchema: Rule = {
  id: 'open-input-schema',
  severity: 'warning',
  summary: 'an input schema that accepts any object (no properties, no additionalProperties: false)',
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => acceptsAnyObject(t.input.schema))
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['inputSchema']),
        message: `the inputSchema of tool "${tool.name}" accepts any object: it lists no properties and does not say additionalProperties: false`,
        hint: 'list the arguments under properties so a model knows what to send; a tool without parameters takes { type: object, additionalProperties: false }',
      })),
};

export const outputWrappedFor2025: Rule = {
  id: 'output-wrapped-for-2025',
  severity: 'warning',
  summary: 'an output schema whose root is not an object: 2025 clients receive the value wrapped as { result: … }',
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => t.output && !objectRoot(t.output.schema))
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['outputSchema'], { key: true }),
        message: `the outputSchema of tool "${tool.name}" has a root that is not an object, so 2025 clients receive its output wrapped as { result: … } (and are shown the schema wrapped the same way); 2026-07-28 clients receive it as it is`,
        hint: 'that is how the SDK serves clients of protocol 2025, whose structured output must be an object; for one shape on both eras make the root an object, e.g. { type: object, properties: { items: … } }, or turn this rule off',
      })),
};

/** The `$ref`s a schema sends, outside its own `$defs`, with the path of the first. */
function refsOf(schema: Record<string, unknown>): { refs: string[]; first?: SchemaPath } {
  const refs = new Set<string>();
  let first: SchemaPath | undefined;
  walkSchema(schema, (node, path) => {
    if (typeof node['$ref'] !== 'string') return;
    refs.add(node['$ref']);
    if (!first && path[0] !== '$defs' && path[0] !== 'definitions') first = path;
  });
  return { refs: [...refs].sort(), ...(first ? { first } : {}) };
}

export const schemaRefs: Rule = {
  id: 'schema-refs',
  severity: 'warning',
  summary: 'schemas that send $ref and $defs, which some clients and model APIs cannot resolve (options.refs: inline)',
  check: (ctx) => {
    const { options } = ctx.model;
    const uses: { tool: ToolModel; refs: string[]; at: SchemaPath | undefined }[] = [];
    for (const tool of ctx.model.tools) {
      if (ctx.ignored('schema-refs', tool.name)) continue;
      const input = refsOf(clientSchema(tool.input, options));
      const output = tool.output ? refsOf(clientSchema(tool.output, options)) : { refs: [] };
      const refs = [...new Set([...input.refs, ...output.refs])].sort();
      if (!refs.length) continue;
      const at = input.first
        ? ['inputSchema', ...input.first, '$ref']
        : output.first
          ? ['outputSchema', ...output.first, '$ref']
          : undefined;
      uses.push({ tool, refs, at });
    }
    const first = uses[0];
    if (!first) return [];
    const tools = uses.map((u) => u.tool.name);
    if (options.refs === 'inline') {
      const shown = uses.slice(0, 5).map((u) => `${u.tool.name} (${u.refs.join(', ')})`);
      return [
        {
          tools,
          ...ctx.at.inSpec(['options', 'refs']),
          message: `"$ref" stays in the schemas of ${uses.length} tool${uses.length === 1 ? '' : 's'} with options.refs: inline, where a schema refers to itself: ${shown.join(', ')}${uses.length > 5 ? ', …' : ''}`,
          hint: 'recursion cannot be inlined; if your clients cannot resolve $ref, make that part of the schema non-recursive (e.g. a fixed depth), else turn this rule off',
        },
      ];
    }
    const names = tools.length > 5 ? `${tools.slice(0, 5).join(', ')} and ${tools.length - 5} more` : tools.join(', ');
    return [
      {
        tools,
        ...(first.at ? ctx.at.inTool(first.tool, first.at, { key: true }) : ctx.at.inTool(first.tool, ['name'])),
        message: `"$ref" and "$defs" in the schemas of ${uses.length} of the ${ctx.model.tools.length} tools (${names}): some clients and model APIs cannot resolve them`,
        hint: 'set options.refs: inline to send each schema with its refs replaced by their targets (`toolspec lint` shows what that costs in tokens), or turn this rule off if your clients resolve $ref',
      },
    ];
  },
};
