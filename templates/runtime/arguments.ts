/**
 * What the generator and the generated server share about arguments, in one place: this module is copied into
 * every generated project and imported by toolspec's own loader (src/pipeline/validate), so `validate` judges examples as
 * the server judges calls. Pure: no imports, no I/O.
 *
 * - Validators and their errors, as ajv's standalone code produces them.
 * - Inherited property names (`constructor`, `toString`, `__proto__`, …): ajv's code would read them through the
 *   prototype, so schemas that use them are compiled with each renamed to a placeholder, and the data is renamed
 *   the same way for the check and back after it.
 * - The text of an argument's path in messages: "/filters/0/tag" → "filters[0].tag".
 */

/** A precompiled validator, as ajv's standalone code exports it: true when `data` is a `T` (defaults filled in). */
export interface Validator<T = unknown> {
  (data: unknown): data is T;
  errors?: ValidationError[] | null;
}

export interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The property names every object inherits (`constructor`, `toString`, `__proto__`, …). */
export const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The name an inherited property name is compiled under. */
export function placeholder(name: string): string {
  return `__toolspec_${name}__`;
}

/**
 * Wraps the validator of a schema compiled with `names` renamed to their placeholders: those keys are renamed in
 * the data for the check and back after it (so `args.toString` is the argument, or its default), and the errors
 * name them as the caller wrote them. `copy`: check a copy instead (outputs, which must not change).
 */
export function guardInherited<V extends Validator<unknown>>(validate: V, names: readonly string[], copy: boolean): V {
  const to = new Map(names.map((n) => [n, placeholder(n)]));
  const back = new Map(names.map((n) => [placeholder(n), n]));
  const swap = (v: unknown) => (typeof v === 'string' && back.get(v)) || v;
  const guarded = ((data: unknown) => {
    const subject = copy ? structuredClone(data) : data;
    renameKeys(subject, to);
    try {
      return validate(subject);
    } finally {
      if (!copy) renameKeys(subject, back);
      guarded.errors =
        validate.errors?.map((e) => ({
          ...e,
          instancePath: e.instancePath.split('/').map(swap).join('/'),
          params: Object.fromEntries(Object.entries(e.params).map(([k, v]) => [k, swap(v)])),
        })) ?? null;
    }
  }) as V;
  return guarded;
}

/** Renames keys of every object in `data`, in place; the renamed keys stay own data properties (`__proto__` too). */
export function renameKeys(data: unknown, map: ReadonlyMap<string, string>): void {
  if (Array.isArray(data)) return data.forEach((d) => renameKeys(d, map));
  if (typeof data !== 'object' || data === null) return;
  const record = data as Record<string, unknown>;
  for (const [from, to] of map) {
    if (!Object.hasOwn(record, from)) continue;
    Object.defineProperty(record, to, { value: record[from], enumerable: true, writable: true, configurable: true });
    delete record[from];
  }
  for (const v of Object.values(record)) renameKeys(v, map);
}

/** The segments of a JSON pointer ("/a~1b/0" → ["a/b", "0"]). */
export function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * "/filters/0/tag" → "filters[0].tag"; the root is "(arguments)". With the data at hand, a number is an index only
 * where the value is an array; a name that would read as something else ("", "0", "a.b") is quoted: ["a.b"].
 * `child`: a property below the pointer (the one `required` or `additionalProperties` names).
 */
export function argumentPath(pointer: string, child?: string, data?: unknown): string {
  const segs = pointerSegments(pointer);
  if (child !== undefined) segs.push(child);
  if (!segs.length) return '(arguments)';
  let node = data;
  return segs
    .map((s, i) => {
      const index = /^\d+$/.test(s) && (data === undefined || Array.isArray(node));
      node =
        typeof node === 'object' && node !== null && Object.hasOwn(node, s)
          ? (node as Record<string, unknown>)[s]
          : undefined;
      if (index) return `[${s}]`;
      if (!/^[^\s.[\]"'\\]+$/.test(s) || /^\d+$/.test(s)) return `[${JSON.stringify(s)}]`;
      return i === 0 ? s : `.${s}`;
    })
    .join('');
}

/**
 * A `pattern` as a program for a linear-time matcher (toolspec compiles each pattern it can at generate time):
 * `sets` are the character classes, sorted inclusive code point ranges flat as [from, to, …] (or a class's source); `code` holds
 * instructions as triples [op, a, b]: 0 read a code point of `sets[a]`, go to b; 1 go to a and to b; 2 go to a;
 * 3 go to b if assertion a holds (0 `^`, 1 `$`, 2 `\b`, 3 `\B`); 4 match.
 */
export interface LinearProgram {
  /** A set, or the source of a one-character pattern for a class with a Unicode property (`^\\p{Lu}$`). */
  sets: (number[] | string)[];
  code: number[];
}

const isWordChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

function inSet(set: readonly number[], c: number): boolean {
  let lo = 0;
  let hi = set.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < set[2 * mid]!) hi = mid - 1;
    else if (c > set[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * What `new RegExp(pattern, 'u')` does for `test`, in time linear in the string's length (a Pike VM over the
 * program: every thread advances one code point at a time, and a state is entered at most once per position), so
 * no argument can make validation backtrack. test/regex-linear.test.ts holds it equal to V8's engine.
 */
export function linearPattern(program: LinearProgram): { test(text: string): boolean } {
  const { code } = program;
  // A class with a Unicode property is tested by the runtime's own engine on one code point: no backtracking.
  const sets = program.sets.map((set) => {
    if (typeof set !== 'string') return (c: number) => inSet(set, c);
    const one = new RegExp(set, 'u');
    return (c: number) => one.test(String.fromCodePoint(c));
  });
  const size = code.length / 3;
  const marks = new Uint32Array(size);
  let threads = new Int32Array(size);
  let next = new Int32Array(size);
  // Each state is expanded once per position and pushes at most two: the stack never holds more than this.
  const stack = new Int32Array(2 * size + 1);
  let generation = 0;
  // A pattern that starts with ^ can only match from the start: once no thread is left, nothing will match.
  const anchored = code[3 * code[1]!] === 3 && code[3 * code[1]! + 1] === 0;
  let count = 0;
  // Adds to `next` the threads that `from` reaches without reading, at UTF-16 index `at` between the code points
  // `before` and `after` (-1 past either end); true when one of them matches.
  const enter = (from: number, at: number, end: number, before: number, after: number): boolean => {
    let top = 0;
    stack[top++] = from;
    while (top) {
      const pc = stack[--top]!;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      const op = code[3 * pc];
      const a = code[3 * pc + 1]!;
      const b = code[3 * pc + 2]!;
      if (op === 0) next[count++] = pc;
      else if (op === 1) {
        stack[top++] = b;
        stack[top++] = a;
      } else if (op === 2) stack[top++] = a;
      else if (op === 3) {
        const holds =
          a === 0 ? at === 0 : a === 1 ? at === end : (isWordChar(before) !== isWordChar(after)) === (a === 2);
        if (holds) stack[top++] = b;
      } else return true;
    }
    return false;
  };
  return {
    test(text) {
      const end = text.length;
      let before = -1;
      let after = end ? text.codePointAt(0)! : -1;
      generation++;
      count = 0;
      if (enter(0, 0, end, before, after)) return true;
      for (let at = 0; at < end;) {
        const read = after;
        at += read > 0xffff ? 2 : 1;
        before = read;
        after = at < end ? text.codePointAt(at)! : -1;
        const swap = threads;
        threads = next;
        next = swap;
        const alive = count;
        count = 0;
        generation++;
        for (let t = 0; t < alive; t++) {
          const pc = threads[t]!;
          if (sets[code[3 * pc + 1]!]!(read) && enter(code[3 * pc + 2]!, at, end, before, after)) return true;
        }
        // A match may start anywhere, as `test` searches (an anchored one only at the start).
        if (anchored) {
          if (!count) return false;
        } else if (enter(0, at, end, before, after)) return true;
      }
      return false;
    },
  };
}
