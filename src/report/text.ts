/**
 * What text for people is made of: styles (colour on terminals), `visible` (the one place where text from the spec
 * is made safe for a terminal) and code frames. How a finding is laid out is findings.ts's.
 */
import type { Diagnostic, Span } from '../core/diagnostics.js';
import { visible } from '../core/visible.js';

export { visible };

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const COLOR = {
  red: ansi(31, 39),
  yellow: ansi(33, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
  cyan: ansi(36, 39),
};
export type Style = typeof COLOR;
export const PLAIN: Style = { red: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s, cyan: (s) => s };

/**
 * Colour on a terminal unless NO_COLOR is set (https://no-color.org); FORCE_COLOR (https://force-color.org) decides
 * over both, as in Node and the common libraries: any value but "0" and "false" turns colour on wherever the output
 * goes (a pipe, a CI log) and wins over NO_COLOR, as Node's own FORCE_COLOR does; "0" or "false" turns it off even on
 * a terminal. As both conventions say, an empty value counts as unset (Node alone takes FORCE_COLOR='' as on).
 */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  const force = env['FORCE_COLOR'];
  if (force) return force === '0' || force.toLowerCase() === 'false' ? PLAIN : COLOR;
  return stream.isTTY && !env['NO_COLOR'] ? COLOR : PLAIN;
}

/** Columns of a code frame; longer lines show a window around the problem. */
const FRAME_WIDTH = 100;

/** Where a code frame points: a 1-based line and column, and where the problem ends when it is known. */
type FramePosition = Pick<Span, 'line' | 'column'> & Partial<Pick<Span, 'endLine' | 'endColumn'>>;

/**
 * The line as shown under a finding, and the caret line under it. Tabs become one space and invisible
 * characters their escapes, with the caret moved to match; a byte order mark at the very start is not shown.
 * Only a window around the column is looked at, so a megabyte-long line costs no more than a short one.
 */
export function codeFrame(source: string, d: FramePosition): { text: string; caret: string } | undefined {
  const line = linesOf(source)[d.line - 1];
  if (line === undefined) return undefined;
  const col = Math.min(Math.max(0, d.column - 1), line.length);
  const width =
    d.endLine === d.line && d.endColumn !== undefined
      ? Math.max(1, d.endColumn - d.column)
      : Math.max(1, line.length - col);
  let from = Math.max(0, col - FRAME_WIDTH);
  let to = Math.min(line.length, col + FRAME_WIDTH * 2);
  if (isLowSurrogate(line.charCodeAt(from))) from--;
  if (isLowSurrogate(line.charCodeAt(to))) to++;
  // at[i - from]: where code unit i starts in the shown text; cuts: where the shown text may be cut.
  const at: number[] = [];
  const cuts: number[] = [];
  let shown = '';
  for (let i = from; i < to; i++) {
    at.push(shown.length);
    const c = line[i]!;
    if (!isLowSurrogate(c.charCodeAt(0))) cuts.push(shown.length);
    if (c === '\t') shown += ' ';
    else if (!(c === '\ufeff' && i === 0 && d.line === 1)) shown += visible(c);
  }
  at.push(shown.length);
  cuts.push(shown.length);
  const cut = (x: number) => cuts.reduce((best, c) => (c <= x ? c : best), 0);
  const caretStart = at[col - from]!;
  const caretEnd = at[Math.min(col + width, to) - from]!;
  // A long line shows a window with 20 columns before the caret; "…" takes the place of its first character (or
  // escape) where it was cut, and the caret moves with it.
  const start = cut(Math.max(0, Math.min(caretStart - 20, shown.length - FRAME_WIDTH)));
  const end = cut(start + FRAME_WIDTH);
  const cutBefore = start > 0 || from > 0;
  const skip = cutBefore ? Math.min(caretStart, cuts.find((c) => c > start) ?? start + 1) - 1 : start;
  const text = cutBefore ? `…${shown.slice(skip + 1, end)}` : shown.slice(start, end);
  const caret =
    ' '.repeat(Math.max(0, caretStart - skip)) + '^'.repeat(Math.max(1, Math.min(caretEnd, end) - caretStart));
  return { text, caret };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A source split into lines, kept for the next call: one split per file, not one per diagnostic. */
let split: { source: string; lines: string[] } | undefined;

function linesOf(source: string): string[] {
  if (split?.source !== source) split = { source, lines: source.split(/\r?\n/) };
  return split.lines;
}

/** "1 tool", "3 tools". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function countSummary(list: readonly Diagnostic[]): string {
  const errors = list.filter((d) => d.severity === 'error').length;
  const warnings = list.length - errors;
  return warnings ? `${plural(errors, 'error')}, ${plural(warnings, 'warning')}` : plural(errors, 'error');
}
