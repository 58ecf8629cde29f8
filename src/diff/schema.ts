/**
 * Semantic comparison of two JSON Schemas (one tool's inputSchema or outputSchema, old and new). Walks both
 * schemas keyword family by keyword family after following `$ref`s and normalizing spellings, and reports each
 * difference as a rule (rules.ts) at a path relative to the schema. Whether a rule breaks clients depends on the
 * side: the caller classifies. What cannot be decided is reported as SCHEMA_CHANGED_UNKNOWN, never guessed.
 */
import { sides, type RuleId, type Segments } from './rules.js';
import { combinators, liftInto } from './schema-combinators.js';
import {
  allowed,
  change,
  counts,
  hasType,
  num,
  meets,
  presence,
  show,
  TEXT_ONLY,
  typeSet,
  type Comparer,
  type Ctx,
  type SchemaChange,
  type Types,
} from './schema-common.js';
import { canonical, isAnnotation, sameData, type SchemaNode, type SchemaView } from './schema-node.js';
import { arrays, objects } from './schema-structure.js';

/**
 * The keywords compared below besides the annotations: any other that differs is SCHEMA_CHANGED_UNKNOWN. Those that
 * apply to values of one type (numbers, strings, arrays, objects) are compared only where both sides allow the type.
 */
const COMPARED = new Set(
  [
    'type enum const format allOf anyOf oneOf not if then else',
    'minimum exclusiveMinimum maximum exclusiveMaximum multipleOf',
    'minLength maxLength pattern',
    'prefixItems items minItems maxItems uniqueItems contains minContains maxContains unevaluatedItems',
    'properties required additionalProperties unevaluatedProperties patternProperties propertyNames minProperties maxProperties',
  ].flatMap((keys) => keys.split(' ')),
);

/** Compares `oldSchema` with `newSchema` (each read in its own view, for its own `$ref`s and dialect). */
export function compareSchemas(oldView: SchemaView, newView: SchemaView, side: 'input' | 'output'): SchemaChange[] {
  return new SchemaComparer(oldView, newView, side).pair(oldView.root, newView.root);
}

/** True when the two schemas accept the same values (descriptions and other annotations may differ). */
export function equivalentSchemas(oldView: SchemaView, newView: SchemaView, side: 'input' | 'output'): boolean {
  return compareSchemas(oldView, newView, side).every((c) => TEXT_ONLY.has(c.rule));
}

class SchemaComparer implements Comparer {
  /** By old and new node: the changes, or none yet while the pair is being compared. */
  readonly #seen = new WeakMap<object, WeakMap<object, SchemaChange[]>>();

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
    let byNew = this.#seen.get(on.id);
    if (!byNew) this.#seen.set(on.id, (byNew = new WeakMap()));
    const seen = byNew.get(nn.id);
    if (seen) return seen;
    byNew.set(nn.id, []);
    const result = this.#nodes(on, nn);
    byNew.set(nn.id, result);
    return result;
  }

  #nodes(on: SchemaNode, nn: SchemaNode): SchemaChange[] {
    const out: SchemaChange[] = [];
    const add = (rule: RuleId, segments: Segments, detail: string, before?: unknown, after?: unknown) =>
      out.push({ rule, segments, detail, ...sides(before, after) });
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
    const keyword = (rule: RuleId, kw: string, detail: string) => add(rule, [kw], detail, ok[kw], nk[kw]);
    const ctx: Ctx = { ok, nk, add, keyword, child };
    this.#annotations(ctx);
    const common = this.#types(ctx);
    this.#values(ctx);
    written(ctx, 'format');
    const applies = (family: string) =>
      common === undefined || common.has(family) || (family === 'number' && common.has('integer'));
    if (applies('number')) this.#numbers(ctx);
    if (applies('string')) {
      counts(ctx, ['minLength'], ['maxLength']);
      written(ctx, 'pattern');
    }
    if (applies('array')) arrays(ctx);
    if (applies('object')) objects(this, ctx);
    combinators(this, ctx);
    for (const k of new Set([...Object.keys(ok), ...Object.keys(nk)])) {
      if (!COMPARED.has(k) && !isAnnotation(k) && !sameData(ok[k], nk[k]))
        keyword('SCHEMA_CHANGED_UNKNOWN', k, `${k} ${change(ok[k], nk[k])}`);
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

  #annotations({ ok, nk, keyword }: Ctx): void {
    for (const k of new Set([...Object.keys(ok), ...Object.keys(nk)])) {
      if (!isAnnotation(k) || sameData(ok[k], nk[k])) continue;
      if (k === 'description' || k === 'title') {
        const rule = this.side === 'input' ? 'ARGUMENT_DESCRIPTION_CHANGED' : 'OUTPUT_DESCRIPTION_CHANGED';
        keyword(rule, k, presence(ok[k], nk[k]));
      } else keyword(k === 'default' ? 'DEFAULT_CHANGED' : 'ANNOTATION_CHANGED', k, change(ok[k], nk[k]));
    }
  }

  /** Compares `type`; returns the types both sides accept (undefined: any), which decide the keywords that matter. */
  #types({ ok, nk, keyword }: Ctx): Types {
    const o = typeSet(ok['type']);
    const n = typeSet(nk['type']);
    const oIn = subset(o, n);
    const nIn = subset(n, o);
    if (!(oIn && nIn)) {
      const rule: RuleId = nIn ? 'TYPE_NARROWED' : oIn ? 'TYPE_WIDENED' : 'TYPE_CHANGED';
      keyword(rule, 'type', `${showTypes(o)} → ${showTypes(n)}`);
    }
    if (!o) return n;
    if (!n) return o;
    return new Set([...o].filter((t) => meets(t, n)).map((t) => (n.has(t) ? t : 'integer')));
  }

  /** enum and const, as one set of allowed values. */
  #values({ ok, nk, add, keyword }: Ctx): void {
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
    if ('const' in ok && 'const' in nk && removed.length && added.length)
      return keyword('CONSTRAINT_CHANGED', 'const', change(ok['const'], nk['const']));
    if (removed.length) add('ENUM_VALUE_REMOVED', [kw], `removed ${showList(removed)}`, ok[kw] ?? ok['const'], nk[kw]);
    if (added.length) add('ENUM_VALUE_ADDED', [kw], `added ${showList(added)}`, ok[kw] ?? ok['const'], nk[kw]);
  }

  #numbers({ ok, nk, add }: Ctx): void {
    const intOnly = isIntegerOnly(ok) && isIntegerOnly(nk);
    for (const dir of ['lower', 'upper'] as const) {
      const o = numericBound(ok, dir, intOnly);
      const n = numericBound(nk, dir, intOnly);
      if (!o && !n) continue;
      if (o && n && o.v === n.v && o.excl === n.excl) continue;
      const narrower = !o || (n !== undefined && tighter(n, o, dir));
      const kw = (n ?? o)!.kw;
      const detail =
        !o || !n || o.kw === n.kw ? change(o?.raw, n?.raw) : `${o.kw} ${show(o.raw)} → ${n.kw} ${show(n.raw)}`;
      add(narrower ? 'BOUNDS_TIGHTENED' : 'BOUNDS_RELAXED', [kw], detail, o?.raw, n?.raw);
    }
    const o = num(ok['multipleOf']);
    const n = num(nk['multipleOf']);
    if (o === n) return;
    const divides = (a: number, b: number) => Math.abs(a / b - Math.round(a / b)) < 1e-9;
    const rule: RuleId =
      o === undefined || (n !== undefined && divides(n, o))
        ? 'BOUNDS_TIGHTENED'
        : n === undefined || divides(o, n)
          ? 'BOUNDS_RELAXED'
          : 'CONSTRAINT_CHANGED';
    add(rule, ['multipleOf'], change(o, n), o, n);
  }
}

/** format and pattern: one added narrows, one removed widens, one changed cannot be told. */
function written(ctx: Ctx, kw: 'format' | 'pattern'): void {
  const o = ctx.ok[kw];
  const n = ctx.nk[kw];
  const rule = kw.toUpperCase() as Uppercase<typeof kw>;
  if (o !== n)
    ctx.keyword(`${rule}_${o === undefined ? 'ADDED' : n === undefined ? 'REMOVED' : 'CHANGED'}`, kw, change(o, n));
}

function subset(a: Types, b: Types): boolean {
  if (!b) return true;
  if (!a) return false;
  return [...a].every((t) => hasType(b, t));
}

function isIntegerOnly(k: Record<string, unknown>): boolean {
  const t = k['type'];
  return Array.isArray(t) && t.length === 1 && t[0] === 'integer';
}

interface Bound {
  v: number;
  excl: boolean;
  kw: string;
  raw: number;
}

/** The effective lower (minimum / exclusiveMinimum) or upper bound; for integers, exclusive bounds become inclusive. */
function numericBound(k: Record<string, unknown>, dir: 'lower' | 'upper', intOnly: boolean): Bound | undefined {
  const lower = dir === 'lower';
  let best: Bound | undefined;
  (lower ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum']).forEach((kw, i) => {
    const raw = num(k[kw]);
    const excl = i === 1;
    if (raw === undefined) return;
    const int = lower ? (excl ? Math.floor(raw) + 1 : Math.ceil(raw)) : excl ? Math.ceil(raw) - 1 : Math.floor(raw);
    const b = intOnly ? { v: int, excl: false, kw, raw } : { v: raw, excl, kw, raw };
    if (!best || tighter(b, best, dir)) best = b;
  });
  return best;
}

/** Whether bound `a` leaves fewer values than `b` in its direction (at the same value, an exclusive one does). */
function tighter(a: Bound, b: Bound, dir: 'lower' | 'upper'): boolean {
  return (dir === 'lower' ? a.v > b.v : a.v < b.v) || (a.v === b.v && a.excl);
}

function showList(values: readonly unknown[]): string {
  return values.map(show).join(', ');
}

function showTypes(t: Types): string {
  if (!t) return 'any type';
  const list = [...t].sort();
  return list.length === 1 ? list[0]! : `[${list.join(', ')}]`;
}
