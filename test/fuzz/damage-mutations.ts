/**
 * Ways to damage a spec file, as data (so fast-check prints a failing case readably and shrinks it), and the
 * function that applies them to the file's bytes. Line edits work on the raw bytes (latin1 maps byte to char 1:1),
 * so they also apply to a file that earlier damage left as invalid UTF-8; node edits parse the YAML and change one
 * value, and do nothing on a file that no longer parses.
 */
import fc from 'fast-check';
import { isSeq, parseDocument } from 'yaml';

/** Values a retyped field gets: every JSON type, and strings that mean something to toolspec (paths, refs). */
export const VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e21,
  true,
  '',
  'text',
  '1.0.0',
  '#/$defs/Nope',
  '.',
  '..',
  'toolspec.yaml',
  'src',
  'node_modules',
  '\u2028\0\u001b',
  [],
  [1, 'a', null],
  {},
  { type: 'object' },
  { $ref: '#/$defs/Nope' },
];

/** Bytes injected at a random offset: control characters, invalid UTF-8, a BOM, line and paragraph separators. */
export const BYTES = {
  nul: [0x00],
  bel: [0x07],
  backspace: [0x08],
  tab: [0x09],
  verticalTab: [0x0b],
  formFeed: [0x0c],
  carriageReturn: [0x0d],
  esc: [0x1b],
  ansiRed: [0x1b, 0x5b, 0x33, 0x31, 0x6d],
  del: [0x7f],
  loneContinuation: [0x80],
  byteFF: [0xff],
  truncatedTwoByte: [0xc3],
  truncatedThreeByte: [0xe2, 0x82],
  overlongSlash: [0xc0, 0xaf],
  surrogate: [0xed, 0xa0, 0x80],
  beyondUnicode: [0xf4, 0x90, 0x80, 0x80],
  bom: [0xef, 0xbb, 0xbf],
  lineSeparator: [0xe2, 0x80, 0xa8],
  paragraphSeparator: [0xe2, 0x80, 0xa9],
} as const satisfies Record<string, readonly number[]>;

export type ByteKind = keyof typeof BYTES;
export const INVALID_UTF8: readonly ByteKind[] = [
  'loneContinuation',
  'byteFF',
  'truncatedTwoByte',
  'truncatedThreeByte',
  'overlongSlash',
  'surrogate',
  'beyondUnicode',
];

export type Mutation =
  | { kind: 'deleteLines'; at: number; count: number }
  | { kind: 'duplicateLines'; at: number; count: number }
  | { kind: 'deleteKey'; at: number }
  | { kind: 'retypeLine'; at: number; value: number }
  | { kind: 'retypeNode'; at: number; value: number }
  | { kind: 'deleteNode'; at: number }
  | { kind: 'duplicateItem'; at: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: ByteKind }
  | { kind: 'tabIndent'; at: number };

const at = fc.nat({ max: 1_000_000 });
const count = fc.integer({ min: 1, max: 12 });
const value = fc.nat({ max: VALUES.length - 1 });
const byteKind = fc.constantFrom(...(Object.keys(BYTES) as ByteKind[]));

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('deleteLines' as const), at, count }),
  fc.record({ kind: fc.constant('duplicateLines' as const), at, count }),
  fc.record({ kind: fc.constant('deleteKey' as const), at }),
  fc.record({ kind: fc.constant('retypeLine' as const), at, value }),
  fc.record({ kind: fc.constant('retypeNode' as const), at, value }),
  fc.record({ kind: fc.constant('deleteNode' as const), at }),
  fc.record({ kind: fc.constant('duplicateItem' as const), at }),
  fc.record({ kind: fc.constant('truncate' as const), at }),
  fc.record({ kind: fc.constant('insert' as const), at, bytes: byteKind }),
  fc.record({ kind: fc.constant('tabIndent' as const), at }),
);

/** One to three pieces of damage, applied in order. */
export const damageArb = fc.array(mutationArb, { minLength: 1, maxLength: 3 });

/** Only invalid UTF-8 byte sequences, at one to three offsets. */
export const invalidUtf8Arb = fc.array(
  fc.record({ kind: fc.constant('insert' as const), at, bytes: fc.constantFrom(...INVALID_UTF8) }),
  { minLength: 1, maxLength: 3 },
);

export function applyAll(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  return mutations.reduce(apply, bytes);
}

export function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function apply(bytes: Buffer, m: Mutation): Buffer {
  switch (m.kind) {
    case 'truncate':
      return bytes.subarray(0, m.at % (bytes.length + 1));
    case 'insert': {
      const i = m.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, i), Buffer.from(BYTES[m.bytes]), bytes.subarray(i)]);
    }
    case 'deleteLines':
    case 'duplicateLines':
    case 'deleteKey':
    case 'retypeLine':
    case 'tabIndent':
      return Buffer.from(editLines(bytes.toString('latin1').split('\n'), m).join('\n'), 'latin1');
    case 'retypeNode':
    case 'deleteNode':
    case 'duplicateItem':
      return editNode(bytes, m);
  }
}

const KEY_LINE = /^(\s*(?:- )?(?:"[^"]*"|'[^']*'|[^\s:#'"][^:#]*):)(\s+\S.*)?$/;

function editLines(lines: string[], m: Mutation): string[] {
  const out = [...lines];
  const pick = <T>(xs: readonly T[]) => xs[m.at % xs.length];
  switch (m.kind) {
    case 'deleteLines': {
      const i = m.at % out.length;
      out.splice(i, m.count);
      return out;
    }
    case 'duplicateLines': {
      const i = m.at % out.length;
      out.splice(i + m.count, 0, ...out.slice(i, i + m.count));
      return out;
    }
    case 'deleteKey': {
      // A key line and every line indented deeper below it: the key with its whole value.
      const keys = out.flatMap((l, i) => (KEY_LINE.test(l) ? [i] : []));
      if (!keys.length) return out;
      const i = pick(keys)!;
      const indent = indentOf(out[i]!);
      let end = i + 1;
      while (end < out.length && (out[end]!.trim() === '' || indentOf(out[end]!) > indent)) end++;
      out.splice(i, end - i);
      return out;
    }
    case 'retypeLine': {
      // `key: value` on one line gets a value of another type, written as YAML flow (JSON is valid YAML).
      const withValue = out.flatMap((l, i) => (KEY_LINE.exec(l)?.[2] ? [i] : []));
      if (!withValue.length) return out;
      const i = pick(withValue)!;
      const [, head] = KEY_LINE.exec(out[i]!)!;
      out[i] = `${head} ${Buffer.from(JSON.stringify(VALUES[m.value]), 'utf8').toString('latin1')}`;
      return out;
    }
    case 'tabIndent': {
      const indented = out.flatMap((l, i) => (/^ +\S/.test(l) ? [i] : []));
      if (!indented.length) return out;
      const i = pick(indented)!;
      out[i] = out[i]!.replace(/^( *) /, '$1\t');
      return out;
    }
    default:
      return out;
  }
}

function indentOf(line: string): number {
  return /^\s*(?:- )?/.exec(line)![0].length;
}

function editNode(
  bytes: Buffer,
  m: Extract<Mutation, { kind: 'retypeNode' | 'deleteNode' | 'duplicateItem' }>,
): Buffer {
  if (!isValidUtf8(bytes)) return bytes;
  const doc = parseDocument(bytes.toString('utf8'));
  if (doc.errors.length) return bytes;
  const paths: (string | number)[][] = [];
  const seqs: (string | number)[][] = [];
  const walk = (v: unknown, p: (string | number)[]): void => {
    if (p.length) paths.push(p);
    if (Array.isArray(v)) {
      if (v.length) seqs.push(p);
      v.forEach((x, i) => walk(x, [...p, i]));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
    }
  };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch {
    return bytes;
  }
  walk(data, []);
  if (m.kind === 'duplicateItem') {
    if (!seqs.length) return bytes;
    const p = seqs[m.at % seqs.length]!;
    const seq = doc.getIn(p, true);
    if (!isSeq(seq) || !seq.items.length) return bytes;
    const i = m.at % seq.items.length;
    seq.items.splice(i + 1, 0, doc.createNode((seq.items[i] as { toJSON?: () => unknown })?.toJSON?.() ?? null));
  } else {
    if (!paths.length) return bytes;
    const p = paths[m.at % paths.length]!;
    if (m.kind === 'deleteNode') doc.deleteIn(p);
    else doc.setIn(p, doc.createNode(VALUES[m.value]));
  }
  try {
    return Buffer.from(doc.toString(), 'utf8');
  } catch {
    return bytes;
  }
}
