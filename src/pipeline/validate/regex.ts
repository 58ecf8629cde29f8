/**
 * Patterns that can backtrack exponentially ("ReDoS"): validation runs on the generated server's event loop, so one
 * crafted argument against such a pattern freezes every session, and no timeout can interrupt it.
 *
 * safe-regex2 finds the shape of the danger (a repetition inside a repetition, "star height" 2) but also flags
 * patterns that are safe because every round of the outer repetition starts with a delimiter that the inner ones
 * cannot consume, such as `^[a-z0-9]+(?:-[a-z0-9]+)*$`: a string can then be split into rounds in only one way. This
 * module keeps safe-regex2's verdict except where that delimiter proof holds.
 */
import ret, { type Group, type Repetition, type Root, type SetToken, type Token } from 'ret';
import safeRegex from 'safe-regex2';

// ret is CommonJS whose module.exports is the tokenizer itself, with `types` on it.
const tokenizer = ret as unknown as (pattern: string) => Root;
const { types } = ret as unknown as { types: typeof import('ret').types };

export function backtracksExponentially(pattern: string): boolean {
  if (safeRegex(pattern)) return false;
  let root: Root;
  try {
    root = tokenizer(pattern);
  } catch {
    return true; // safe-regex2 parsed it; when ret cannot, keep its verdict
  }
  return ambiguous(root);
}

/** A repetition whose body holds another repetition and does not start with a delimiter none of them consumes. */
function ambiguous(node: Token | Root): boolean {
  switch (node.type) {
    case types.ROOT:
    case types.GROUP:
      return alternatives(node).some((seq) => seq.some(ambiguous));
    case types.REPETITION: {
      const inner = repetitionsIn(node.value);
      if (node.max > 1 && inner.length) {
        const lead = leadingChars(node.value);
        if (!lead || inner.some((r) => lead.some((c) => matches(r.value, c)))) return true;
      }
      return ambiguous(node.value);
    }
    default:
      return false;
  }
}

function alternatives(node: Root | Group): Token[][] {
  return node.options ?? [node.stack ?? []];
}

/** The repetitions below `node` that can repeat (max > 1). */
function repetitionsIn(node: Token): Repetition[] {
  if (node.type === types.REPETITION) return [...(node.max > 1 ? [node] : []), ...repetitionsIn(node.value)];
  if (node.type === types.GROUP) return alternatives(node).flatMap((seq) => seq.flatMap(repetitionsIn));
  return [];
}

/**
 * The characters every match of `node` starts with, when it must start with one character from a small set (a
 * literal, or a class of at most 256 code points); undefined otherwise (it may start with a repetition, or be empty).
 */
function leadingChars(node: Token): number[] | undefined {
  if (node.type === types.CHAR) return [node.value];
  if (node.type === types.SET) {
    if (node.not) return undefined;
    const codes = expand(node.set);
    return codes && codes.length <= 256 ? codes : undefined;
  }
  if (node.type === types.GROUP) {
    if (node.followedBy || node.notFollowedBy || node.lookBehind) return undefined;
    const seqs = alternatives(node);
    const leads = seqs.map((seq) => (seq[0] ? leadingChars(seq[0]) : undefined));
    return leads.every((l) => l) ? [...new Set(leads.flat() as number[])] : undefined;
  }
  if (node.type === types.REPETITION && node.min >= 1 && node.max === 1) return leadingChars(node.value);
  return undefined;
}

function expand(set: SetToken[]): number[] | undefined {
  const out: number[] = [];
  for (const t of set) {
    if (t.type === types.CHAR) out.push(t.value);
    else if (t.type === types.RANGE) {
      if (t.to - t.from > 256) return undefined;
      for (let c = t.from; c <= t.to; c++) out.push(c);
    } else return undefined;
  }
  return out;
}

/** Whether `node` can consume the character `code` anywhere in a match. */
function matches(node: Token, code: number): boolean {
  switch (node.type) {
    case types.CHAR:
      return node.value === code;
    case types.SET:
      return inSet(node.set, code) !== node.not;
    case types.REPETITION:
      return matches(node.value, code);
    case types.GROUP:
      return alternatives(node).some((seq) => seq.some((t) => matches(t, code)));
    case types.REFERENCE:
      return true;
    default:
      return false;
  }
}

function inSet(set: SetToken[], code: number): boolean {
  return set.some((t) =>
    t.type === types.CHAR
      ? t.value === code
      : t.type === types.RANGE
        ? code >= t.from && code <= t.to
        : inSet(t.set, code) !== t.not,
  );
}
