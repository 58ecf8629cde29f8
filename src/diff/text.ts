/**
 * A compact diff of two texts a model reads (descriptions, titles, instructions): words for one-line texts,
 * `[-removed-]{+added+}` like `git diff --word-diff`, with long unchanged runs shortened; lines for longer ones.
 */
import { diffLines, diffWordsWithSpace } from 'diff';
import { visible, type Style } from '../report/text.js';

/** Unchanged text longer than this between two edits is shortened to its ends. */
const CONTEXT = 40;

export function textDiff(before: unknown, after: unknown, style: Style): string[] {
  // Spec text is shown with its control and invisible characters escaped (line breaks kept for the line diff).
  const show = (v: unknown) =>
    v === undefined ? undefined : (typeof v === 'string' ? v : JSON.stringify(v)).split('\n').map(visible).join('\n');
  const a = show(before);
  const b = show(after);
  if (a === undefined && b === undefined) return [];
  if (a === undefined) return prefixed(b!, '+ ', style.cyan);
  if (b === undefined) return prefixed(a, '- ', style.red);
  if (!a.includes('\n') && !b.includes('\n')) return [wordDiff(a, b, style)];
  const lines: string[] = [];
  for (const part of diffLines(a, b)) {
    const parts = part.value.replace(/\n$/, '').split('\n');
    if (part.added) lines.push(...parts.map((l) => style.cyan(`+ ${l}`)));
    else if (part.removed) lines.push(...parts.map((l) => style.red(`- ${l}`)));
    else if (parts.length > 2) lines.push(`  ${parts[0]}`, style.dim('  …'), `  ${parts.at(-1)}`);
    else lines.push(...parts.map((l) => `  ${l}`));
  }
  return lines;
}

function wordDiff(a: string, b: string, style: Style): string {
  const parts = diffWordsWithSpace(a, b);
  return parts
    .map((p, i) => {
      if (p.removed) return style.red(`[-${p.value}-]`);
      if (p.added) return style.cyan(`{+${p.value}+}`);
      return shorten(p.value, i === 0, i === parts.length - 1);
    })
    .join('');
}

function shorten(s: string, first: boolean, last: boolean): string {
  if (s.length <= CONTEXT * 2) return s;
  if (first) return `…${s.slice(-CONTEXT)}`;
  if (last) return `${s.slice(0, CONTEXT)}…`;
  return `${s.slice(0, CONTEXT)}…${s.slice(-CONTEXT)}`;
}

function prefixed(text: string, mark: string, colour: (s: string) => string): string[] {
  return text.split('\n').map((l) => colour(`${mark}${l}`));
}
