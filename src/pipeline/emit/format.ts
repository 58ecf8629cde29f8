/**
 * The one printer of generated code: prettier, pinned, with pinned options, in memory, before anything is compared
 * or written. A file is a list of pieces, its top-level statements in groups: each piece is formatted alone and the
 * pieces are joined by one blank line, which is what prettier gives for the whole file (test/format.test.ts holds
 * the two equal on every golden file and on generated specs), so a piece whose text did not change is taken from
 * the cache (generate's; check passes none and formats everything).
 */
import type { Options, Plugin } from 'prettier';

/**
 * Text kept by the content that produced it, between runs: generate's caller may hand one in (src/cache/store.ts);
 * emit never touches the disk itself. A kept text is what the same input gives, so it changes no byte.
 */
export interface PieceStore {
  get(kind: string, input: string): string | undefined;
  put(kind: string, input: string, value: string): void;
}

export const PRETTIER_OPTIONS: Options = {
  parser: 'typescript',
  // A .ts file, never TSX: prettier then skips guessing whether the text holds JSX (a fifth of its time here).
  filepath: 'generated.ts',
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  semi: true,
  endOfLine: 'lf',
};

let printer: Promise<(source: string) => Promise<string>> | undefined;

/**
 * prettier is imported when a piece is first formatted (a run whose pieces are all kept never loads it), as its
 * standalone core with the two plugins TypeScript needs: the same printer as its Node entry, which also loads
 * the config resolver and every other language's plugins (about half of an edit's time in prettier, measured).
 * test/format.test.ts holds the two to the same output.
 */
export async function formatTypeScript(source: string): Promise<string> {
  printer ??= Promise.all([
    import('prettier/standalone'),
    import('prettier/plugins/typescript'),
    import('prettier/plugins/estree'),
  ]).then(([prettier, typescript, estree]) => {
    const options = { ...PRETTIER_OPTIONS, plugins: [typescript, estree as Plugin] };
    return (text: string) => prettier.format(text, options);
  });
  return (await printer)(source);
}

/** A line between two pieces formatted in one call: prettier keeps a line comment where it is. */
const BOUNDARY = '// @toolspec-piece-boundary';

/**
 * A file from its pieces: each formatted (or found in the store), one blank line between them. The pieces the store
 * does not have are formatted in one prettier call, a boundary comment between each two, and split there again:
 * prettier costs milliseconds a call whatever its size, so a cold run of 500 tools would otherwise pay a thousand
 * times. test/format.test.ts holds that equal to formatting each piece alone, and to the whole file.
 */
export async function formatPieces(pieces: readonly string[], store?: PieceStore): Promise<string> {
  const list = pieces.filter((p) => p.trim());
  const out = list.map((piece) => store?.get('format', piece));
  const missing = [...out.keys()].filter((i) => out[i] === undefined);
  const formatted = await formatEach(missing.map((i) => list[i]!));
  missing.forEach((i, j) => {
    out[i] = formatted[j]!;
    store?.put('format', list[i]!, formatted[j]!);
  });
  return out.join('\n');
}

/** Each text formatted as prettier formats it alone, in one call (see formatPieces). */
export async function formatEach(texts: readonly string[]): Promise<string[]> {
  if (!texts.length) return [];
  const split = texts.some((t) => t.includes(BOUNDARY))
    ? undefined
    : (await formatTypeScript(texts.join(`\n\n${BOUNDARY}\n`))).split(`\n${BOUNDARY}\n`);
  return split?.length === texts.length ? split : Promise.all(texts.map((t) => formatTypeScript(t)));
}

/**
 * LF only, exactly one trailing newline (trimEnd strips what /\s+$/ would, without a regex over megabytes). A text
 * that already ends so is returned itself: a new string would be one more copy of megabytes to flatten.
 */
export function normalizeText(text: string): string {
  const lf = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  const end = lf.trimEnd();
  return end.length === lf.length - 1 && lf.endsWith('\n') ? lf : `${end}\n`;
}
