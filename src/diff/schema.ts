/**
 * Semantic comparison of two JSON Schemas (one tool's inputSchema or outputSchema, old and new). Walks both
 * schemas keyword family by keyword family after following `$ref`s and normalizing spellings, and reports each
 * difference as a rule (rules.ts) at a path relative to the schema. Whether a rule breaks clients depends on the
 * side: the caller classifies. What cannot be decided is reported as SCHEMA_CHANGED_UNKNOWN, never guessed.
 */
import type { RuleId, Segments } from './rules.js';
import { combinators, liftInto } from './schema-combinators.js';
import {
  allowed,
  change,
  counts,
  isIntegerOnly,
  num,
  numericBound,
  presence,
  show,
  showList,
  showTypes,
  subset,
  TEXT_ONLY,
  typeSet,
  type Comparer,
  type Ctx,
  type SchemaChange,
  type Types,
} from './schema-common.js';
import { canonical, isAnnotation, sameData, type SchemaNode, type SchemaView } from './schema-node.js';
import { arrays, objects } from './schema-structure.js';

export type { SchemaChange } from './schema-common.js';

const FAMILIES: Record<string, readonly string[]> = {
  number: ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern'],
  array: [
    'prefixItems',
    'items',
    'minItems',
    'maxItems',
    'uniqueItems',
    'contains',
    'minContains',
    'maxContains',
    'unevaluatedItems',
  ],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'unevaluatedProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
  ],
};

/** Compares `oldSchema` with `newSchema` (each read in its own view, for its own `$ref`s and dialect). */
export function compareSchemas(oldView: SchemaView, newView: SchemaView, side: 'input' | 'output'): SchemaChange[] {
  return new SchemaComparer(oldView, newView, side).pair(oldView.root, newView.root);
}

/** True when the two schemas accept the same values (descriptions and other annotations may differ). */
export function equivalentSchemas(oldView: SchemaView, newView: SchemaView, side: 'input' | 'output'): boolean {
  return compareSchemas(oldView, newView, side).every((c) => TEXT_ONLY.has(c.rule));
}

class SchemaComparer implements Comparer {
  readonly #done = new WeakMap<object, WeakMap<object, SchemaChange[]>>();
  readonly #active = new WeakMap<object, WeakSet<object>>();

  constructor(
    readonly oldView: SchemaView,
    readonly newView: SchemaView,
    readonly side: 'input' | 'output',
  ) {}

  /**
   * The changes between two subschemas. A pair already compared gives its changes again (each use of a shared
   * definition is reported where it is used); a pair being compared further up (a recursive `$ref`) gives none.
   */
  pair(o: unknown, n: unknown): SchemaChange[] {
    const on = this.oldView.node(o);
    const nn = this.newView.node(n);
    if (!on.id || !nn.id) return this.#nodes(on, nn);
    const done = this.#done.get(on.id)?.get(nn.id);
    if (done) return done;
    let active = this.#active.get(on.id);
    if (active?.has(nn.id)) return [];
    if (!active) this.#active.set(on.id, (active = new WeakSet()));
    active.add(nn.id);
    const result = this.#nodes(on, nn);
    active.delete(nn.id);
    let byNew = this.#done.get(on.id);
    if (!byNew) this.#done.set(on.id, (byNew = new WeakMap()));
    byNew.set(nn.id, result);
    return result;
  }

  #nodes(on: SchemaNode, nn: SchemaNode): SchemaChange[] {
    const out: SchemaChange[] = [];
    const add = (rule: RuleId, segments: Segments, detail: string, before?: unknown, after?: unknown) =>
      out.push({
        rule,
        segments,
        detail,
        ...(before !== undefined && { before }),
        ...(after !== undefined && { after }),
      });
    const child = (o: unknown, n: unknown, segments: Segments) => {
      for (const c of this.pair(o, n)) out.push({ ...c, segments: [...segments, ...c.segments] });
    };
    if (on.never || nn.never) {
      if (!(on.never && nn.never))
        add(
          nn.never ? 'SCHEMA_NARROWED' : 'SCHEMA_WIDENED',
          [],
          nn.never ? 'now false: accepts nothing' : 'was false: now accepts values',
        );
      return out;
    }
    const [ok, nk] = this.#lift(on, nn);
    const ctx: Ctx = { ok, nk, add, child, handled: new Set() };
    this.#annotations(ctx);
    const common = this.#types(ctx);
    this.#values(ctx);
    this.#format(ctx);
    const applies = (family: string) =>
      common === undefined || common.has(family) || (family === 'number' && common.has('integer'));
    for (const [family, keys] of Object.entries(FAMILIES)) {
      for (const k of keys) ctx.handled.add(k);
      if (!applies(family)) continue;
      if (family === 'number') this.#numbers(ctx);
      if (family === 'string') this.#strings(ctx);
      if (family === 'array') arrays(ctx);
      if (family === 'object') objects(this, ctx);
    }
    combinators(this, ctx);
    for (const k of new Set([...Object.keys(ok), ...Object.keys(nk)])) {
      if (ctx.handled.has(k) || sameData(ok[k], nk[k])) continue;
      add('SCHEMA_CHANGED_UNKNOWN', [k], `${k} ${change(ok[k], nk[k])}`, ok[k], nk[k]);
    }
    return out;
  }

  /**
   * `{ type: string }` → `{ anyOf: [{ type: string }, { type: null }] }`: when one side is only an anyOf (or oneOf)
   * and the other has none, the other is read as a one-branch anyOf (oneOf) of itself, so branches can be matched.
   */
  #lift(on: SchemaNode, nn: SchemaNode): [Record<string, unknown>, Record<string, unknown>] {
    let ok = on.keywords;
    let nk = nn.keywords;
    for (const kw of ['anyOf', 'oneOf'] as const) {
      const onlyThis = (k: Record<string, unknown>) =>
        Array.isArray(k[kw]) && Object.keys(k).every((key) => key === kw || isAnnotation(key));
      const hasNone = (k: Record<string, unknown>) => !('anyOf' in k) && !('oneOf' in k);
      const constrains = (k: Record<string, unknown>) => Object.keys(k).some((key) => !isAnnotation(key));
      if (onlyThis(nk) && hasNone(ok) && constrains(ok) && on.id) ok = liftInto(this.oldView, on.id, ok, kw);
      else if (onlyThis(ok) && hasNone(nk) && constrains(nk) && nn.id) nk = liftInto(this.newView, nn.id, nk, kw);
    }
    return [ok, nk];
  }

  #annotations({ ok, nk, add, handled }: Ctx): void {
    for (const k of new Set([...Object.keys(ok), ...Object.keys(nk)])) {
      if (!isAnnotation(k)) continue;
      handled.add(k);
      if (sameData(ok[k], nk[k])) continue;
      if (k === 'description' || k === 'title') {
        add(
          this.side === 'input' ? 'ARGUMENT_DESCRIPTION_CHANGED' : 'OUTPUT_DESCRIPTION_CHANGED',
          [k],
          presence(ok[k], nk[k]),
          ok[k],
          nk[k],
        );
      } else if (k === 'default') {
        add('DEFAULT_CHANGED', [k], change(ok[k], nk[k]), ok[k], nk[k]);
      } else {
        add('ANNOTATION_CHANGED', [k], change(ok[k], nk[k]), ok[k], nk[k]);
      }
    }
  }

  /** Compares `type`; returns the types both sides accept (undefined: any), which decide the keywords that matter. */
  #types({ ok, nk, add, handled }: Ctx): Types {
    handled.add('type');
    const o = typeSet(ok['type']);
    const n = typeSet(nk['type']);
    const oIn = subset(o, n);
    const nIn = subset(n, o);
    if (!(oIn && nIn)) {
      const rule: RuleId = nIn ? 'TYPE_NARROWED' : oIn ? 'TYPE_WIDENED' : 'TYPE_CHANGED';
      add(rule, ['type'], `${showTypes(o)} → ${showTypes(n)}`, ok['type'], nk['type']);
    }
    if (!o) return n;
    if (!n) return o;
    const both = new Set<string>();
    for (const t of o) {
      if (n.has(t)) both.add(t);
      else if (t === 'integer' && n.has('number')) both.add('integer');
      else if (t === 'number' && n.has('integer')) both.add('integer');
    }
    return both;
  }

  /** enum and const, as one set of allowed values. */
  #values({ ok, nk, add, handled }: Ctx): void {
    handled.add('enum').add('const');
    const o = allowed(ok);
    const n = allowed(nk);
    if (!o && !n) return;
    const kw = 'const' in nk ? 'const' : 'const' in ok && !('enum' in nk) ? 'const' : 'enum';
    if (!o) return void add('ENUM_ADDED', [kw], `added: ${showList(n!)}`, undefined, nk[kw]);
    if (!n) return void add('ENUM_REMOVED', [kw], `removed (was ${showList(o)}): any value`, ok[kw], undefined);
    const oKeys = new Set(o.map(canonical));
    const nKeys = new Set(n.map(canonical));
    const removed = o.filter((v) => !nKeys.has(canonical(v)));
    const added = n.filter((v) => !oKeys.has(canonical(v)));
    if ('const' in ok && 'const' in nk && removed.length && added.length) {
      return void add(
        'CONSTRAINT_CHANGED',
        ['const'],
        `${show(ok['const'])} → ${show(nk['const'])}`,
        ok['const'],
        nk['const'],
      );
    }
    if (removed.length) add('ENUM_VALUE_REMOVED', [kw], `removed ${showList(removed)}`, ok[kw] ?? ok['const'], nk[kw]);
    if (added.length) add('ENUM_VALUE_ADDED', [kw], `added ${showList(added)}`, ok[kw] ?? ok['const'], nk[kw]);
  }

  #format({ ok, nk, add, handled }: Ctx): void {
    handled.add('format');
    const o = ok['format'];
    const n = nk['format'];
    if (o === n) return;
    const rule: RuleId = o === undefined ? 'FORMAT_ADDED' : n === undefined ? 'FORMAT_REMOVED' : 'FORMAT_CHANGED';
    add(rule, ['format'], change(o, n), o, n);
  }

  #numbers({ ok, nk, add }: Ctx): void {
    const intOnly = isIntegerOnly(ok) && isIntegerOnly(nk);
    for (const dir of ['lower', 'upper'] as const) {
      const o = numericBound(ok, dir, intOnly);
      const n = numericBound(nk, dir, intOnly);
      if (!o && !n) continue;
      if (o && n && o.v === n.v && o.excl === n.excl) continue;
      const tighter = !o
        ? true
        : !n
          ? false
          : dir === 'lower'
            ? n.v > o.v || (n.v === o.v && n.excl)
            : n.v < o.v || (n.v === o.v && n.excl);
      const kw = (n ?? o)!.kw;
      const detail =
        !o || !n || o.kw === n.kw ? change(o?.raw, n?.raw) : `${o.kw} ${show(o.raw)} → ${n.kw} ${show(n.raw)}`;
      add(tighter ? 'BOUNDS_TIGHTENED' : 'BOUNDS_RELAXED', [kw], detail, o?.raw, n?.raw);
    }
    const o = num(ok['multipleOf']);
    const n = num(nk['multipleOf']);
    if (o === n || (o === undefined && n === undefined)) return;
    const divides = (a: number, b: number) => Math.abs(a / b - Math.round(a / b)) < 1e-9;
    const rule: RuleId =
      o === undefined
        ? 'BOUNDS_TIGHTENED'
        : n === undefined
          ? 'BOUNDS_RELAXED'
          : divides(n, o)
            ? 'BOUNDS_TIGHTENED'
            : divides(o, n)
              ? 'BOUNDS_RELAXED'
              : 'CONSTRAINT_CHANGED';
    add(rule, ['multipleOf'], change(o, n), o, n);
  }

  #strings(ctx: Ctx): void {
    counts(ctx, ['minLength'], ['maxLength']);
    const { ok, nk, add } = ctx;
    const o = ok['pattern'];
    const n = nk['pattern'];
    if (o === n) return;
    add(
      o === undefined ? 'PATTERN_ADDED' : n === undefined ? 'PATTERN_REMOVED' : 'PATTERN_CHANGED',
      ['pattern'],
      change(o, n),
      o,
      n,
    );
  }
}
