/**
 * Layout of generated code: prettier's shape, written by the emitters themselves (prettier runs only where a line
 * would not fit, format.ts), and the indentation of json-schema-to-typescript's unformatted output. Escaping of
 * what lands in the code is text.ts's.
 */

/** The print width of generated code: prettier's (format.ts) and the emitters' own line fitting. */
export const PRINT_WIDTH = 120;

/** `open a, b, c close` on one line when it fits, else one item per line with a trailing comma, as prettier does. */
export function fitOrBreak(open: string, items: readonly string[], close: string, indent = ''): string {
  const one = `${indent}${open}${items.join(', ')}${close}`;
  if (one.length <= PRINT_WIDTH || !items.length) return one;
  return `${indent}${open}\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}${close}`;
}

/** `head = value;` on one line when it fits, else broken after the `=` as prettier does. */
export function assignment(head: string, value: string): string {
  const one = `${head} = ${value};`;
  return one.length <= PRINT_WIDTH ? one : `${head} =\n  ${value};`;
}

/**
 * Indents code two spaces per level, as prettier would: json-schema-to-typescript without its prettier pass writes
 * one member per line, unindented. A line whose last token opens a bracket opens a level; a line whose first token
 * closes one sits at the level it closes. Tokens are found by a lexer that skips strings and comments, so a
 * description whose line ends in "{" opens nothing; the lines of a block comment sit at its level, their "*" one
 * space in. Chosen over prettier (~3 s) and TypeScript's printer (~1.3 s to load, ~1.2 s to print) on a 500-tool
 * spec's 2 MB of types, where this takes tens of milliseconds.
 */
export function indentByNesting(code: string): string {
  let depth = 0;
  let inComment = false;
  return code
    .split('\n')
    .map((raw) => {
      const line = raw.trim();
      const continuesComment = inComment;
      let firstToken = '';
      let lastToken = '';
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (inComment) {
          if (c === '*' && line[i + 1] === '/') {
            inComment = false;
            i++;
          }
          continue;
        }
        if (c === ' ' || c === '\t') continue;
        let token = c;
        if (c === '/' && line[i + 1] === '*') {
          inComment = true;
          i++;
          continue; // a comment is no token
        } else if (c === '/' && line[i + 1] === '/') {
          break;
        } else if (c === '"' || c === "'" || c === '`') {
          i = endOfString(line, i);
          token = 'string';
        }
        firstToken ||= token;
        lastToken = token;
      }
      if (CLOSERS.has(firstToken)) depth = Math.max(0, depth - 1);
      const level = depth;
      if (OPENERS.has(lastToken)) depth++;
      if (!line) return '';
      const pad = '  '.repeat(level);
      return continuesComment && line.startsWith('*') ? `${pad} ${line}` : pad + line;
    })
    .join('\n');
}

const OPENERS = new Set(['{', '[', '(']);
const CLOSERS = new Set(['}', ']', ')']);

/** The index of the quote that closes the string opening at `start` (or the line's last index). */
function endOfString(line: string, start: number): number {
  const quote = line[start];
  for (let i = start + 1; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === quote) return i;
  }
  return line.length - 1;
}
