/**
 * Diagnostics for people (file:line:col, a code frame, a hint) and for machines (JSON). Pure: returns strings.
 */
import type { Diagnostic } from './diagnostics.js';

export interface Style {
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  cyan(s: string): string;
}

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const COLOR: Style = { red: ansi(31, 39), yellow: ansi(33, 39), dim: ansi(2, 22), bold: ansi(1, 22), cyan: ansi(36, 39) };
export const PLAIN: Style = { red: (s) => s, yellow: (s) => s, dim: (s) => s, bold: (s) => s, cyan: (s) => s };

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  return stream.isTTY && !env['NO_COLOR'] ? COLOR : PLAIN;
}

const FRAME_WIDTH = 100;

export function formatDiagnostic(d: Diagnostic, style: Style = PLAIN, source?: string): string {
  const sev = d.severity === 'error' ? style.red(style.bold('error')) : style.yellow(style.bold('warning'));
  const lines = [`${style.bold(`${d.file}:${d.line}:${d.column}`)} ${sev} ${style.dim(d.code)} ${d.message}`];
  const text = source?.split(/\r?\n/)[d.line - 1];
  if (text !== undefined) {
    const width = d.endLine === d.line ? Math.max(1, d.endColumn - d.column) : Math.max(1, text.length - d.column + 1);
    // Show a window of long lines around the column; tabs become one space so the caret lines up.
    const start = Math.max(0, Math.min(d.column - 1 - 20, text.length - FRAME_WIDTH));
    const shown = text.replace(/\t/g, ' ').slice(start, start + FRAME_WIDTH);
    const gutter = String(d.line);
    const pad = ' '.repeat(gutter.length);
    const caret = ' '.repeat(Math.max(0, d.column - 1 - start)) + '^'.repeat(Math.min(width, Math.max(1, shown.length - (d.column - 1 - start))));
    lines.push(style.dim(`  ${gutter} | `) + (start > 0 ? '…' : '') + shown.slice(start > 0 ? 1 : 0));
    lines.push(style.dim(`  ${pad} | `) + (d.severity === 'error' ? style.red(caret) : style.yellow(caret)));
  }
  if (d.hint) lines.push(`  ${style.cyan('hint:')} ${d.hint}`);
  return lines.join('\n');
}

export function formatDiagnostics(list: readonly Diagnostic[], style: Style, sources: ReadonlyMap<string, string>): string {
  return list.map((d) => formatDiagnostic(d, style, sources.get(d.file))).join('\n\n');
}

export function countSummary(list: readonly Diagnostic[]): string {
  const errors = list.filter((d) => d.severity === 'error').length;
  const warnings = list.length - errors;
  const n = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  return warnings ? `${n(errors, 'error')}, ${n(warnings, 'warning')}` : n(errors, 'error');
}
