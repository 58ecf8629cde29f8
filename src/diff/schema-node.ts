/**
 * One schema node as `toolspec diff` compares it: `$ref`s followed (siblings merged in), booleans made explicit,
 * and draft-07 spellings turned into their 2020-12 equivalents, so that two schemas that mean the same compare
 * equal whatever their key order, `type: x` or `type: [x]`, `items: [...]` or `prefixItems`, `definitions` or `$defs`.
 */
import { isObject, resolvePointer, type Dialect } from '../pipeline/schema/keywords.js';

export { isObject };

export interface SchemaNode {
  /** The object this node was read from after following `$ref`s: identity for memoizing recursive comparisons. */
  id: object | undefined;
  /** The `false` schema (or one that is `not: {}`): accepts nothing. */
  never: boolean;
  /** The keywords, in 2020-12 spelling, without identifiers and definitions. */
  keywords: Record<string, unknown>;
}

/** Keywords that only name or hold definitions: they mean nothing when compared on their own. */
const STRUCTURAL = new Set('$schema $id $anchor $dynamicAnchor $comment $defs definitions $vocabulary'.split(' '));

const ANNOTATIONS = new Set([
  ...'title description default examples deprecated readOnly writeOnly'.split(' '),
  ...'contentEncoding contentMediaType contentSchema'.split(' '),
]);

/** Keywords that describe without constraining. */
export const isAnnotation = (key: string): boolean => key.startsWith('x-') || ANNOTATIONS.has(key);

const MAX_REF_CHAIN = 64;
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);

/** Reads the nodes of one schema (one tool's inputSchema or outputSchema, with its bundled `$defs`). */
export class SchemaView {
  readonly #cache = new WeakMap<object, SchemaNode>();
  /** Synthetic objects made for one raw object (a `$ref` with siblings, a lifted branch), kept for stable identity. */
  readonly #made = new WeakMap<object, Map<string, Record<string, unknown>>>();

  constructor(
    readonly root: unknown,
    readonly dialect: Dialect,
  ) {}

  node(raw: unknown): SchemaNode {
    if (!isObject(raw)) return { id: undefined, never: raw === false, keywords: {} };
    const cached = this.#cache.get(raw);
    if (cached) return cached;
    const node = this.#read(raw, 0);
    this.#cache.set(raw, node);
    return node;
  }

  /** The same synthetic object every time for (`owner`, `tag`), so memoized comparisons terminate. */
  made(owner: object, tag: string, build: () => Record<string, unknown>): Record<string, unknown> {
    let byTag = this.#made.get(owner);
    if (!byTag) this.#made.set(owner, (byTag = new Map()));
    let obj = byTag.get(tag);
    if (!obj) byTag.set(tag, (obj = build()));
    return obj;
  }

  #read(raw: Record<string, unknown>, depth: number): SchemaNode {
    const ref = raw['$ref'];
    if (typeof ref === 'string' && depth < MAX_REF_CHAIN) {
      const target = resolvePointer(this.root, ref);
      if (target !== undefined) return this.#withSiblings(raw, target, depth);
    }
    const keywords = normalize(raw, this.dialect);
    const never = isObject(keywords['not']) && Object.keys(keywords['not']).length === 0;
    return { id: raw, never, keywords: never ? {} : keywords };
  }

  /** `{ $ref, ...siblings }`: the target, with sibling annotations overriding and sibling assertions added. */
  #withSiblings(raw: Record<string, unknown>, target: unknown, depth: number): SchemaNode {
    const siblings = Object.keys(raw).filter((k) => k !== '$ref' && !STRUCTURAL.has(k));
    const base = isObject(target) ? this.#read(target, depth + 1) : this.node(target);
    if (!siblings.length) return base;
    const own = normalize(Object.fromEntries(siblings.map((k) => [k, raw[k]])), this.dialect);
    const merged = new Set<string>();
    for (const k of Object.keys(own)) {
      // Two bounds of one kind: the stricter holds. Two required lists: both hold.
      const a = base.keywords[k];
      const b = own[k];
      const bothNumbers = typeof a === 'number' && typeof b === 'number';
      if (bothNumbers && LOWER.has(k)) own[k] = Math.max(a, b);
      else if (bothNumbers && UPPER.has(k)) own[k] = Math.min(a, b);
      else if (k === 'required' && Array.isArray(a) && Array.isArray(b))
        own[k] = [...new Set([...(a as string[]), ...(b as string[])])].sort();
      else continue;
      merged.add(k);
    }
    const clash = Object.keys(own).some(
      (k) =>
        !isAnnotation(k) && !merged.has(k) && k in base.keywords && canonical(base.keywords[k]) !== canonical(own[k]),
    );
    if (base.never || clash) {
      // Both must hold: keep them apart, as allOf, rather than guess how they combine.
      const annotations = Object.fromEntries(Object.entries(own).filter(([k]) => isAnnotation(k)));
      const assertions = Object.fromEntries(Object.entries(own).filter(([k]) => !isAnnotation(k)));
      const combined = this.made(raw, 'allOf', () => ({ ...annotations, allOf: [{ $ref: raw['$ref'] }, assertions] }));
      return { id: raw, never: false, keywords: normalize(combined, this.dialect) };
    }
    return { id: raw, never: false, keywords: { ...base.keywords, ...own } };
  }
}

/** One node's own keywords in 2020-12 spelling. Subschemas are left as they are (read when visited). */
function normalize(raw: Record<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const out = Object.fromEntries(Object.entries(raw).filter(([k]) => !STRUCTURAL.has(k)));
  if (typeof out['type'] === 'string') out['type'] = [out['type']];
  if (Array.isArray(out['type'])) out['type'] = [...new Set(out['type'] as string[])].sort();
  if (Array.isArray(out['required'])) out['required'] = [...new Set(out['required'] as string[])].sort();
  if (dialect === 'draft-07') {
    if (Array.isArray(out['items'])) {
      out['prefixItems'] = out['items'];
      if ('additionalItems' in out) out['items'] = out['additionalItems'];
      else delete out['items'];
    }
    delete out['additionalItems'];
    const deps = out['dependencies'];
    if (isObject(deps)) {
      const req = Object.entries(deps).filter(([, v]) => Array.isArray(v));
      const schemas = Object.entries(deps).filter(([, v]) => !Array.isArray(v));
      if (req.length) out['dependentRequired'] = Object.fromEntries(req);
      if (schemas.length) out['dependentSchemas'] = Object.fromEntries(schemas);
      delete out['dependencies'];
    }
  }
  return out;
}

/** JSON with sorted keys: equal for equal data whatever the key order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

export const sameData = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
