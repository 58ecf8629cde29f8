/**
 * The shapes a tool schema takes on its way out: as clients see it (bundled or inlined refs) and as
 * json-schema-to-typescript should read it.
 */
import { isDeepStrictEqual } from 'node:util';
import { ANNOTATION_KEYWORDS, mapChildren, isObject, pointerToken, resolvePointer, walkSchema } from './keywords.js';

type Schema = Record<string, unknown>;

/**
 * `refs: inline`: every `$ref` to a non-recursive target is replaced by the target; recursive ones stay, with the
 * `$defs` they need. The result validates exactly the same data (test/fuzz/schema-property.test.ts).
 *
 * The keywords beside a `$ref` are merged into the target, so a client sees one plain schema with its `type`, and
 * the referrer's `description` and `default` win over the target's. Only where a merge could change what is
 * valid (the same keyword on both sides, or keywords that read each other, like `additionalProperties` and
 * `properties`) does the node become `allOf: [target]` beside its own keywords.
 */
export function inlineRefs(schema: Schema): Schema {
  const root = structuredClone(schema);
  const recursive = recursiveRefs(root);
  const inline = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n, depth));
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/') && !recursive.has(ref) && depth < 64) {
      const target = inline(structuredClone(resolvePointer(root, ref)), depth + 1);
      const rest = mapChildren(Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$ref')), (c) =>
        inline(c, depth),
      );
      if (mergeable(rest, target)) return { ...target, ...rest };
      return { ...rest, allOf: [...((rest['allOf'] as unknown[]) ?? []), target] };
    }
    return mapChildren(node, (c) => inline(c, depth));
  };
  const out = inline(root, 0) as Schema;
  // Keep only the $defs that recursive refs still point at.
  const keep = new Set([...recursive].map((r) => pointerToken(r.split('/')[2] ?? '')));
  for (const k of ['$defs', 'definitions'] as const) {
    const defs = out[k];
    if (!isObject(defs)) continue;
    const kept = Object.fromEntries(Object.entries(defs).filter(([n]) => keep.has(n)));
    if (Object.keys(kept).length) out[k] = kept;
    else delete out[k];
  }
  return out;
}

/** Keywords whose meaning depends on other keywords of the same schema object (or on `$ref`). */
const INTERACTING = new Set([
  ...['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties'],
  ...['items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'minContains', 'maxContains'],
  ...['if', 'then', 'else', '$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$ref'],
]);

/** Keywords that assert nothing about the instance: the referrer's win in a merge. */
const NEUTRAL = new Set([...ANNOTATION_KEYWORDS, 'default', '$schema', '$defs', 'definitions']);

/**
 * Whether `{ ...target, ...rest }` validates what `rest` and `target` validate together: the referrer adds only
 * keywords the target lacks (or has with the same value), none of which reads its neighbours.
 */
function mergeable(rest: Schema, target: unknown): target is Schema {
  if (!isObject(target)) return false;
  const added = Object.keys(rest).filter((k) => !NEUTRAL.has(k) && !isDeepStrictEqual(rest[k], target[k]));
  if (!added.length) return true;
  const blocking = ['unevaluatedProperties', 'unevaluatedItems', '$ref'];
  return !added.some((k) => k in target || INTERACTING.has(k)) && !blocking.some((k) => k in target);
}

/** Refs whose target reaches itself again: these cannot be inlined. */
function recursiveRefs(root: Schema): Set<string> {
  const result = new Set<string>();
  const refsUnder = (node: unknown): string[] => {
    const found: string[] = [];
    walkSchema(node, (n) => {
      if (typeof n['$ref'] === 'string') found.push(n['$ref']);
    });
    return found;
  };
  walkSchema(root, (node) => {
    const ref = node['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith('#')) return;
    const seen = new Set<string>();
    const queue = [ref];
    while (queue.length) {
      const r = queue.pop()!;
      if (seen.has(r)) continue;
      seen.add(r);
      for (const next of refsUnder(resolvePointer(root, r))) {
        if (next === ref) result.add(ref);
        else queue.push(next);
      }
    }
  });
  return result;
}
