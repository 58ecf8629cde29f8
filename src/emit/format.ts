/**
 * Formatting, in memory, with the pinned prettier and pinned options, before anything is compared or written.
 */
import * as prettier from 'prettier';
import { PRINT_WIDTH } from './layout.js';

export const PRETTIER_OPTIONS: prettier.Options = {
  parser: 'typescript',
  printWidth: PRINT_WIDTH,
  singleQuote: true,
  trailingComma: 'all',
  semi: true,
  endOfLine: 'lf',
};

export async function formatTypeScript(source: string): Promise<string> {
  return prettier.format(source, PRETTIER_OPTIONS);
}

/** LF only, exactly one trailing newline. */
export function normalizeText(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').replace(/\s+$/, '')}\n`;
}

/**
 * For emitters that write prettier's shape themselves: prettier runs only when a line is wider than the print
 * width (a string literal alone on its line excepted: prettier never breaks those).
 */
export async function formatIfNeeded(source: string): Promise<string> {
  const tooWide = source.split('\n').some((l) => l.length > PRINT_WIDTH && !/^\s*'(?:[^'\\]|\\.)*',?$/.test(l));
  return tooWide ? formatTypeScript(source) : source;
}
