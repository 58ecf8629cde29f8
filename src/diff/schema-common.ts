/**
 * What the parts of the schema comparison share: the change record, the per-node context, the comparer's
 * interface, and small readers of keyword values (types, allowed values, counts) and of how to show them.
 */
import type { Change, RuleId, Segments } from './rules.js';
import { sameData, type SchemaView } from './schema-node.js';

/** A difference at a path relative to the compared schemas. */
export type SchemaChange = Pick<Change, 'rule' | 'segments' | 'detail' | 'before' | 'after'>;

/** What the keyword families need of the comparer: both views, the side, and the comparison of two subschemas. */
export interface Comparer {
  readonly oldView: SchemaView;
  readonly newView: SchemaView;
  readonly side: 'input' | 'output';
  pair(o: unknown, n: unknown): SchemaChange[];
}

/** One node pair being compared: both keyword sets, how to report, and how to descend. */
export interface Ctx {
  ok: Record<string, unknown>;
  nk: Record<string, unknown>;
  add: (rule: RuleId, segments: Segments, detail: string, before?: unknown, after?: unknown) => void;
  /** A change of the keyword `kw` itself, its values on both sides kept. */
  keyword: (rule: RuleId, kw: string, detail: string) => void;
  child: (o: unknown, n: unknown, segments: Segments) => void;
}

/** Rules that say nothing about which values are accepted. */
export const TEXT_ONLY = new Set<RuleId>([
  'ARGUMENT_DESCRIPTION_CHANGED',
  'OUTPUT_DESCRIPTION_CHANGED',
  'ANNOTATION_CHANGED',
  'DEFAULT_CHANGED',
]);

/** A set of JSON types; undefined: any type. */
export type Types = ReadonlySet<string> | undefined;

const ALL_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'];

/** minLength/maxLength, minItems/maxItems, …: a higher minimum or a lower maximum accepts less. */
export function counts({ ok, nk, add }: Ctx, lower: readonly string[], upper: readonly string[]): void {
  for (const kw of [...lower, ...upper]) {
    const o = num(ok[kw]);
    const n = num(nk[kw]);
    if (o === n) continue;
    const isLower = lower.includes(kw);
    const tighter = o === undefined ? true : n === undefined ? false : isLower ? n > o : n < o;
    add(tighter ? 'BOUNDS_TIGHTENED' : 'BOUNDS_RELAXED', [kw], change(o, n), o, n);
  }
}

/** The set of types (number covering integer); undefined when any type is accepted. */
export function typeSet(t: unknown): Types {
  if (!Array.isArray(t)) return undefined;
  const s = new Set(t as string[]);
  if (s.has('number')) s.delete('integer');
  if (ALL_TYPES.every((x) => s.has(x))) return undefined;
  return s;
}

/** Whether a value of type `t` is one of `types` (an integer is a number). */
export const hasType = (types: ReadonlySet<string>, t: string) =>
  types.has(t) || (t === 'integer' && types.has('number'));

/** Whether some value is both of type `t` and one of `types` (an integer is a number; a number may be one). */
export const meets = (t: string, types: ReadonlySet<string>) =>
  hasType(types, t) || (t === 'number' && types.has('integer'));

/** The values enum and const allow together; undefined when neither is there. */
export function allowed(k: Record<string, unknown>): unknown[] | undefined {
  const en = Array.isArray(k['enum']) ? (k['enum'] as unknown[]) : undefined;
  if (!('const' in k)) return en;
  return en ? en.filter((v) => sameData(v, k['const'])) : [k['const']];
}

export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const MAX_SHOWN = 60;

export function show(v: unknown): string {
  const s = v === undefined ? 'none' : (JSON.stringify(v) ?? String(v));
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s;
}

export function change(o: unknown, n: unknown): string {
  if (o === undefined) return `added: ${show(n)}`;
  if (n === undefined) return `removed (was ${show(o)})`;
  return `${show(o)} → ${show(n)}`;
}

export function presence(o: unknown, n: unknown): string {
  return o === undefined ? 'added' : n === undefined ? 'removed' : 'changed';
}
