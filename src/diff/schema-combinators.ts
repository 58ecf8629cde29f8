/**
 * allOf, anyOf, oneOf (branches matched by meaning, whatever their order), and not / if / then / else, which
 * toolspec does not try to classify.
 */
import {
  allowed,
  change,
  hasType,
  meets,
  TEXT_ONLY,
  typeSet,
  type Comparer,
  type Ctx,
  type SchemaChange,
} from './schema-common.js';
import { jsonType } from '../pipeline/schema/keywords.js';
import { isAnnotation, isObject, sameData, type SchemaNode, type SchemaView } from './schema-node.js';

export function combinators(cmp: Comparer, ctx: Ctx): void {
  members(cmp, ctx, 'allOf');
  members(cmp, ctx, 'anyOf');
  oneOf(cmp, ctx);
  const { ok, nk, keyword } = ctx;
  for (const kw of ['not', 'if', 'then', 'else']) {
    if (!(kw in ok) && !(kw in nk)) continue;
    const same = kw in ok && kw in nk && cmp.pair(ok[kw], nk[kw]).every((c) => TEXT_ONLY.has(c.rule));
    if (!same) keyword('SCHEMA_CHANGED_UNKNOWN', kw, `${kw} ${change(ok[kw], nk[kw])}`);
  }
}

/**
 * allOf members or anyOf (oneOf) branches, matched by meaning: a member added narrows, a branch added widens. An
 * anyOf that appears or goes as a whole is one change; an allOf, one per member.
 */
function members(cmp: Comparer, { ok, nk, add, keyword, child }: Ctx, kw: 'allOf' | 'anyOf' | 'oneOf'): void {
  const branches = kw !== 'allOf';
  const o = Array.isArray(ok[kw]) ? ok[kw] : undefined;
  const n = Array.isArray(nk[kw]) ? nk[kw] : undefined;
  if (branches && !o !== !n)
    return keyword(n ? 'SCHEMA_NARROWED' : 'SCHEMA_WIDENED', kw, `${kw} ${n ? 'added' : 'removed'}`);
  const what = branches ? `${kw} branch` : 'allOf member';
  const m = match(cmp, o ?? [], n ?? []);
  for (const [i, j] of m.pairs) child(o?.[i], n?.[j], [kw, j]);
  for (const j of m.newOnly)
    add(branches ? 'SCHEMA_WIDENED' : 'SCHEMA_NARROWED', [kw, j], `${what} added`, undefined, n?.[j]);
  for (const i of m.oldOnly) add(branches ? 'SCHEMA_NARROWED' : 'SCHEMA_WIDENED', [kw, i], `${what} removed`, o?.[i]);
}

/**
 * oneOf is anyOf when its branches cannot overlap (different types, consts or discriminator values); when
 * they can, adding, removing or changing a branch may accept or reject any value, and toolspec says so.
 */
function oneOf(cmp: Comparer, ctx: Ctx): void {
  const { ok, nk, add } = ctx;
  if (!Array.isArray(ok['oneOf']) || !Array.isArray(nk['oneOf'])) return members(cmp, ctx, 'oneOf');
  if (disjoint(cmp.oldView, ok['oneOf']) && disjoint(cmp.newView, nk['oneOf'])) return members(cmp, ctx, 'oneOf');
  const local: SchemaChange[] = [];
  members(
    cmp,
    {
      ...ctx,
      add: (rule, segments, detail, before, after) => local.push({ rule, segments, detail, before, after }),
      child: (o, n, s) => local.push(...cmp.pair(o, n).map((c) => ({ ...c, segments: [...s, ...c.segments] }))),
    },
    'oneOf',
  );
  const semantic = local.filter((c) => !TEXT_ONLY.has(c.rule));
  for (const c of local) if (TEXT_ONLY.has(c.rule)) add(c.rule, c.segments, c.detail, c.before, c.after);
  if (semantic.length) {
    add(
      'SCHEMA_CHANGED_UNKNOWN',
      ['oneOf'],
      `oneOf changed (${semantic.map((c) => c.detail).join('; ')}) and its branches may overlap, so a value may now match none or two of them`,
      ok['oneOf'],
      nk['oneOf'],
    );
  }
}

/**
 * Pairs up the subschemas of two lists: equivalent ones first (order does not matter), then the rest in their
 * order, as changed versions of each other (sound for anyOf and allOf, whose meaning grows or shrinks with each
 * member's). What is left on one side was added or removed.
 */
function match(cmp: Comparer, o: readonly unknown[], n: readonly unknown[]) {
  const pairs: [number, number][] = [];
  const used = new Set<number>();
  const left: number[] = [];
  o.forEach((a, i) => {
    const j = n.findIndex((b, j) => !used.has(j) && cmp.pair(a, b).every((c) => TEXT_ONLY.has(c.rule)));
    if (j === -1) left.push(i);
    else {
      used.add(j);
      pairs.push([i, j]);
    }
  });
  const right = n.map((_, j) => j).filter((j) => !used.has(j));
  const k = Math.min(left.length, right.length);
  for (let x = 0; x < k; x++) pairs.push([left[x]!, right[x]!]);
  return { pairs, oldOnly: left.slice(k), newOnly: right.slice(k) };
}

function disjoint(view: SchemaView, branches: readonly unknown[]): boolean {
  const nodes = branches.map((b) => view.node(b));
  return nodes.every((a, i) => nodes.slice(i + 1).every((b) => disjointNodes(view, a, b, 1)));
}

/** `k` as a one-branch anyOf (oneOf) of its assertions, keeping its annotations; the branch keeps one identity. */
export function liftInto(view: SchemaView, id: object, k: Record<string, unknown>, kw: string) {
  const annotations = Object.fromEntries(Object.entries(k).filter(([key]) => isAnnotation(key)));
  const rest = Object.fromEntries(Object.entries(k).filter(([key]) => !isAnnotation(key)));
  const branch = view.made(id, `lift-${kw}`, () => rest);
  return { ...annotations, [kw]: [branch] };
}

/** Two schemas no value can satisfy both of: by type, by allowed values, or by a required discriminator property. */
function disjointNodes(view: SchemaView, a: SchemaNode, b: SchemaNode, depth: number): boolean {
  if (a.never || b.never) return true;
  const ta = typeSet(a.keywords['type']);
  const tb = typeSet(b.keywords['type']);
  if (ta && tb && ![...ta].some((t) => meets(t, tb))) return true;
  const va = allowed(a.keywords);
  const vb = allowed(b.keywords);
  if (va && vb && !va.some((x) => vb.some((y) => sameData(x, y)))) return true;
  if (va && tb && !va.some((x) => hasType(tb, jsonType(x)))) return true;
  if (vb && ta && !vb.some((x) => hasType(ta, jsonType(x)))) return true;
  if (depth === 0) return false;
  const pa = isObject(a.keywords['properties']) ? a.keywords['properties'] : {};
  const pb = isObject(b.keywords['properties']) ? b.keywords['properties'] : {};
  const ra = Array.isArray(a.keywords['required']) ? (a.keywords['required'] as string[]) : [];
  const rb = Array.isArray(b.keywords['required']) ? (b.keywords['required'] as string[]) : [];
  return ra.some(
    (p) =>
      rb.includes(p) &&
      Object.hasOwn(pa, p) &&
      Object.hasOwn(pb, p) &&
      disjointNodes(view, view.node(pa[p]), view.node(pb[p]), depth - 1),
  );
}
