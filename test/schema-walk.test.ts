/**
 * The schema walks every stage runs (walkSchema, mapChildren in src/pipeline/schema): their fast forms visit and
 * build exactly what the plain forms, kept here as references, do, on generated schema-shaped values.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mapChildren } from '../src/pipeline/schema/keywords.js';
import { children, isObject, walkSchema, type SchemaPath } from '../src/pipeline/schema/keywords.js';

function plainWalk(
  schema: unknown,
  visit: (node: Record<string, unknown>, path: SchemaPath) => boolean | void,
  path: SchemaPath = [],
): void {
  if (!isObject(schema)) return;
  if (visit(schema, path) === false) return;
  for (const [key, value] of Object.entries(schema)) {
    for (const [child, sub] of children(key, value)) plainWalk(child, visit, [...path, ...sub]);
  }
}

const plainDefine = (o: Record<string, unknown>, k: string, value: unknown) =>
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });

function plainMapChildren(node: Record<string, unknown>, fn: (child: unknown, path: SchemaPath) => unknown) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    const subs = children(k, v);
    if (!subs.length) plainDefine(out, k, v);
    else if (Array.isArray(v))
      plainDefine(
        out,
        k,
        v.map((c, i) => fn(c, [k, i])),
      );
    else if (subs.length === 1 && subs[0]![1].length === 1) plainDefine(out, k, fn(v, [k]));
    else {
      const m: Record<string, unknown> = {};
      for (const [name, c] of Object.entries(v as Record<string, unknown>)) {
        plainDefine(m, name, subs.some(([, p]) => p[1] === name) ? fn(c, [k, name]) : c);
      }
      plainDefine(out, k, m);
    }
  }
  return out;
}

const KEYS = [
  ...['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies', 'items'],
  ...['prefixItems', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'additionalProperties', 'contains'],
  ...['type', 'const', 'enum', 'default', '__proto__', 'toString', 'constructor', '0', '10', 'a', 'b'],
];

/** Objects made of keywords and odd names, nested, as JSON.parse makes them (`__proto__` an own key). */
const schemaLike = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.boolean(),
      fc.integer(),
      fc.string({ maxLength: 3 }),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      tie('object'),
    ),
    object: fc.array(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 5 }).map((entries) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of entries) plainDefine(o, k, v);
      return o;
    }),
  }))
  .object.map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);

describe('the schema walks', () => {
  it('walkSchema visits the same nodes with the same paths, in the same order', () => {
    fc.assert(
      fc.property(schemaLike, fc.integer({ min: 0, max: 7 }), (schema, skip) => {
        const seen = (walk: typeof walkSchema) => {
          const out: [unknown, SchemaPath][] = [];
          walk(schema, (node, path) => {
            out.push([node, path]);
            return out.length % 8 !== skip; // some subtrees skipped
          });
          return out;
        };
        const fast = seen(walkSchema);
        const plain = seen(plainWalk);
        expect(fast.length).toBe(plain.length);
        fast.forEach(([node, path], i) => {
          expect(node).toBe(plain[i]![0]);
          expect(path).toEqual(plain[i]![1]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('mapChildren builds the same objects (keys, order, own __proto__) and calls fn alike', () => {
    fc.assert(
      fc.property(schemaLike, (schema) => {
        const run = (map: typeof mapChildren) => {
          const calls: SchemaPath[] = [];
          const out = map(schema, (child, path) => {
            calls.push(path);
            return { child, at: path.join('/') };
          });
          return { out, calls };
        };
        const fast = run(mapChildren);
        const plain = run(plainMapChildren);
        expect(fast.calls).toEqual(plain.calls);
        expect(isDeepStrictEqual(fast.out, plain.out)).toBe(true);
        expect(JSON.stringify(fast.out)).toBe(JSON.stringify(plain.out));
        expect(Object.getPrototypeOf(fast.out)).toBe(Object.prototype);
      }),
      { numRuns: 3000 },
    );
  });
});
