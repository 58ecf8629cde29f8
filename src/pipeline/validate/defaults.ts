/**
 * Defaults checked against their own subschemas: a `default` is filled in before the handler runs, and the
 * handler's types promise it is there, so it must match its own schema (ajv never checks defaults itself). All
 * defaults of a schema are checked in one compile: a tuple whose items refer to each default's subschema inside the
 * whole schema (given an $id, so its own $refs resolve).
 */
import type { AnyAjv } from './ajv.js';
import { inheritedNames, renameData, renameInherited } from './inherited.js';
import { isObject, pointerFragment, walkSchema, type Dialect, type SchemaPath } from '../schema/keywords.js';

export function valueAt(root: unknown, path: SchemaPath): unknown {
  let cur = root;
  for (const seg of path) cur = isObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[seg] : undefined;
  return cur;
}

/** Which defaults (by their index in `places`) their own schemas reject, and why. */
export function defaultProblems(
  ajv: AnyAjv,
  dialect: Dialect,
  forAjv: Record<string, unknown>,
  bundled: Record<string, unknown>,
  places: readonly SchemaPath[],
): [number, string[]][] {
  // Copies of just the subschemas that carry a default, beside the root's $defs, make a small schema to compile;
  // only a subschema that points elsewhere in the root (#/properties/…) needs the whole root behind it.
  const subschemas = places.map((p) => valueAt(bundled, p) as Record<string, unknown>);
  const pointsIntoRoot = subschemas.some((sub) => {
    let found = false;
    walkSchema(sub, (n) => {
      const r = n['$ref'];
      if (typeof r === 'string' && r.startsWith('#') && !/^#\/(\$defs|definitions)\//.test(r)) found = true;
    });
    return found;
  });
  const id = `urn:toolspec:defaults:${defaultsId++}`;
  const items = pointsIntoRoot
    ? places.map((p) => ({ $ref: `${id}#${pointerFragment(p)}` }))
    : subschemas.map(({ default: _default, ...rest }) => rest);
  const defsOf = (k: '$defs' | 'definitions') => (isObject(bundled[k]) ? { [k]: bundled[k] } : {});
  const [defs, tupleItems] = dialect === '2020-12' ? ['$defs', 'prefixItems'] : ['definitions', 'items'];
  const tuple = {
    ...(pointsIntoRoot
      ? { [defs]: { root: { ...forAjv, $id: id } } }
      : { ...defsOf('$defs'), ...defsOf('definitions') }),
    type: 'array',
    [tupleItems]: items,
  };
  // Keys named like inherited members are renamed on both sides, as the generated validators do (inherited.ts).
  const inherited = pointsIntoRoot ? new Set<string>() : new Set(inheritedNames(tuple));
  const compiledTuple = inherited.size ? (renameInherited(tuple, inherited) as typeof tuple) : tuple;
  const validate = ajv.compile(compiledTuple);
  try {
    const defaults = places.map((p) => structuredClone(valueAt(bundled, [...p, 'default'])));
    try {
      if (validate(inherited.size ? renameData(defaults, inherited, false) : defaults)) return [];
    } catch {
      return []; // values ajv's deep equality cannot compare: left to the examples and the run time
    }
    const bad = new Map<number, string[]>();
    for (const e of validate.errors ?? []) {
      const m = /^\/(\d+)(.*)$/.exec(e.instancePath);
      if (!m) continue;
      const i = Number(m[1]);
      bad.set(i, [...(bad.get(i) ?? []), `${m[2] || 'the value'} ${e.message ?? e.keyword}`]);
    }
    return [...bad];
  } finally {
    ajv.removeSchema(compiledTuple);
    if (pointsIntoRoot) ajv.removeSchema(id);
  }
}

let defaultsId = 0;
