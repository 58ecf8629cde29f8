/**
 * fast-check arbitraries for the property test of generate and the generated dispatcher: specs whose tools carry
 * random JSON Schemas (2020-12, or draft-07 by `$schema`), with shared `$defs`, local `$defs`/`definitions` and
 * `$ref`s between them, and for each schema a list of values: built to satisfy it, near misses (one thing changed),
 * and random JSON.
 *
 * Only schemas that toolspec should accept are drawn: keywords of the tool's dialect (shared `$defs` use the keywords
 * both dialects share, since any tool may bundle them), unique `enum` and `type` lists, `$ref` recursion only below
 * a property or an item (a loop through allOf/anyOf/oneOf/not/if is an error by design), defaults that match their
 * own schema, and tool names of distinct TypeScript identifiers. No default sits on a property named like an
 * inherited member (`toString`): ajv, the reference, never fills those in (a regression case covers them).
 */
import fc from 'fast-check';
import { pascalCase } from '../../src/core/names.js';
import {
  DRAFT_07_URI,
  DRAFT_2020_URI,
  PATTERNS,
  STRING_FORMAT_SAMPLES,
  NUMBER_FORMATS,
  fields,
  fromEntries,
  hostileText,
  maybe,
  propertyName,
  smallJson,
  smallNumber,
  type Dialect,
  type Schema,
  type SchemaObject,
} from './schema-pools.js';
import { referenceSchema, valuesFor } from './schema-values.js';

export type { Dialect, Schema, SchemaObject } from './schema-pools.js';
export { DRAFT_07_URI } from './schema-pools.js';

export interface DrawnTool {
  name: string;
  dialect: Dialect;
  inputSchema: SchemaObject;
  outputSchema?: SchemaObject;
  /** Arguments to call the tool with; `undefined` stands for a call without `arguments`. */
  inputValues: unknown[];
  /** Values the handler returns as structured output (tools with an outputSchema). */
  outputValues: unknown[];
}

export interface DrawnSpec {
  refs: 'bundle' | 'inline';
  sharedDefs: Record<string, Schema>;
  tools: DrawnTool[];
}

export interface SpecSize {
  /** Most tools per spec. */
  maxTools: number;
  /** Nesting below a tool's root object. */
  depth: number;
  /** Most values drawn per schema. */
  maxValues: number;
}

export const DEFAULT_SIZE: SpecSize = { maxTools: 5, depth: 2, maxValues: 24 };

// ---------------------------------------------------------------------------------------------------------------
// Schemas

/** Where a schema is drawn: which dialect's keywords, which $refs it may use, and whether recursion is allowed. */
interface Place {
  /** 'common': keywords both dialects share (for shared $defs, which tools of either dialect bundle). */
  dialect: Dialect | 'common';
  /** $ref targets usable anywhere (they form no loop). */
  refs: readonly string[];
  /** $ref targets that reach back to an enclosing schema: only below a property or an item. */
  recursive: readonly string[];
}

/** The escaped `#/<container>/<name>` ref of a definition. */
export function defRef(container: '$defs' | 'definitions', name: string): string {
  return `#/${container}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** A default that a leaf schema surely accepts, or undefined when there is no easy one. */
export function validDefault(s: SchemaObject): { value: unknown } | undefined {
  if (Array.isArray(s['enum'])) return s['enum'].length ? { value: structuredClone(s['enum'][0]) } : undefined;
  if ('const' in s) return { value: structuredClone(s['const']) };
  const keys = Object.keys(s).filter(
    (k) => !['type', 'description', 'title', '$comment', 'examples', 'x-note', 'readOnly', 'deprecated'].includes(k),
  );
  switch (s['type']) {
    case 'boolean':
      return { value: true };
    case 'null':
      return { value: null };
    case 'string': {
      if (s['pattern'] !== undefined || s['format'] !== undefined) return undefined;
      const min = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
      const max = typeof s['maxLength'] === 'number' ? s['maxLength'] : Infinity;
      return min <= max ? { value: 'd'.repeat(min) } : undefined;
    }
    case 'integer':
    case 'number': {
      if (s['format'] !== undefined) return undefined;
      const candidates = [0, 1, -1, 2, -2, 3, 5, 10, -10, 100, s['minimum'], s['maximum']];
      const found = candidates.find((c): c is number => typeof c === 'number' && numberFits(s, c));
      return found === undefined ? undefined : { value: found };
    }
    case undefined:
      return keys.length ? undefined : { value: 'any' };
    default:
      return undefined;
  }
}

/** The number keywords, judged as ajv judges them (multipleOf: data / m must be an integer). */
function numberFits(s: SchemaObject, n: number): boolean {
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  const [min, max, xmin, xmax, m] = [
    num('minimum'),
    num('maximum'),
    num('exclusiveMinimum'),
    num('exclusiveMaximum'),
    num('multipleOf'),
  ];
  if (s['type'] === 'integer' && !Number.isInteger(n)) return false;
  if (min !== undefined && n < min) return false;
  if (max !== undefined && n > max) return false;
  if (xmin !== undefined && n <= xmin) return false;
  if (xmax !== undefined && n >= xmax) return false;
  if (m !== undefined && n / m !== parseInt(String(n / m), 10)) return false;
  return true;
}

/** Adds a default to some leaf schemas, when a valid one is known. */
function withDefault(arb: fc.Arbitrary<SchemaObject>): fc.Arbitrary<SchemaObject> {
  return fc.tuple(arb, fc.nat(3)).map(([s, n]) => {
    const d = n === 0 ? validDefault(s) : undefined;
    return d ? { ...s, default: d.value } : s;
  });
}

/** Annotations, now and then: descriptions with hostile text, titles, comments, examples, x- keywords. */
function annotated(arb: fc.Arbitrary<SchemaObject>, dialect: Place['dialect']): fc.Arbitrary<SchemaObject> {
  const notes = fields({
    description: maybe(hostileText, 1),
    title: maybe(hostileText, 3),
    $comment: maybe(hostileText, 4),
    examples: maybe(fc.array(smallJson, { maxLength: 2 }), 4),
    'x-note': maybe(smallJson, 5),
    readOnly: maybe(fc.boolean(), 6),
    ...(dialect === '2020-12' ? { deprecated: maybe(fc.boolean(), 6) } : {}),
  });
  return fc.tuple(arb, fc.nat(2), notes).map(([s, n, a]) => (n === 0 ? { ...a, ...s } : s));
}

function leafSchemas(place: Place): fc.Arbitrary<Schema> {
  const stringSchema = fields({
    minLength: maybe(fc.nat(4)),
    maxLength: maybe(fc.integer({ min: 0, max: 8 })),
    pattern: maybe(fc.constantFrom(...PATTERNS), 3),
    format: maybe(fc.constantFrom(...Object.keys(STRING_FORMAT_SAMPLES)), 3),
  }).map((r) => ({ type: 'string', ...r }));
  const numberSchema = fc
    .tuple(
      fc.constantFrom('integer', 'number'),
      fields({
        minimum: maybe(smallNumber),
        maximum: maybe(smallNumber),
        exclusiveMinimum: maybe(smallNumber, 4),
        exclusiveMaximum: maybe(smallNumber, 4),
        multipleOf: maybe(fc.constantFrom(1, 2, 3, 0.5, 0.25, 0.1), 3),
        format: maybe(fc.constantFrom(...NUMBER_FORMATS), 5),
      }),
    )
    .map(([type, r]) => ({ type, ...r }));
  const enumSchema = fc
    .uniqueArray(smallJson, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) })
    .map((values) => ({ enum: values }));
  const typedEnum = fc
    .uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 4 })
    .map((values) => ({ type: 'string', enum: values }));
  const constSchema = smallJson.map((value) => ({ const: value }));
  const unionType = fc
    .uniqueArray(fc.constantFrom('string', 'integer', 'number', 'boolean', 'null', 'array', 'object'), {
      minLength: 1,
      maxLength: 3,
    })
    .map((type) => ({ type }));
  const ref = place.refs.length
    ? fc
        .tuple(fc.constantFrom(...place.refs), maybe(hostileText, 3))
        .map(([r, d]) => (d === undefined ? { $ref: r } : { $ref: r, description: d }))
    : undefined;
  return fc.oneof(
    { weight: 4, arbitrary: annotated(withDefault(stringSchema), place.dialect) },
    { weight: 3, arbitrary: annotated(withDefault(numberSchema), place.dialect) },
    { weight: 1, arbitrary: withDefault(fc.constantFrom({ type: 'boolean' }, { type: 'null' }, {})) },
    { weight: 2, arbitrary: annotated(withDefault(enumSchema), place.dialect) },
    { weight: 1, arbitrary: withDefault(typedEnum) },
    { weight: 1, arbitrary: withDefault(constSchema) },
    { weight: 1, arbitrary: unionType },
    { weight: 1, arbitrary: fc.boolean() },
    ...(ref ? [{ weight: 3, arbitrary: ref }] : []),
  );
}

/**
 * A schema at `depth` levels of nesting at most. `data`: below a property or an item, where recursive refs are
 * allowed. Arbitraries are built once per (depth, data) and shared by every keyword that nests.
 */
function schemaArbitrary(place: Place, depth: number, data: boolean): fc.Arbitrary<Schema> {
  const memo = new Map<string, fc.Arbitrary<Schema>>();
  const build = (d: number, inData: boolean): fc.Arbitrary<Schema> => {
    const id = `${d}:${inData}`;
    const hit = memo.get(id);
    if (hit) return hit;
    const here: Place = inData ? { ...place, refs: [...place.refs, ...place.recursive] } : place;
    const leaves = leafSchemas(here);
    if (d <= 0) {
      memo.set(id, leaves);
      return leaves;
    }
    const below = build(d - 1, true); // below a property or an item
    const inPlace = build(d - 1, inData); // allOf, anyOf, oneOf, not, if/then/else, dependentSchemas
    const arb = fc.oneof(
      { weight: 5, arbitrary: leaves },
      { weight: 3, arbitrary: objectSchema(here.dialect, below, inPlace) },
      { weight: 2, arbitrary: arraySchema(here.dialect, below) },
      { weight: 2, arbitrary: combinator(inPlace) },
    );
    memo.set(id, arb);
    return arb;
  };
  return build(depth, data);
}

function objectSchema(
  dialect: Place['dialect'],
  below: fc.Arbitrary<Schema>,
  inPlace: fc.Arbitrary<Schema>,
): fc.Arbitrary<SchemaObject> {
  const props = fc.uniqueArray(fc.tuple(propertyName, below), { maxLength: 4, selector: (e) => e[0] });
  return fc
    .tuple(
      props,
      fc.array(fc.nat(5), { maxLength: 3 }),
      fields({
        additionalProperties: maybe(fc.oneof(fc.constant(false), fc.constant(true), below), 1),
        patternProperties: maybe(
          fc
            .uniqueArray(fc.tuple(fc.constantFrom(...PATTERNS), below), {
              minLength: 1,
              maxLength: 2,
              selector: (e) => e[0],
            })
            .map(fromEntries),
          3,
        ),
        minProperties: maybe(fc.nat(3), 4),
        maxProperties: maybe(fc.nat(5), 4),
        propertyNames: maybe(
          fc.oneof(
            fc.constantFrom(...PATTERNS).map((pattern) => ({ pattern })),
            fc.nat(4).map((maxLength) => ({ maxLength })),
          ),
          5,
        ),
        ...(dialect === '2020-12' ? { unevaluatedProperties: maybe(fc.oneof(fc.constant(false), below), 5) } : {}),
      }),
      fc.nat(7),
      fc.array(fc.nat(5), { maxLength: 2 }),
      maybe(inPlace, 3),
    )
    .map(([entries, requiredPicks, rest, typeForm, depPicks, depSchema]) => {
      const names = entries.map(([n]) => n);
      const schema: SchemaObject = { type: typeForm === 0 ? ['object'] : 'object' };
      // ajv never fills in the default of a property named like an inherited member: no reference for it.
      if (entries.length)
        schema['properties'] = fromEntries(
          entries.map(([n, sub]) => [n, INHERITED.has(n) ? withoutDefault(sub) : sub]),
        );
      // Required names come from the properties, now and then one that is not defined (ajv only warns).
      const pool = [...names, 'undefinedProp'];
      const required = [...new Set(requiredPicks.map((i) => pool[i % pool.length]!))];
      if (required.length) schema['required'] = required;
      Object.assign(schema, rest);
      // A closed object that requires an undefined name accepts nothing: toolspec refuses it (TS045), so keep the
      // undefined name only where the schema leaves room for it.
      const closed = schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false;
      const patterns = Object.keys((schema['patternProperties'] as Record<string, unknown> | undefined) ?? {});
      if (closed && !patterns.some((p) => new RegExp(p, 'u').test('undefinedProp'))) {
        const kept = required.filter((r) => r !== 'undefinedProp');
        if (kept.length) schema['required'] = kept;
        else delete schema['required'];
      }
      if (names.length >= 2 && depPicks.length) {
        const [a, b] = [names[depPicks[0]! % names.length]!, names[(depPicks[1] ?? 1) % names.length]!];
        if (dialect === '2020-12') {
          if (a !== b) schema['dependentRequired'] = fromEntries([[a, [b]]]);
          if (depSchema !== undefined) schema['dependentSchemas'] = fromEntries([[b, depSchema]]);
        } else if (dialect === 'draft-07') {
          schema['dependencies'] = fromEntries(depSchema !== undefined ? [[a, depSchema]] : a !== b ? [[a, [b]]] : []);
        }
      }
      return schema;
    });
}

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

function withoutDefault(s: Schema): Schema {
  if (typeof s === 'boolean' || !('default' in s)) return s;
  const { default: _dropped, ...rest } = s;
  return rest;
}

function arraySchema(dialect: Place['dialect'], below: fc.Arbitrary<Schema>): fc.Arbitrary<SchemaObject> {
  const common = {
    minItems: maybe(fc.nat(3), 3),
    maxItems: maybe(fc.nat(5), 3),
    uniqueItems: maybe(fc.boolean(), 3),
    contains: maybe(below, 4),
  };
  if (dialect === '2020-12') {
    return fields({
      ...common,
      items: maybe(fc.oneof(below, fc.boolean()), 1),
      prefixItems: maybe(fc.array(below, { minLength: 1, maxLength: 3 }), 3),
      minContains: maybe(fc.nat(2), 5),
      maxContains: maybe(fc.nat(3), 5),
      unevaluatedItems: maybe(fc.oneof(fc.constant(false), below), 5),
    }).map((r) => ({ type: 'array', ...r }));
  }
  if (dialect === 'draft-07') {
    return fields({
      ...common,
      items: maybe(fc.oneof(below, fc.array(below, { minLength: 1, maxLength: 3 })), 1),
      additionalItems: maybe(fc.oneof(fc.boolean(), below), 3),
    }).map((r) => ({ type: 'array', ...r }));
  }
  return fields({ ...common, items: maybe(below, 1) }).map((r) => ({ type: 'array', ...r }));
}

function combinator(inPlace: fc.Arbitrary<Schema>): fc.Arbitrary<SchemaObject> {
  const list = fc.array(inPlace, { minLength: 1, maxLength: 3 });
  const typed = maybe(fc.constantFrom('object', 'string', 'integer', 'array'), 2);
  return fc.oneof(
    fc
      .tuple(fc.constantFrom('allOf', 'anyOf', 'oneOf'), list, typed)
      .map(([k, l, type]) => (type ? { type, [k]: l } : { [k]: l })),
    inPlace.map((not) => ({ not })),
    fc
      .tuple(inPlace, maybe(inPlace, 1), maybe(inPlace, 1))
      .map(([i, t, e]) =>
        fromEntries([
          ['if', i],
          ...(t === undefined ? [] : [['then', t] as const]),
          ...(e === undefined ? [] : [['else', e] as const]),
        ]),
      ),
  );
}

/** Names of shared $defs (the spec file's schema allows ^[A-Za-z_][A-Za-z0-9_.-]*$). */
const SHARED_NAMES = ['Hit', 'Node', 'item', 'a.b', 'x-y', '_p', 'Item2', 'ATool', 'AToolInput', 'Def'];
/** Names of a tool's own definitions: some shadow shared ones, some need JSON-pointer escaping in refs. */
const LOCAL_NAMES = ['L', 'Local.x', 'a/b', 'c~d', 'Hit', 'Def', 'node', 'Input'];

/** The root of a tool's schema: an object, with local definitions, composites and refs at the root too. */
function rootSchema(
  dialect: Dialect,
  shared: readonly string[],
  depth: number,
  withSchemaKeyword: boolean,
): fc.Arbitrary<SchemaObject> {
  const container: fc.Arbitrary<'$defs' | 'definitions'> =
    dialect === 'draft-07' ? fc.constantFrom('definitions', '$defs') : fc.constant('$defs');
  return fc
    .tuple(container, fc.uniqueArray(fc.constantFrom(...LOCAL_NAMES), { maxLength: 3 }))
    .chain(([box, localNames]) => {
      const sharedRefs = shared.filter((n) => !localNames.includes(n)).map((n) => defRef('$defs', n));
      const localRefs = localNames.map((n) => defRef(box, n));
      // Local definitions refer only to earlier local ones (and to themselves below data): no loop with a shared
      // definition that a local one shadows.
      const locals = fc.tuple(
        ...localNames.map((_name, i) =>
          schemaArbitrary({ dialect, refs: localRefs.slice(0, i), recursive: [localRefs[i]!] }, 1, false),
        ),
      );
      const place: Place = { dialect, refs: [...sharedRefs, ...localRefs], recursive: ['#'] };
      const rootRef = place.refs.length ? maybe(fc.constantFrom(...place.refs), 6) : fc.constant(undefined);
      return fc.tuple(
        objectSchema(dialect, schemaArbitrary(place, depth, true), schemaArbitrary(place, depth - 1, false)),
        locals,
        maybe(combinator(schemaArbitrary(place, depth - 1, false)), 4),
        rootRef,
        fc.constant(box),
        fc.constant(localNames),
      );
    })
    .map(([root, locals, extra, ref, box, localNames]) => {
      const schema: SchemaObject = {};
      if (dialect === 'draft-07') schema['$schema'] = DRAFT_07_URI;
      else if (withSchemaKeyword) schema['$schema'] = DRAFT_2020_URI;
      Object.assign(schema, root);
      if (extra) for (const [k, v] of Object.entries(extra)) if (!(k in schema)) schema[k] = v;
      if (ref !== undefined) schema['$ref'] = ref;
      if (localNames.length) schema[box] = fromEntries(localNames.map((n, i) => [n, locals[i]]));
      return schema;
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Tool names

const NAME_CHARS = [...'abcxyzABCXYZ0189._-'];
const SPECIAL_NAMES = [
  'x.d',
  '..a',
  'get-user.v2',
  '1abc',
  '__x',
  'constructor',
  '__proto__',
  'toString',
  'default',
  'class',
  'a'.repeat(70),
  'b'.repeat(128),
];
const toolName = fc
  .oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/) },
    { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_NAMES) },
  )
  .filter((n) => /^[A-Za-z0-9._-]{1,128}$/.test(n) && pascalCase(n) !== undefined);

// ---------------------------------------------------------------------------------------------------------------
// Specs

function toolArbitrary(
  sharedNames: readonly string[],
  shared: Record<string, Schema>,
  size: SpecSize,
): fc.Arbitrary<Omit<DrawnTool, 'name'>> {
  return fc
    .tuple(fc.constantFrom<Dialect>('2020-12', '2020-12', 'draft-07'), fc.boolean(), fc.nat(2))
    .chain(([dialect, explicit, outputPick]) =>
      fc.tuple(
        fc.constant(dialect),
        rootSchema(dialect, sharedNames, size.depth, explicit),
        outputPick === 0 ? rootSchema(dialect, sharedNames, size.depth, explicit) : fc.constant(undefined),
      ),
    )
    .chain(([dialect, inputSchema, outputSchema]) =>
      fc.record({
        dialect: fc.constant(dialect),
        inputSchema: fc.constant(inputSchema),
        inputValues: valuesFor(referenceSchema(inputSchema, shared), size.maxValues, true),
        ...(outputSchema ? { outputSchema: fc.constant(outputSchema) } : {}),
        outputValues: outputSchema
          ? valuesFor(referenceSchema(outputSchema, shared), Math.ceil(size.maxValues / 2), false)
          : fc.constant([]),
      }),
    );
}

/** A spec: shared $defs (each may refer to earlier ones, and to itself below data), then tools. */
export function specArbitrary(size: SpecSize = DEFAULT_SIZE): fc.Arbitrary<DrawnSpec> {
  return fc
    .tuple(
      fc.uniqueArray(fc.constantFrom(...SHARED_NAMES), { maxLength: 4 }),
      fc.constantFrom<'bundle' | 'inline'>('bundle', 'inline'),
    )
    .chain(([names, refs]) =>
      fc.tuple(
        fc.constant(refs),
        fc.constant(names),
        fc.tuple(
          ...names.map((n, i) =>
            schemaArbitrary(
              {
                dialect: 'common',
                refs: names.slice(0, i).map((m) => defRef('$defs', m)),
                recursive: [defRef('$defs', n)],
              },
              size.depth,
              false,
            ),
          ),
        ),
      ),
    )
    .chain(([refs, names, defs]) => {
      const shared = fromEntries(names.map((n, i) => [n, defs[i]])) as Record<string, Schema>;
      return fc.record({
        refs: fc.constant(refs),
        sharedDefs: fc.constant(shared),
        tools: fc
          .uniqueArray(fc.tuple(toolName, toolArbitrary(names, shared, size)), {
            minLength: 1,
            maxLength: size.maxTools,
            selector: ([n]) => pascalCase(n),
          })
          .map((list) => list.map(([name, t]) => ({ name, ...t }))),
      });
    });
}

/** The spec file for a drawn spec (JSON is YAML; the loader reads it as any spec). */
export function specFile(spec: DrawnSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    toolspec: 1,
    server: { name: 'property-test', version: '1.0.0' },
    options: { refs: spec.refs },
  };
  if (Object.keys(spec.sharedDefs).length) out['$defs'] = spec.sharedDefs;
  out['tools'] = spec.tools.map((t) => ({
    name: t.name,
    description: `Tool ${t.name} (${t.dialect}).`,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  }));
  return out;
}
