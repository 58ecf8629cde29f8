/**
 * Values for the schema property test: for a schema, values built to satisfy it (mostly: allOf, not and conflicting
 * bounds are only approximated), near misses (one thing changed), and random JSON; and the schema the reference
 * validator judges by.
 */
import fc from 'fast-check';
import {
  NUMBER_FORMAT_SAMPLES,
  NUMBER_FORMATS,
  PROPERTY_NAMES,
  STRING_FORMAT_SAMPLES,
  fromEntries,
  isObject,
  maybe,
  propertyName,
  smallJson,
  type Schema,
  type SchemaObject,
} from './schema-pools.js';

/** Resolves the local refs of one schema document (`#`, `#/$defs/…`, `#/definitions/…`, escaped). */
export function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(cur) || !Object.hasOwn(cur, seg)) return undefined;
    cur = cur[seg];
  }
  return typeof cur === 'boolean' || isObject(cur) ? (cur as Schema) : undefined;
}

/**
 * The schema a reference validator judges by: the tool's schema with the spec's shared $defs beside its own (its
 * own win, as the product documents). Written independently of toolspec's bundling, on purpose.
 */
export function referenceSchema(schema: SchemaObject, shared: Record<string, Schema>): SchemaObject {
  const own = isObject(schema['$defs']) ? schema['$defs'] : {};
  if (!Object.keys(shared).length) return schema;
  return { ...schema, $defs: fromEntries([...Object.entries(shared), ...Object.entries(own)]) };
}

function merge(values: unknown[]): unknown {
  const objects = values.filter(isObject);
  if (objects.length && objects.length === values.length)
    return fromEntries(objects.reverse().flatMap((o) => Object.entries(o)));
  return values[0];
}

const STRING_UNITS = fc.constantFrom<'grapheme-ascii' | 'grapheme' | 'binary'>(
  'grapheme-ascii',
  'grapheme-ascii',
  'grapheme',
  'binary',
);

/** Values built to satisfy `schema` (mostly: allOf, not, and conflicting bounds are only approximated). */
export function instanceOf(schema: Schema, root: Schema, depth = 4): fc.Arbitrary<unknown> {
  if (typeof schema === 'boolean' || depth < 0) return smallJson;
  const parts: fc.Arbitrary<unknown>[] = [];
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const target = resolveRef(root, ref);
    if (target !== undefined) parts.push(instanceOf(target, root, depth - 1));
  }
  if ('const' in schema) return fc.constant(schema['const']).map((v) => structuredClone(v));
  if (Array.isArray(schema['enum']) && schema['enum'].length)
    return fc.constantFrom(...(schema['enum'] as unknown[])).map((v) => structuredClone(v));
  if (Array.isArray(schema['allOf']))
    for (const s of schema['allOf'] as Schema[]) parts.push(instanceOf(s, root, depth - 1));
  for (const k of ['anyOf', 'oneOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list) && list.length)
      parts.push(fc.oneof(...(list as Schema[]).map((s) => instanceOf(s, root, depth - 1))));
  }
  if (schema['then'] !== undefined || schema['else'] !== undefined) {
    const branches = [schema['then'], schema['else']].filter((s): s is Schema => s !== undefined);
    parts.push(fc.oneof(...branches.map((s) => instanceOf(s, root, depth - 1))));
  }
  const own = ownValue(schema, root, depth);
  if (own) parts.unshift(own);
  if (!parts.length) return smallJson;
  if (parts.length === 1) return parts[0]!;
  return fc.tuple(...parts).map(merge);
}

/** Values for the schema's own type keywords; undefined when it has none. */
function ownValue(schema: SchemaObject, root: Schema, depth: number): fc.Arbitrary<unknown> | undefined {
  const declared = schema['type'];
  const types: string[] = Array.isArray(declared)
    ? (declared as string[])
    : typeof declared === 'string'
      ? [declared]
      : [];
  if (!types.length) {
    if ('properties' in schema || 'required' in schema || 'patternProperties' in schema) types.push('object');
    else if ('items' in schema || 'prefixItems' in schema || 'contains' in schema) types.push('array');
    else if ('minLength' in schema || 'pattern' in schema) types.push('string');
    else if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) types.push('number');
    else return undefined;
  }
  return fc.oneof(...types.map((t) => valueOfType(t, schema, root, depth)));
}

function valueOfType(type: string, s: SchemaObject, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      if (typeof s['format'] === 'string' && NUMBER_FORMATS.includes(s['format']))
        return fc.constantFrom(...NUMBER_FORMAT_SAMPLES);
      const lo = Math.max(num('minimum') ?? -1000, (num('exclusiveMinimum') ?? -1001) + 1);
      const hi = Math.min(num('maximum') ?? 1000, (num('exclusiveMaximum') ?? 1001) - 1);
      const m = num('multipleOf');
      const [from, to] = [Math.ceil(lo), Math.floor(hi)];
      const ints =
        m !== undefined
          ? fc.integer({ min: -20, max: 20 }).map((k) => k * m)
          : from <= to
            ? fc.integer({ min: from, max: to })
            : fc.integer({ min: -5, max: 5 });
      const edges = fc.constantFrom(
        ...[num('minimum'), num('maximum'), num('exclusiveMinimum'), num('exclusiveMaximum')].filter(
          (x): x is number => x !== undefined,
        ),
        0,
      );
      return type === 'integer'
        ? fc.oneof(ints, edges)
        : fc.oneof(
            ints,
            edges,
            fc.double({ min: Math.min(lo, hi), max: Math.max(lo, hi), noNaN: true, noDefaultInfinity: true }),
          );
    }
    case 'string': {
      if (typeof s['format'] === 'string' && STRING_FORMAT_SAMPLES[s['format']]) {
        return fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...STRING_FORMAT_SAMPLES[s['format']]!) },
          { weight: 1, arbitrary: fc.string() },
        );
      }
      if (typeof s['pattern'] === 'string') return fc.stringMatching(new RegExp(s['pattern'], 'u'));
      const min = num('minLength') ?? 0;
      const max = Math.max(min, num('maxLength') ?? min + 6);
      return STRING_UNITS.chain((unit) => fc.string({ unit, minLength: min, maxLength: max }));
    }
    case 'array':
      return arrayValue(s, root, depth);
    case 'object':
      return objectValue(s, root, depth);
    default:
      return smallJson;
  }
}

function arrayValue(s: SchemaObject, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const prefix = (
    Array.isArray(s['prefixItems']) ? s['prefixItems'] : Array.isArray(s['items']) ? s['items'] : []
  ) as Schema[];
  const restSchema = (Array.isArray(s['items']) ? s['additionalItems'] : s['items']) as Schema | undefined;
  const rest = restSchema === undefined ? smallJson : instanceOf(restSchema, root, depth - 1);
  const min = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
  const max = Math.max(min, typeof s['maxItems'] === 'number' ? s['maxItems'] : min + 3);
  const contains = s['contains'] === undefined ? undefined : instanceOf(s['contains'] as Schema, root, depth - 1);
  return fc
    .tuple(
      fc.tuple(...prefix.map((p) => instanceOf(p, root, depth - 1))),
      fc.array(rest, { minLength: Math.max(0, min - prefix.length), maxLength: Math.max(0, max - prefix.length) }),
      contains ? fc.array(contains, { minLength: 1, maxLength: 2 }) : fc.constant([]),
      fc.boolean(),
    )
    .map(([head, tail, found, cut]) => {
      let items = [...head, ...tail];
      if (found.length)
        items = cut ? [...items.slice(0, Math.max(0, max - found.length)), ...found] : [...items, ...found];
      if (s['uniqueItems'] === true) items = [...new Map(items.map((v) => [JSON.stringify(v), v])).values()];
      return items;
    });
}

function objectValue(s: SchemaObject, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const props = isObject(s['properties']) ? Object.entries(s['properties'] as Record<string, Schema>) : [];
  const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
  const patterns = isObject(s['patternProperties'])
    ? Object.entries(s['patternProperties'] as Record<string, Schema>)
    : [];
  const additional = s['additionalProperties'];
  const extraKeys =
    additional === false
      ? fc.constant([])
      : fc.array(
          fc.tuple(
            propertyName,
            additional === undefined || additional === true
              ? smallJson
              : instanceOf(additional as Schema, root, depth - 1),
          ),
          { maxLength: 1 },
        );
  return fc
    .tuple(
      fc.tuple(
        ...props.map(([name, sub]) =>
          fc.tuple(
            fc.constant(name),
            instanceOf(sub, root, depth - 1),
            required.has(name) ? fc.constant(true) : fc.boolean(),
          ),
        ),
      ),
      fc.tuple(
        ...patterns.map(([p, sub]) =>
          maybe(fc.tuple(fc.stringMatching(new RegExp(p, 'u')), instanceOf(sub, root, depth - 1)), 1),
        ),
      ),
      extraKeys,
      fc.boolean(),
    )
    .map(([own, matched, extra, withUnknownRequired]) => {
      const entries: [string, unknown][] = own.filter(([, , present]) => present).map(([k, v]) => [k, v]);
      for (const m of matched) if (m) entries.push(m);
      entries.push(...extra);
      if (withUnknownRequired) for (const r of required) if (!props.some(([k]) => k === r)) entries.push([r, 'x']);
      return fromEntries(entries);
    });
}

/** One thing changed in a value: a key removed or added, a leaf of another type, a number or string nudged. */
export function nearMiss(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(base, fc.nat(), fc.nat(6), smallJson, propertyName).map(([value, at, op, replacement, key]) => {
    const copy = structuredClone(value);
    const spots: { parent: unknown; key: string | number | undefined; value: unknown }[] = [];
    const walk = (v: unknown, parent: unknown, k: string | number | undefined) => {
      spots.push({ parent, key: k, value: v });
      if (Array.isArray(v)) v.forEach((c, i) => walk(c, v, i));
      else if (isObject(v)) for (const [ck, c] of Object.entries(v)) walk(c, v, ck);
    };
    walk(copy, undefined, undefined);
    const spot = spots[at % spots.length]!;
    const set = (next: unknown): unknown => {
      if (spot.parent === undefined) return next;
      if (Array.isArray(spot.parent)) spot.parent[spot.key as number] = next;
      else
        Object.defineProperty(spot.parent, spot.key as string, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return copy;
    };
    const v = spot.value;
    switch (op) {
      case 0: // remove it
        if (spot.parent === undefined) return {};
        if (Array.isArray(spot.parent)) spot.parent.splice(spot.key as number, 1);
        else delete (spot.parent as Record<string, unknown>)[spot.key as string];
        return copy;
      case 1: // add a key or an item
        if (isObject(v))
          Object.defineProperty(v, key, { value: replacement, enumerable: true, writable: true, configurable: true });
        else if (Array.isArray(v)) v.push(v.length ? structuredClone(v[0]) : replacement);
        else return set(replacement);
        return copy;
      case 2: // a value of another type
        return set(
          typeof v === 'string'
            ? v.length
            : typeof v === 'number'
              ? String(v)
              : typeof v === 'boolean'
                ? Number(v)
                : v === null
                  ? false
                  : replacement,
        );
      case 3: // a number nudged
        return set(typeof v === 'number' ? v + (at % 2 ? 1 : -0.5) : replacement);
      case 4: // a string nudged
        return set(typeof v === 'string' ? (at % 2 ? `${v}x` : v.slice(1)) : replacement);
      case 5: // a string with a character outside the BMP (lengths count code points)
        return set(typeof v === 'string' ? `${v}😀` : replacement);
      default:
        return set(replacement);
    }
  });
}

/** The values one schema is exercised with. */
export function valuesFor(schema: SchemaObject, maxValues: number, withUndefined: boolean): fc.Arbitrary<unknown[]> {
  const built = instanceOf(schema, schema);
  return fc.array(
    fc.oneof(
      { weight: 6, arbitrary: built },
      { weight: 4, arbitrary: nearMiss(built) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...PROPERTY_NAMES), smallJson, { maxKeys: 3 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      ...(withUndefined ? [{ weight: 1, arbitrary: fc.constant(undefined) }] : []),
    ),
    { minLength: Math.min(4, maxValues), maxLength: maxValues },
  );
}
