/**
 * JSON Schema keyword knowledge: which keywords each dialect has and where subschemas live. Used to walk a
 * schema (for $ref, unknown keywords and loops) without compiling it.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

export type Dialect = '2020-12' | 'draft-07';

export const DIALECT_URIS: Record<Dialect, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
};

/** The dialect a `$schema` value names, or undefined when toolspec does not support it. */
export function dialectOf(uri: string): Dialect | undefined {
  const bare = (u: string) => u.replace(/^https?:\/\//, '').replace(/#$/, '');
  return (Object.keys(DIALECT_URIS) as Dialect[]).find((d) => bare(DIALECT_URIS[d]) === bare(uri));
}

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is one subschema (`items` unless it is a list: draft-07's tuple form). */
const SCHEMA_ONE = new Set(
  `items additionalProperties additionalItems unevaluatedItems unevaluatedProperties propertyNames contains not if
  then else contentSchema`.split(/\s+/),
);
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAYS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);

/** Keywords that apply to the same instance (no descent into the data): a $ref cycle through these never ends. */
export const IN_PLACE = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas']);

const COMMON =
  `$schema $id $ref $comment $defs definitions properties patternProperties additionalProperties propertyNames
  contains items allOf anyOf oneOf not if then else type const enum multipleOf maximum exclusiveMaximum minimum
  exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxProperties minProperties required title
  description default examples readOnly writeOnly format contentEncoding contentMediaType`.split(/\s+/);

export const KEYWORDS: Record<Dialect, ReadonlySet<string>> = {
  '2020-12': new Set([
    ...COMMON,
    ...`$anchor $dynamicRef $dynamicAnchor $vocabulary prefixItems dependentSchemas dependentRequired unevaluatedItems
    unevaluatedProperties maxContains minContains deprecated contentSchema`.split(/\s+/),
  ]),
  'draft-07': new Set([...COMMON, 'additionalItems', 'dependencies']),
};

export const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
export type JsonType = (typeof TYPES)[number];

/** A JSON value's type, an integer's `integer` (diff compares by it; `toolspec call` reads arguments by it). */
export function jsonType(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

/** Hints for keywords from other schema languages that people bring along. */
export const FOREIGN_KEYWORDS: Record<string, string> = {
  nullable: 'JSON Schema has no "nullable" (that is OpenAPI 3.0); write type: [string, "null"]',
  example: 'JSON Schema spells it "examples", a list: examples: [value]',
  optional: 'properties are optional unless listed in the parent\'s "required" array',
  discriminator: '"discriminator" is OpenAPI; use oneOf with a const property in each branch',
  $ids: 'did you mean "$id"?',
};

export type SchemaPath = (string | number)[];

/**
 * Calls `visit` for the schema and every subschema below it (objects only; boolean schemas have nothing to
 * check), with its path from `schema`. `visit` may return false to skip a node's children.
 */
export function walkSchema(
  schema: unknown,
  visit: (node: Record<string, unknown>, path: SchemaPath) => boolean | void,
  path: SchemaPath = [],
): void {
  if (!isObject(schema)) return;
  if (visit(schema, path) === false) return;
  // What children() lists, without building its lists: the walk is in every stage (test/schema-walk.test.ts).
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (SCHEMA_MAPS.has(key) || key === 'dependencies') {
      if (!isObject(value)) continue;
      for (const name of Object.keys(value)) {
        const child = value[name];
        if (isObject(child) || typeof child === 'boolean') walkSchema(child, visit, [...path, key, name]);
      }
    } else if (SCHEMA_ARRAYS.has(key) || (key === 'items' && Array.isArray(value))) {
      if (Array.isArray(value)) value.forEach((child, i) => walkSchema(child, visit, [...path, key, i]));
    } else if (SCHEMA_ONE.has(key)) walkSchema(value, visit, [...path, key]);
  }
}

/**
 * A copy of a schema node with `fn` applied to each direct subschema: what children() lists, without building its
 * lists (test/schema-walk.test.ts holds it to the plain form). `__proto__` stays an own key, as JSON.parse makes it.
 */
export function mapChildren(
  node: Record<string, unknown>,
  fn: (child: unknown, path: SchemaPath) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    const value = node[key];
    let mapped = value;
    if (SCHEMA_MAPS.has(key) || key === 'dependencies') {
      if (isObject(value)) {
        const map: Record<string, unknown> = {};
        for (const name of Object.keys(value)) {
          const c = value[name];
          define(map, name, isObject(c) || typeof c === 'boolean' ? fn(c, [key, name]) : c);
        }
        mapped = map;
      }
    } else if (SCHEMA_ARRAYS.has(key) || SCHEMA_ONE.has(key)) {
      // A list is mapped item by item under any of these keywords, as the plain form does.
      mapped = Array.isArray(value)
        ? value.map((c, i) => fn(c, [key, i]))
        : SCHEMA_ONE.has(key)
          ? fn(value, [key])
          : value;
    }
    define(out, key, mapped);
  }
  return out;
}

/** `o[key] = value`, as an own property even for `__proto__`. */
function define(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** The subschemas one keyword holds, each with its path below the keyword's owner. */
export function children(key: string, value: unknown): readonly [unknown, SchemaPath][] {
  if (SCHEMA_MAPS.has(key) || key === 'dependencies') {
    if (!isObject(value)) return NONE;
    return Object.entries(value)
      .filter(([, v]) => isObject(v) || typeof v === 'boolean')
      .map(([k, v]) => [v, [key, k]]);
  }
  if (SCHEMA_ARRAYS.has(key) || (key === 'items' && Array.isArray(value))) {
    return Array.isArray(value) ? value.map((v, i) => [v, [key, i]]) : NONE;
  }
  return SCHEMA_ONE.has(key) ? [[value, [key]]] : NONE;
}

/** What children() gives for a keyword that holds no schema, most of them: one list, never changed. */
const NONE: readonly [unknown, SchemaPath][] = Object.freeze([]);

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Whether every value the schema accepts is an object, decided on the resolved schema: `type: "object"` (or a list
 * of that type alone), a local `$ref` followed, an `allOf` one of whose members is, an `anyOf` or `oneOf` each of
 * whose members is. An output schema's root must be one for 2025 clients to get the value unwrapped.
 */
export function objectRoot(schema: unknown, root: unknown = schema, depth = 0): boolean {
  if (!isObject(schema) || depth > 32) return false;
  const type = schema['type'];
  if (type === 'object' || (Array.isArray(type) && type.length > 0 && type.every((t) => t === 'object'))) return true;
  const ref = schema['$ref'];
  if (typeof ref === 'string' && objectRoot(resolvePointer(root, ref), root, depth + 1)) return true;
  const all = schema['allOf'];
  if (Array.isArray(all) && all.some((m) => objectRoot(m, root, depth + 1))) return true;
  return (['anyOf', 'oneOf'] as const).some((k) => {
    const members = schema[k];
    return Array.isArray(members) && members.length > 0 && members.every((m) => objectRoot(m, root, depth + 1));
  });
}

/** Reads a local JSON pointer ("#/a/b") inside `root`. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = root;
  for (const seg of pointerSegments(ref)) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObject(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/** A path as a URI fragment's JSON pointer ("/properties/a~1b"): each segment escaped, then percent-encoded. */
export function pointerFragment(path: SchemaPath): string {
  return path.map((s) => `/${encodeURIComponent(String(s).replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

export function pointerSegments(ref: string): string[] {
  if (!ref.startsWith('#/')) return [];
  return ref.slice(2).split('/').map(pointerToken);
}

/** One JSON-pointer segment of a URI fragment: percent-decoding (kept as written when malformed), then ~1 and ~0. */
export function pointerToken(raw: string): string {
  let s = raw;
  try {
    s = decodeURIComponent(raw);
  } catch {
    // "100%" is not percent-encoding; take it literally, and the lookup decides.
  }
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Keywords that only annotate: they validate nothing (`default` aside, which fills in values). */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set(
  'title description examples $comment deprecated readOnly writeOnly'.split(' '),
);

/** What `format` may name: ajv-formats' full set, which the validators (checked and generated) are compiled with. */
export const FORMATS = Object.keys(fullFormats);
