/**
 * The bound on how far a schema expands (TS042, src/pipeline/validate/schemas.ts): a schema with no $ref is not
 * walked again, its size is the count the checking walk makes of its nodes outside its own $defs. Held here to
 * expandedSize on drawn ref-free schemas, and at the bound itself, with $defs beside it and with a $ref.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../src/core/diagnostics.js';
import { SourceFile } from '../src/pipeline/load/source.js';
import { MAX_EXPANDED_NODES } from '../src/pipeline/load/limits.js';
import { expandedSize, prepareToolSchema } from '../src/pipeline/validate/schemas.js';

type Schema = Record<string, unknown>;

/** Ref-free schemas, with the number of their nodes outside the root's $defs counted as they are drawn. */
function node(depth: number): fc.Arbitrary<[unknown, number]> {
  const leaf = fc.oneof(
    fc.constant<[unknown, number]>([{ type: 'string' }, 1]),
    fc.boolean().map((b): [unknown, number] => [b, 0]),
  );
  if (!depth) return leaf;
  const child = node(depth - 1);
  return fc.oneof(
    leaf,
    fc
      .record({
        properties: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), child, { maxKeys: 3 })),
        items: fc.option(child),
        allOf: fc.option(fc.array(child, { maxLength: 2 })),
        not: fc.option(child),
      })
      .map(({ properties, items, allOf, not }): [unknown, number] => {
        const schema: Schema = { type: 'object' };
        let count = 1;
        const take = ([s, n]: [unknown, number]) => ((count += n), s);
        if (properties)
          schema['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, take(v)]));
        if (items) schema['items'] = take(items);
        if (allOf) schema['allOf'] = allOf.map(take);
        if (not) schema['not'] = take(not);
        return [schema, count];
      }),
  );
}

const refFree = fc
  .tuple(
    node(4).map(([s, n]): [Schema, number] => (typeof s === 'object' ? [s as Schema, n] : [{ not: s }, 1])),
    fc.option(fc.array(node(2), { maxLength: 3 })),
  )
  .map(([[schema, count], defs]): [Schema, number] => [
    defs ? { ...schema, $defs: Object.fromEntries(defs.map(([d], i) => [`D${i}`, d])) } : schema,
    count,
  ]);

/** TS042 for a tool whose input has `outside` nodes outside its $defs (and `inDefs` in them), with or without a $ref. */
function ts042(outside: number, inDefs: number, ref: boolean): boolean {
  const properties: Schema = {};
  for (let i = 0; i < outside - 1 - (ref ? 1 : 0); i++) properties[`p${i}`] = { type: 'string' };
  const $defs: Schema = {};
  for (let i = 0; i < inDefs; i++) $defs[`D${i}`] = { type: 'string' };
  // A $ref to a one-node definition adds that node to the expansion: the ref's own node and its target's.
  if (ref) properties['r'] = { $ref: '#/$defs/D0' };
  const schema = { type: 'object', properties, $defs };
  // The schema is handed in as data; the file is only where diagnostics point.
  const file = new SourceFile('t.yaml', '{}');
  const diags = new Diagnostics();
  const origin = { file, path: ['tools', 0, 'inputSchema'] };
  const prepared = prepareToolSchema(schema, origin, 'inputSchema', new Map(), diags);
  prepared?.finish({ meta: [] });
  return diags.sorted([]).some((d) => d.code === 'TS042');
}

describe('how far a schema expands', () => {
  it('is, without a $ref, the count of its nodes outside its own $defs', () => {
    fc.assert(
      fc.property(refFree, ([schema, count]) => {
        expect(expandedSize(schema, Number.MAX_SAFE_INTEGER)).toBe(count);
      }),
      { numRuns: 500 },
    );
  });

  it('is refused just past the bound, with $defs beside it, with or without a $ref', () => {
    expect(ts042(MAX_EXPANDED_NODES, 5, false)).toBe(false);
    expect(ts042(MAX_EXPANDED_NODES + 1, 5, false)).toBe(true);
    // With a $ref the expansion is followed: its target counts once more (the walk alone would count MAX_EXPANDED_NODES).
    expect(ts042(MAX_EXPANDED_NODES, 5, true)).toBe(true);
  }, 30_000);
});
