/**
 * Stage 2, validate: what the spec file's JSON Schema cannot say about tools. Names (unique, TypeScript-safe,
 * short enough for clients), descriptions, their schemas, and their examples against those schemas.
 */
import { diagnostic, type Diagnostics } from '../diagnostics.js';
import { isRecord, type RawDef, type RawTool } from '../load/load.js';
import type { ExampleModel, SchemaModel, ToolDefinition, ToolModel } from '../model.js';
import { pascalCase } from '../names.js';
import { AjvSet, compiledSchemas } from './ajv.js';
import { checkToolSchema, type CheckedSchema } from './schemas.js';
import { pointerToPath } from './structure.js';

/** Many clients and model APIs refuse longer tool names. */
export const CLIENT_NAME_LIMIT = 64;

const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export function checkTools(tools: readonly RawTool[], defs: ReadonlyMap<string, RawDef>, diags: Diagnostics, ajvs = new AjvSet()): ToolModel[] {
  const byName = new Map<string, RawTool>();
  const byTypeName = new Map<string, RawTool>();
  const models: ToolModel[] = [];

  for (const tool of tools) {
    const v = tool.value;
    const name = typeof v['name'] === 'string' && NAME_PATTERN.test(v['name']) ? v['name'] : undefined;
    const at = (p: (string | number)[], key = false) => tool.file.locate([...tool.path, ...p], { key });
    const seenAt = (t: RawTool) => {
      const s = t.file.locate([...t.path, 'name']);
      return `${s.file}:${s.line}:${s.column}`;
    };
    let typeName: string | undefined;

    if (name !== undefined) {
      const first = byName.get(name);
      if (first) {
        diags.add(
          diagnostic('TS012', at(['name']), `duplicate tool "${name}"`, `"${name}" is defined first at ${seenAt(first)}; tool names must be unique`),
        );
      } else {
        byName.set(name, tool);
        typeName = pascalCase(name);
        const clash = typeName === undefined ? undefined : byTypeName.get(typeName);
        if (typeName === undefined) {
          diags.add(
            diagnostic('TS013', at(['name']), `tool name "${name}" has no letter or digit to name its TypeScript types after`, 'use a name such as "search_docs"'),
          );
        } else if (clash) {
          diags.add(
            diagnostic(
              'TS013',
              at(['name']),
              `tools "${String(clash.value['name'])}" and "${name}" both become the TypeScript name ${typeName}`,
              `rename one of them; "${String(clash.value['name'])}" is at ${seenAt(clash)}`,
            ),
          );
          typeName = undefined;
        } else {
          byTypeName.set(typeName, tool);
        }
      }
      if (name.length > CLIENT_NAME_LIMIT) {
        diags.add(
          diagnostic(
            'TS014',
            at(['name']),
            `tool name "${name}" is ${name.length} characters long`,
            `many clients and model APIs refuse tool names over ${CLIENT_NAME_LIMIT} characters; shorten it`,
            'warning',
          ),
        );
      }
      const description = v['description'];
      if (typeof description !== 'string' || description.trim() === '') {
        diags.add(
          diagnostic(
            'TS015',
            at(typeof description === 'string' ? ['description'] : ['name']),
            `tool "${name}" has no description`,
            'models choose tools by their description: say what it does and when to use it',
            'warning',
          ),
        );
      }
    }

    const input = checkToolSchema(v['inputSchema'], { file: tool.file, path: [...tool.path, 'inputSchema'] }, 'inputSchema', defs, diags, ajvs);
    const output =
      v['outputSchema'] === undefined
        ? undefined
        : checkToolSchema(v['outputSchema'], { file: tool.file, path: [...tool.path, 'outputSchema'] }, 'outputSchema', defs, diags, ajvs);
    const examples = checkExamples(tool, input, diags);

    if (name === undefined || typeName === undefined || !input || (v['outputSchema'] !== undefined && !output)) continue;
    const pos = at([]);
    models.push({
      name,
      typeName,
      input: schemaModel(input),
      ...(output ? { output: schemaModel(output) } : {}),
      examples,
      definition: toolDefinition(v, name, input, output),
      source: { file: pos.file, line: pos.line, column: pos.column },
    });
  }
  return models;
}

function checkExamples(tool: RawTool, input: CheckedSchema | undefined, diags: Diagnostics): ExampleModel[] {
  const list = tool.value['examples'];
  if (!Array.isArray(list)) return [];
  const out: ExampleModel[] = [];
  list.forEach((ex, i) => {
    if (!isRecord(ex) || !isRecord(ex['arguments'])) return;
    const invalid = ex['invalid'] === true;
    const model: ExampleModel = { arguments: ex['arguments'], invalid };
    if (typeof ex['name'] === 'string') model.name = ex['name'];
    if (isRecord(ex['expect'])) model.expect = ex['expect'] as ExampleModel['expect'] & object;
    out.push(model);
    if (!input) return;
    const ok = input.validate(structuredClone(ex['arguments']));
    const argsPath = [...tool.path, 'examples', i, 'arguments'];
    const at = tool.file.locate(argsPath);
    if (!ok && !invalid) {
      const errors = input.validate.errors ?? [];
      const why = errors.map((e) => `${argumentPath(e.instancePath, e.params)}: ${e.message ?? e.keyword}`).join('; ');
      const first = errors[0];
      const where = first ? tool.file.locate([...argsPath, ...pointerToPath(first.instancePath, ex['arguments'])]) : at;
      diags.add(
        diagnostic('TS030', where, `example ${i + 1} does not match the inputSchema: ${why}`, 'fix the arguments, or mark the example "invalid: true" if it is meant to be rejected'),
      );
    } else if (ok && invalid) {
      diags.add(
        diagnostic('TS031', at, `example ${i + 1} is marked invalid, but the inputSchema accepts it`, 'tighten the schema, or remove "invalid: true"'),
      );
    }
  });
  return out;
}

function schemaModel(c: CheckedSchema): SchemaModel {
  const model = { schema: c.schema, dialect: c.dialect, sharedDefs: c.sharedDefs };
  compiledSchemas.set(model, c.compiled);
  return model;
}

/** "/filters/0/tag" → "filters[0].tag", with the property that required/additionalProperties errors name. */
function argumentPath(pointer: string, params: Record<string, unknown>): string {
  const segs = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = params['missingProperty'] ?? params['additionalProperty'];
  if (typeof extra === 'string') segs.push(extra);
  if (!segs.length) return '(arguments)';
  return segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? JSON.stringify(s).slice(1, -1) : `.${JSON.stringify(s).slice(1, -1)}`)).join('');
}

/** The tools/list entry: MCP's field order, only the fields the author gave. */
function toolDefinition(
  v: Record<string, unknown>,
  name: string,
  input: CheckedSchema,
  output: CheckedSchema | undefined,
): ToolDefinition {
  const out: Record<string, unknown> = { name };
  if (typeof v['title'] === 'string') out['title'] = v['title'];
  if (typeof v['description'] === 'string') out['description'] = v['description'];
  out['inputSchema'] = input.schema;
  if (output) out['outputSchema'] = output.schema;
  for (const key of ['annotations', 'icons', 'execution', '_meta'] as const) {
    if (v[key] !== undefined) out[key] = structuredClone(v[key]);
  }
  return out as unknown as ToolDefinition;
}
