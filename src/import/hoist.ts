/**
 * `import --hoist`: sub-schemas that appear, identically, in the schemas of two or more tools move to the spec's
 * shared `$defs` and are replaced by `$ref: "#/$defs/Name"`. generate bundles each one back into every schema that
 * uses it, so clients get schemas that mean the same; they are no longer byte-equal to the server's (a `$ref` and a
 * `$defs` entry where the server wrote the schema out).
 *
 * Only what can move without changing meaning moves: objects with at least MIN_KEYS keywords, below the root of an
 * inputSchema or outputSchema, outside the schema's own `$defs`/`definitions`, with no `$ref`, `$id`, anchor or
 * other `$` keyword inside (those resolve against the schema they sit in). The largest shared schema goes first;
 * what it contains goes with it.
 */
import { pascalCase } from '../core/names.js';
import { children, isObject, type SchemaPath } from '../pipeline/schema/keywords.js';

export const MIN_KEYS = 3;

export interface Hoisted {
  name: string;
  /** The tools whose schemas now refer to it, in tool order. */
  tools: string[];
  /** How many places refer to it. */
  uses: number;
}

interface Occurrence {
  tool: number;
  owner: Record<string, unknown> | unknown[];
  key: string | number;
  path: SchemaPath;
}

const DEF_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Hoists shared sub-schemas out of `tools` (mutated in place: pass copies) into new `$defs`, named apart from every
 * name under a tool schema's own $defs (a tool's own entry would shadow a shared one of the same name).
 */
export function hoist(tools: Record<string, unknown>[]): { defs: Record<string, unknown>; hoisted: Hoisted[] } {
  const roots = tools.flatMap((t) => [t['inputSchema'], t['outputSchema']]).filter(isObject);
  const used = new Set(
    roots.flatMap((s) => [s['$defs'], s['definitions']].flatMap((d) => (isObject(d) ? Object.keys(d) : []))),
  );
  const defs: Record<string, unknown> = {};
  const hoisted: Hoisted[] = [];
  for (;;) {
    const groups = new Map<string, Occurrence[]>();
    tools.forEach((tool, i) => {
      for (const which of ['inputSchema', 'outputSchema'] as const) {
        const root = tool[which];
        if (isObject(root)) collect(root, i, [which], groups);
      }
    });
    let best: { key: string; list: Occurrence[] } | undefined;
    for (const [key, list] of groups) {
      if (new Set(list.map((o) => o.tool)).size < 2) continue;
      // Largest first; among equals, the first in tool order (the map keeps first-seen order).
      if (!best || key.length > best.key.length) best = { key, list };
    }
    if (!best) break;
    const first = best.list[0]!;
    const schema = JSON.parse(best.key) as Record<string, unknown>;
    const base = nameFor(schema, first.path);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    defs[name] = schema;
    for (const o of best.list) (o.owner as Record<string | number, unknown>)[o.key] = { $ref: `#/$defs/${name}` };
    const names = [...new Set(best.list.map((o) => o.tool))].map((i) => String(tools[i]!['name']));
    hoisted.push({ name, tools: names, uses: best.list.length });
  }
  return { defs, hoisted };
}

/** Every movable sub-schema below `node`, grouped by its exact JSON text. */
function collect(node: Record<string, unknown>, tool: number, path: SchemaPath, groups: Map<string, Occurrence[]>) {
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' || key === 'definitions') continue;
    for (const [child, sub] of children(key, value)) {
      if (!isObject(child)) continue;
      const childPath = [...path, ...sub];
      if (Object.keys(child).length >= MIN_KEYS && movable(child)) {
        const text = JSON.stringify(child);
        const owner = sub.length === 2 ? (node[key] as Record<string, unknown> | unknown[]) : node;
        const ownerKey = sub.length === 2 ? sub[1]! : key;
        const list = groups.get(text) ?? [];
        list.push({ tool, owner, key: ownerKey, path: childPath });
        groups.set(text, list);
      }
      collect(child, tool, childPath, groups);
    }
  }
}

/** True when no keyword in the schema resolves against the schema it sits in. */
function movable(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(movable);
  if (!isObject(schema)) return true;
  return Object.entries(schema).every(([k, v]) => (k.startsWith('$') && k !== '$comment' ? false : movable(v)));
}

/** A name from the schema's title, else from the property (or the array property) it describes. */
function nameFor(schema: Record<string, unknown>, path: SchemaPath): string {
  const fromTitle = typeof schema['title'] === 'string' ? pascalCase(schema['title']) : undefined;
  if (fromTitle && DEF_NAME.test(fromTitle)) return fromTitle;
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i - 1] === 'properties' && typeof path[i] === 'string') {
      const base = pascalCase(path[i] as string);
      if (!base) break;
      const below = path.slice(i + 1).filter((s) => typeof s === 'string');
      if (!below.length) return base;
      if (below.every((s) => s === 'items' || s === 'prefixItems')) return `${base}Item`;
      return below.at(-1) === 'additionalProperties' ? `${base}Value` : `${base}Schema`;
    }
  }
  return 'Schema';
}
