/**
 * Stage 2, validate: what the spec file's JSON Schema cannot say about tools. Names (unique, TypeScript-safe),
 * their schemas, and their examples (src/pipeline/validate/examples.ts). Whether a valid tool is a good one (descriptions,
 * name length and style, hints) is lint's job: src/lint.
 */
import { diagnostic, type Diagnostics } from '../../core/diagnostics.js';
import type { RawDef, RawTool } from '../load/load.js';
import type { CompiledValidators, ToolDefinition, ToolModel, ValidatorCode } from '../model.js';
import { checkTimeout } from '../../core/duration.js';
import type { Cache } from '../../cache/store.js';
import { resolveVerdicts } from './verdicts.js';
import { checkExamples } from './examples.js';
import { prepareToolSchema, type CheckedSchema } from './schemas.js';
import { withScopes } from './auth.js';
import { NAME_PATTERN, Names, placeOf, position } from './primitives.js';

/**
 * The spec's tools, checked. The validators are compiled from each schema as the spec bundles it, whatever
 * `options.refs` sends to clients: inlining validates the same data (test/fuzz/schema-property.test.ts), and a
 * default is filled in only where the spec writes it, on the property itself, in both forms.
 */
export function checkTools(
  tools: readonly RawTool[],
  defs: ReadonlyMap<string, RawDef>,
  diags: Diagnostics,
  cache?: Cache,
): { tools: ToolModel[]; validators: CompiledValidators } {
  const validators = new Map<string, { input: ValidatorCode; output?: ValidatorCode }>();
  const names = new Names('tool', diags);
  const models: ToolModel[] = [];
  const prepared = tools.map((tool) => {
    // Quality (description, name length, …) is lint's: src/lint, `toolspec lint`.
    const typeName = names.claim(tool);
    const prepare = (which: 'inputSchema' | 'outputSchema') =>
      prepareToolSchema(tool.value[which], { file: tool.file, path: [...tool.path, which] }, which, defs, diags);
    return { tool, typeName, input: prepare('inputSchema'), output: prepare('outputSchema') };
  });

  // What ajv judges, for every schema at once: computed, or kept in the cache.
  const jobs = prepared.flatMap((p) => [p.input, p.output].filter((s) => s !== undefined).map((s) => s.job));
  const verdicts = resolveVerdicts(jobs, cache);
  let next = 0;
  const finish = (s: ReturnType<typeof prepareToolSchema>) => (s ? s.finish(verdicts[next++]!) : undefined);

  for (const { tool, typeName, ...schemas } of prepared) {
    const v = tool.value;
    const at = (p: (string | number)[]) => tool.file.locate([...tool.path, ...p]);
    const input = finish(schemas.input);
    const output = finish(schemas.output);
    const examples = checkExamples(tool, input, output, diags);
    const timeoutMs = checkTimeout(v['timeout'], at(['timeout']), diags);

    const renamedFrom = formerNames(v['renamedFrom']);
    const searchMeta = toolSearchMeta(v, at, diags);
    if (typeName === undefined || !input || (v['outputSchema'] !== undefined && !output)) continue;
    const name = v['name'] as string;
    validators.set(name, { input: input.compiled.code, ...(output ? { output: output.compiled.code } : {}) });
    models.push({
      name,
      typeName,
      input: input.model,
      ...(output ? { output: output.model } : {}),
      examples,
      mcpHeaders: input.mcpHeaders,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      definition: toolDefinition(v, name, input, output, searchMeta),
      ...(renamedFrom.length ? { renamedFrom } : {}),
      ...(typeof v['deprecated'] === 'string' ? { deprecated: v['deprecated'] } : {}),
      ...withScopes(v),
      ...(v['task'] === 'optional' || v['task'] === 'required' ? { task: v['task'] } : {}),
      source: position(tool),
    });
  }
  checkRenames(tools, names.byName, diags);
  return { tools: models, validators };
}

/** The `_meta` keys clients' tool search reads, from the tool's `alwaysLoad` and `searchHint`. */
const SEARCH_META = { alwaysLoad: 'anthropic/alwaysLoad', searchHint: 'anthropic/searchHint' } as const;

/**
 * `alwaysLoad` and `searchHint` as their `_meta` keys. A `_meta` that sets the same key itself must agree (TS009
 * otherwise): one fact, one value on the wire.
 */
function toolSearchMeta(
  v: Record<string, unknown>,
  at: (path: (string | number)[]) => ReturnType<RawTool['file']['locate']>,
  diags: Diagnostics,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const own = (v['_meta'] ?? {}) as Record<string, unknown>;
  for (const [field, key] of Object.entries(SEARCH_META)) {
    const value = v[field];
    if (value === undefined) continue;
    if (Object.hasOwn(own, key) && own[key] !== value) {
      diags.add(
        diagnostic(
          'TS009',
          at(['_meta', key]),
          `_meta["${key}"] says ${JSON.stringify(own[key])}, but ${field} says ${JSON.stringify(value)}`,
          `${field} is sent as _meta["${key}"]: keep one of the two`,
        ),
      );
      continue;
    }
    meta[key] = value;
  }
  return meta;
}

/** `renamedFrom: a` or `renamedFrom: [a, b]`, as a list; entries that are not names are the structure check's. */
function formerNames(v: unknown): string[] {
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  return list.filter((n): n is string => typeof n === 'string' && NAME_PATTERN.test(n));
}

/**
 * A former name must name no current tool (the spec would mean two tools by one name, and a move would take the
 * current tool's handler), and at most one tool may claim it (its handler can move to one place only). Its own
 * name is the first case, said plainly.
 */
function checkRenames(tools: readonly RawTool[], current: ReadonlyMap<string, RawTool>, diags: Diagnostics): void {
  const claimed = new Map<string, RawTool>();
  for (const tool of tools) {
    const v = tool.value;
    const name = typeof v['name'] === 'string' ? v['name'] : undefined;
    const raw = v['renamedFrom'];
    const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [];
    list.forEach((former, i) => {
      if (typeof former !== 'string' || !NAME_PATTERN.test(former)) return;
      const other = current.get(former);
      const first = claimed.get(former);
      const problem: [string, string] | undefined =
        former === name
          ? [
              `tool "${former}" names itself in renamedFrom`,
              'renamedFrom lists the names the tool had before; remove this one',
            ]
          : other
            ? [
                `renamedFrom names "${former}", which is a tool of this spec (${placeOf(other)})`,
                `a former name must be gone from the spec: remove it from renamedFrom, or rename or remove the tool "${former}"`,
              ]
            : first && first !== tool
              ? [
                  `tools "${String(first.value['name'])}" and "${name ?? '?'}" both say they were "${former}"`,
                  `its handler can move to one of them only; keep renamedFrom: ${former} on one (the other is at ${placeOf(first)})`,
                ]
              : undefined;
      const span = tool.file.locate([...tool.path, 'renamedFrom', ...(typeof raw === 'string' ? [] : [i])]);
      if (problem) diags.add(diagnostic('TS043', span, ...problem));
      else claimed.set(former, tool);
    });
  }
}

/** The tools/list entry: MCP's field order, only the fields the author gave. */
function toolDefinition(
  v: Record<string, unknown>,
  name: string,
  input: CheckedSchema,
  output: CheckedSchema | undefined,
  searchMeta: Record<string, unknown>,
): ToolDefinition {
  const out: Record<string, unknown> = { name };
  if (typeof v['title'] === 'string') out['title'] = v['title'];
  const description = [v['deprecated'], v['description']].filter((d) => typeof d === 'string');
  if (typeof v['deprecated'] === 'string') description[0] = `Deprecated: ${v['deprecated']}`;
  if (description.length) out['description'] = description.join('\n\n');
  out['inputSchema'] = input.model.schema;
  if (output) out['outputSchema'] = output.model.schema;
  for (const key of ['annotations', 'icons', 'execution', '_meta'] as const) {
    if (v[key] !== undefined) out[key] = structuredClone(v[key]);
  }
  if (Object.keys(searchMeta).length) out['_meta'] = { ...(out['_meta'] as object | undefined), ...searchMeta };
  return out as unknown as ToolDefinition;
}
