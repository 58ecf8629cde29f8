/**
 * The one printer of generated code: prettier, pinned, with pinned options, in memory, before anything is compared
 * or written. A file is a list of pieces, its top-level statements in groups: each piece is formatted alone and the
 * pieces are joined by one blank line, which is what prettier gives for the whole file (test/format.test.ts holds
 * the two equal on every golden file and on generated specs), so a piece whose text did not change is taken from
 * the cache (generate's; check passes none and formats everything).
 */
import * as prettier from 'prettier';
import type { PieceStore } from './types.js';

export const PRETTIER_OPTIONS: prettier.Options = {
  parser: 'typescript',
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  semi: true,
  endOfLine: 'lf',
};

export async function formatTypeScript(source: string): Promise<string> {
  return prettier.format(source, PRETTIER_OPTIONS);
}

/** A file from its pieces: each formatted (or found in the store), one blank line between them. */
export async function formatPieces(pieces: readonly string[], store?: PieceStore): Promise<string> {
  const formatted = await Promise.all(
    pieces
      .filter((p) => p.trim())
      .map(async (piece) => {
        const kept = store?.get('format', piece);
        if (kept !== undefined) return kept;
        const text = await formatTypeScript(piece);
        store?.put('format', piece, text);
        return text;
      }),
  );
  return formatted.join('\n');
}

/** LF only, exactly one trailing newline. */
export function normalizeText(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').replace(/\s+$/, '')}\n`;
}
