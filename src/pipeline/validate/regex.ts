/**
 * Patterns that can backtrack exponentially ("ReDoS"): validation runs on the generated server's event loop, so one
 * crafted argument against such a pattern freezes every session, and no timeout can interrupt it.
 *
 * A backtracking engine tries every way the pattern can read a string; it takes exponential time on a near-miss
 * exactly when some state of the pattern's automaton can loop back to itself along two different paths that read
 * the same text (exponential degree of ambiguity: `(a|a)*`, `(\w|\d)+`, `(a+)+`, `((ab)*)*`). This module decides
 * that criterion on the position (Glushkov) automaton of the pattern as ECMAScript reads it with the `u` flag
 * (parsed by regexpp): positions are the pattern's characters and classes, an edge counts the distinct ways the
 * pattern's structure goes from one position to the next (two ways make two paths), and the product of the
 * automaton with itself finds two paths that read the same characters and part and meet again. Two safe
 * simplifications, both erring toward refusal: a repetition with a bound above 1 counts as unbounded
 * (`(\d{1,3}\.?){4}` is refused; `\d{1,3}(\.\d{1,3}){3}` is not), and lookarounds are checked as patterns of their
 * own. Work is bounded: a pattern too large to decide within the budget is refused as unproven.
 */
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import type { LinearProgram } from '../../../templates/runtime/arguments.js';

export type RegexVerdict = 'exponential' | 'unproven' | undefined;

/** Edges and product states the analysis may visit before it calls a pattern unproven. */
const BUDGET = 1_000_000;
const MAX_CODE_POINT = 0x10ffff;

/** A set of code points: sorted, disjoint, inclusive ranges, flat as [from, to, from, to, …]. */
type Ranges = number[];

export function backtracksExponentially(pattern: string): RegexVerdict {
  let root: AST.Pattern;
  try {
    root = new RegExpParser().parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    try {
      new RegExp(pattern, 'u');
    } catch {
      return undefined; // not a pattern ajv would compile: ajv reports it
    }
    return 'unproven';
  }
  try {
    const automaton = new Automaton();
    automaton.alternatives(root.alternatives);
    return automaton.ambiguous() ? 'exponential' : undefined;
  } catch (e) {
    if (e === OVER_BUDGET) return 'unproven';
    throw e;
  }
}

const OVER_BUDGET = Symbol('over budget');

/** Instructions a linear program may have: past it (counted repetitions of repetitions), V8 matches the pattern. */
const MAX_INSTRUCTIONS = 2_000;

/**
 * The pattern as a program for the generated server's linear-time matcher (`linearPattern` in the runtime's
 * arguments.ts): undefined when it uses what a finite automaton cannot do (lookarounds, backreferences), does not
 * parse, or would be too large; then the validator keeps V8's engine, and TS041 has judged the pattern.
 */
export function linearProgram(pattern: string, maxInstructions = MAX_INSTRUCTIONS): LinearProgram | undefined {
  let root: AST.Pattern;
  try {
    root = new RegExpParser().parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    return undefined;
  }
  const sets: number[][] = [];
  const setIndex = new Map<string, number>();
  const code: number[] = [];
  const emit = (op: number, a = 0, b = 0) => {
    if (code.length >= 3 * maxInstructions) throw OVER_BUDGET;
    code.push(op, a, b);
    return code.length / 3 - 1;
  };
  const read = (set: Ranges, next: number) => {
    const key = set.join(',');
    let i = setIndex.get(key);
    if (i === undefined) setIndex.set(key, (i = sets.push(set) - 1));
    return emit(0, i, next);
  };
  // Each piece is compiled before what follows it is known, so the program is built from the end: `next` is where
  // a piece goes once it has matched.
  const alternatives = (list: AST.Alternative[], next: number): number => {
    const entries = list.map((alt) => alt.elements.reduceRight((to, el) => element(el, to), next));
    return entries.reduceRight((rest, entry) => emit(1, entry, rest));
  };
  const element = (node: AST.Element, next: number): number => {
    switch (node.type) {
      case 'Character':
        return read([node.value, node.value], next);
      case 'CharacterSet':
      case 'CharacterClass':
        return read(setOf(node), next);
      case 'Group':
      case 'CapturingGroup':
        return alternatives(node.alternatives, next);
      case 'Assertion':
        if (node.kind === 'start') return emit(3, 0, next);
        if (node.kind === 'end') return emit(3, 1, next);
        if (node.kind === 'word') return emit(3, node.negate ? 3 : 2, next);
        throw UNSUPPORTED;
      case 'Quantifier': {
        let entry = next;
        if (node.max === Infinity) {
          const loop = emit(1);
          code[3 * loop + 1] = element(node.element, loop);
          code[3 * loop + 2] = next;
          entry = loop;
        } else {
          for (let k = node.min; k < node.max; k++) entry = emit(1, element(node.element, entry), next);
        }
        for (let k = 0; k < node.min; k++) entry = element(node.element, entry);
        return entry;
      }
      default:
        throw UNSUPPORTED;
    }
  };
  try {
    // The matcher starts at instruction 0: a jump to the pattern's entry, known once it is compiled.
    emit(2);
    code[1] = alternatives(root.alternatives, emit(4));
    return { sets, code };
  } catch (e) {
    if (e === OVER_BUDGET || e === UNSUPPORTED) return undefined;
    throw e;
  }
}

const UNSUPPORTED = Symbol('unsupported');

/** How ajv's standalone code builds each pattern: `new RegExp("<pattern as a JSON string>", "u")`. */
const AJV_PATTERN = /new RegExp\(("(?:[^"\\]|\\.)*"), "u"\)/g;

/** ajv's standalone code with each pattern a linear program can match built as `linearPattern(program)`. */
export function linearPatterns(source: string): string {
  return source.replace(AJV_PATTERN, (whole, literal: string) => {
    const program = linearProgram(JSON.parse(literal) as string);
    return program ? `linearPattern(${JSON.stringify(program)})` : whole;
  });
}

/** What a piece of the pattern contributes: the positions it can start and end with, and its ways to match "". */
interface Piece {
  first: Map<number, number>;
  last: Map<number, number>;
  empty: number;
}

const EMPTY = (): Piece => ({ first: new Map(), last: new Map(), empty: 1 });
/** Counts saturate at 2: one way or several is all the criterion needs. */
const add = (map: Map<number, number>, key: number, n: number) => map.set(key, Math.min(2, (map.get(key) ?? 0) + n));

class Automaton {
  readonly sets: Ranges[] = [];
  readonly follow: Map<number, number>[] = [];
  private work = 0;

  private spend(n: number) {
    this.work += n;
    if (this.work > BUDGET) throw OVER_BUDGET;
  }

  private position(set: Ranges, loops = false): Piece {
    const p = this.sets.push(set) - 1;
    this.follow.push(new Map());
    if (loops) this.follow[p]!.set(p, 1);
    return { first: new Map([[p, 1]]), last: new Map([[p, 1]]), empty: 0 };
  }

  private link(from: Map<number, number>, to: Map<number, number>) {
    this.spend(from.size * to.size);
    for (const [i, a] of from) for (const [j, b] of to) add(this.follow[i]!, j, a * b);
  }

  alternatives(list: AST.Alternative[]): Piece {
    const out: Piece = { first: new Map(), last: new Map(), empty: 0 };
    for (const alt of list) {
      const piece = alt.elements.reduce<Piece>((acc, el) => this.concat(acc, this.element(el)), EMPTY());
      for (const [p, n] of piece.first) add(out.first, p, n);
      for (const [p, n] of piece.last) add(out.last, p, n);
      out.empty = Math.min(2, out.empty + piece.empty);
    }
    return out;
  }

  private concat(a: Piece, b: Piece): Piece {
    this.link(a.last, b.first);
    this.spend(a.first.size + b.first.size + a.last.size + b.last.size);
    const first = new Map(a.first);
    const last = new Map(b.last);
    if (a.empty) for (const [p, n] of b.first) add(first, p, n * a.empty);
    if (b.empty) for (const [p, n] of a.last) add(last, p, n * b.empty);
    return { first, last, empty: Math.min(2, a.empty * b.empty) };
  }

  private element(node: AST.Element): Piece {
    switch (node.type) {
      case 'Character':
        return this.position([node.value, node.value]);
      case 'CharacterSet':
      case 'CharacterClass':
        return this.position(setOf(node));
      case 'Backreference':
        // It reads what its group read, any length: as `[^]+` would.
        return this.position([0, MAX_CODE_POINT], true);
      case 'Group':
      case 'CapturingGroup':
        return this.alternatives(node.alternatives);
      case 'Assertion':
        // A lookaround backtracks inside itself on its own: its body is checked, unlinked; it reads nothing here.
        if (node.kind === 'lookahead' || node.kind === 'lookbehind') this.alternatives(node.alternatives);
        return EMPTY();
      case 'Quantifier': {
        if (node.max === 0) return EMPTY();
        const body = this.element(node.element);
        if (node.max === 1) return node.min === 0 ? { ...body, empty: Math.min(2, body.empty + 1) } : body;
        // A round that reads nothing ends the repetition (ECMAScript's empty check): rounds are non-empty matches.
        this.link(body.last, body.first);
        return node.min === 0 ? { ...body, empty: 1 } : body;
      }
      default:
        throw new Error(`regex: unexpected ${(node as AST.Node).type}`);
    }
  }

  /** Two different paths from a position back to itself that read the same text. */
  ambiguous(): boolean {
    const n = this.sets.length;
    const component = components(n, (i) => this.follow[i]!.keys());
    // Two ways from one position to the next inside a loop: the loop can be gone round two ways.
    for (let i = 0; i < n; i++)
      for (const [j, ways] of this.follow[i]!) if (ways > 1 && component[i] === component[j]) return true;
    // Else two copies walk the loop together from (q, q); apart at (p, r) and back at a diagonal state: ambiguous.
    const pairs = new Map<number, number>();
    const pairList: [number, number][] = [];
    const id = (i: number, j: number) => {
      const key = i * n + j;
      let k = pairs.get(key);
      if (k === undefined) {
        k = pairList.push([i, j]) - 1;
        pairs.set(key, k);
      }
      return k;
    };
    const next = (k: number): number[] => {
      const [i, j] = pairList[k]!;
      const out: number[] = [];
      for (const a of this.follow[i]!.keys()) {
        if (component[a] !== component[i]) continue;
        for (const b of this.follow[j]!.keys()) {
          this.spend(1);
          if (component[b] === component[i] && intersects(this.sets[a]!, this.sets[b]!)) out.push(id(a, b));
        }
      }
      return out;
    };
    const starts: number[] = [];
    for (let q = 0; q < n; q++) if (this.follow[q]!.size) starts.push(id(q, q));
    const found = componentsFrom(starts, next);
    const diagonal = new Set<number>();
    const apart = new Set<number>();
    for (const [k, c] of found) (pairList[k]![0] === pairList[k]![1] ? diagonal : apart).add(c);
    for (const c of apart) if (diagonal.has(c)) return true;
    return false;
  }
}

/** Strongly connected components of nodes 0..n-1 (iterative Tarjan): the component of each node. */
function components(n: number, next: (i: number) => Iterable<number>): number[] {
  const starts = Array.from({ length: n }, (_, i) => i);
  const found = componentsFrom(starts, (i) => [...next(i)]);
  return starts.map((i) => found.get(i)!);
}

/** Strongly connected components of what `starts` reach: node → component id. */
function componentsFrom(starts: number[], next: (k: number) => number[]): Map<number, number> {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const component = new Map<number, number>();
  const stack: number[] = [];
  const onStack = new Set<number>();
  let counter = 0;
  let components = 0;
  for (const start of starts) {
    if (index.has(start)) continue;
    const frames: { node: number; succ: number[]; at: number }[] = [];
    const enter = (node: number) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      frames.push({ node, succ: next(node), at: 0 });
    };
    enter(start);
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      if (frame.at < frame.succ.length) {
        const w = frame.succ[frame.at++]!;
        if (!index.has(w)) enter(w);
        else if (onStack.has(w)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        continue;
      }
      frames.pop();
      const v = frame.node;
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(v)!));
      if (low.get(v) === index.get(v)) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.set(w, components);
        } while (w !== v);
        components++;
      }
    }
  }
  return component;
}

const DIGIT: Ranges = [0x30, 0x39];
const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
const SPACE: Ranges = normalize([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** `.` without the `s` flag: anything but a line terminator. */
const ANY: Ranges = complement(
  normalize([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
  ]),
);

function setOf(node: AST.CharacterSet | AST.CharacterClass | AST.CharacterClassElement): Ranges {
  switch (node.type) {
    case 'Character':
      return [node.value, node.value];
    case 'CharacterClassRange':
      return [node.min.value, node.max.value];
    case 'CharacterSet': {
      if (node.kind === 'any') return ANY;
      const set = node.kind === 'property' ? property(node) : { digit: DIGIT, word: WORD, space: SPACE }[node.kind];
      return node.negate ? complement(set) : set;
    }
    case 'CharacterClass': {
      const parts = (node.elements as AST.CharacterClassElement[]).map(setOf);
      const union = normalize(parts.flatMap((r) => pairsOf(r)));
      return node.negate ? complement(union) : union;
    }
    default:
      // Only the `v` flag makes the other class elements (strings, set operations); patterns use `u`.
      return [0, MAX_CODE_POINT];
  }
}

const properties = new Map<string, Ranges>();

/** The code points of `\p{…}`, read from the engine itself once per property (a pass over all code points). */
function property(node: AST.UnicodePropertyCharacterSet): Ranges {
  const name = node.value === null ? node.key : `${node.key}=${node.value}`;
  let set = properties.get(name);
  if (!set) {
    const test = new RegExp(`^\\p{${name}}$`, 'u');
    const pairs: [number, number][] = [];
    let from = -1;
    for (let c = 0; c <= MAX_CODE_POINT + 1; c++) {
      const inside = c <= MAX_CODE_POINT && (c < 0xd800 || c > 0xdfff) && test.test(String.fromCodePoint(c));
      if (inside && from < 0) from = c;
      if (!inside && from >= 0) {
        pairs.push([from, c - 1]);
        from = -1;
      }
    }
    set = normalize(pairs);
    properties.set(name, set);
  }
  return set;
}

function pairsOf(r: Ranges): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < r.length; i += 2) out.push([r[i]!, r[i + 1]!]);
  return out;
}

function normalize(pairs: [number, number][]): Ranges {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [from, to] of sorted) {
    if (out.length && from <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, to);
    else out.push(from, to);
  }
  return out;
}

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < r.length; i += 2) {
    if (r[i]! > next) out.push(next, r[i]! - 1);
    next = r[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

function intersects(a: Ranges, b: Ranges): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1]! < b[j]!) i += 2;
    else if (b[j + 1]! < a[i]!) j += 2;
    else return true;
  }
  return false;
}
