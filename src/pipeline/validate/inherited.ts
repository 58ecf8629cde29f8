/**
 * Property names that every object inherits (`constructor`, `toString`, `hasOwnProperty`, `__proto__`, …). ajv's
 * code reads `data.toString`, so on an ordinary object such a property seems present when nobody sent it and its
 * default is never applied; its deep equality calls `a.toString()`; `__proto__` it leaves out of `properties`
 * altogether. Schemas that use these names are compiled with each of them renamed to a placeholder, and their
 * validators rename the same keys in the data for the check and back after it (guardInherited, in
 * templates/runtime/arguments.ts: one function for the loader and the generated servers).
 */
import { INHERITED_NAMES as INHERITED, placeholder } from '../../../templates/runtime/arguments.js';
import { isObject, mapChildren, walkSchema } from '../schema/keywords.js';

export { guardInherited, placeholder } from '../../../templates/runtime/arguments.js';

/**
 * The inherited names a schema uses as property names (in properties, required or dependencies) or as keys of the
 * objects in its const, enum, default and examples (ajv's deep equality calls `a.toString()`), sorted.
 */
export function inheritedNames(schema: object): string[] {
  const found = new Set<string>();
  const see = (name: unknown) => typeof name === 'string' && INHERITED.has(name) && found.add(name);
  const seeKeys = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(seeKeys);
    if (!isObject(value)) return;
    for (const [k, v] of Object.entries(value)) {
      see(k);
      seeKeys(v);
    }
  };
  walkSchema(schema as Record<string, unknown>, (node) => {
    for (const k of ['properties', 'dependentRequired', 'dependentSchemas', 'dependencies'] as const) {
      const v = node[k];
      if (isObject(v)) Object.keys(v).forEach(see);
    }
    if (Array.isArray(node['required'])) node['required'].forEach(see);
    for (const k of ['const', 'enum', 'default', 'examples'] as const) seeKeys(node[k]);
  });
  return [...found].sort();
}

/**
 * The schema with the keys that name inherited members renamed inside its values (const, enum, default, examples),
 * its subschemas and property names as they are: what the meta-schema is checked against, since ajv's deep equality
 * (an enum's uniqueItems) calls `a.toString()` and a value `{ toString: null }` would crash it.
 */
export function withValuesRenamed(schema: Record<string, unknown>): Record<string, unknown> {
  const names = new Set(inheritedNames(schema));
  if (!names.size) return schema;
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const out = mapChildren(node, visit);
    for (const k of ['const', 'enum', 'default', 'examples'] as const)
      if (Object.hasOwn(out, k)) out[k] = renameData(out[k], names, false);
    return out;
  };
  return visit(schema) as Record<string, unknown>;
}

/** The schema with each of `names` renamed to its placeholder, wherever it names a property. */
export function renameInherited(schema: unknown, names: ReadonlySet<string>, inPropertyNames = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => renameInherited(s, names, inPropertyNames));
  if (!isObject(schema)) return schema;
  return mapEntries(schema, names, (v, k) => {
    if (k === 'required') return renameData(v, names, true);
    if (k === 'dependentRequired' || k === 'dependencies')
      return isObject(v)
        ? mapEntries(v, names, (d) => (Array.isArray(d) ? renameData(d, names, true) : renameInherited(d, names)))
        : v;
    if (k === 'const' || k === 'enum' || k === 'default' || k === 'examples')
      return renameData(v, names, inPropertyNames);
    return renameInherited(v, names, k === 'propertyNames' || inPropertyNames);
  });
}

/**
 * A value as the guarded validator sees it: keys in `names` renamed, and strings too where they are names (a value
 * from the schema's `required`, say).
 */
export function renameData(value: unknown, names: ReadonlySet<string>, strings: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => renameData(v, names, strings));
  if (typeof value === 'string') return strings && names.has(value) ? placeholder(value) : value;
  if (!isObject(value)) return value;
  return mapEntries(value, names, (v) => renameData(v, names, false));
}

/** `o` with its keys in `names` renamed to their placeholders and `f` applied to each value. */
function mapEntries(o: Record<string, unknown>, names: ReadonlySet<string>, f: (v: unknown, k: string) => unknown) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [names.has(k) ? placeholder(k) : k, f(v, k)]));
}
