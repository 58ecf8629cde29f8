/** Rules about tool names: their length, and one naming style across the server. */
import type { Found, Rule } from '../types.js';
import { nameWords } from '../words.js';

/** Many clients and model APIs refuse longer tool names. */
export const CLIENT_NAME_LIMIT = 64;

export const longToolName: Rule = {
  id: 'long-tool-name',
  severity: 'warning',
  summary: `a tool name over ${CLIENT_NAME_LIMIT} characters`,
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => t.name.length > CLIENT_NAME_LIMIT)
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['name']),
        message: `tool name "${tool.name}" is ${tool.name.length} characters long`,
        hint: `many clients and model APIs refuse tool names over ${CLIENT_NAME_LIMIT} characters (and some prefix the server's name); shorten it`,
      })),
};

export type NameStyle = 'snake_case' | 'kebab-case' | 'camelCase' | 'PascalCase' | 'SCREAMING_SNAKE_CASE';

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Each style: what a name in it looks like, and how it writes a name's words (in the order names are tried). */
const STYLES: Record<NameStyle, [RegExp, (words: string[]) => string]> = {
  snake_case: [/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/, (w) => w.join('_')],
  'kebab-case': [/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/, (w) => w.join('-')],
  camelCase: [/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/, (w) => w.map((x, i) => (i ? cap(x) : x)).join('')],
  PascalCase: [/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*$/, (w) => w.map(cap).join('')],
  SCREAMING_SNAKE_CASE: [/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/, (w) => w.join('_').toUpperCase()],
};
const NAME_STYLES = Object.keys(STYLES) as NameStyle[];

/** One lower-case word fits snake_case, kebab-case and camelCase alike. */
const LOWER_WORD = /^[a-z][a-z0-9]*$/;
const FITS_LOWER_WORD: ReadonlySet<NameStyle> = new Set(['snake_case', 'kebab-case', 'camelCase']);

/**
 * The style of a name: each dot-separated part (a namespace such as "github.create_issue") must have the same
 * one. "lower" is a single lower-case word; "mixed" is a name that mixes styles itself ("get_userInfo").
 */
export function nameStyle(name: string): NameStyle | 'lower' | 'mixed' {
  const found = new Set<NameStyle | 'lower' | 'mixed'>();
  for (const part of name.split('.').filter(Boolean))
    found.add(LOWER_WORD.test(part) ? 'lower' : (NAME_STYLES.find((s) => STYLES[s][0].test(part)) ?? 'mixed'));
  found.delete('lower');
  return found.size > 1 ? 'mixed' : ([...found][0] ?? 'lower');
}

/** `name` rewritten in `style`, namespaces kept. */
export function restyle(name: string, style: NameStyle): string {
  return name
    .split('.')
    .map((part) => STYLES[style][1](nameWords(part)))
    .join('.');
}

export const mixedNameStyle: Rule = {
  id: 'mixed-name-style',
  severity: 'warning',
  summary: 'tool names that do not follow the style most names of the server use (snake_case, camelCase, …)',
  check: (ctx) => {
    const styled = ctx.model.tools.map((tool) => ({ tool, style: nameStyle(tool.name) }));
    // The server's style: the most common one; on a tie, the one the first of them uses.
    const counts = new Map<NameStyle, number>();
    for (const { style } of styled)
      if (style !== 'lower' && style !== 'mixed') counts.set(style, (counts.get(style) ?? 0) + 1);
    let main: NameStyle | undefined;
    for (const [style, n] of counts) if (main === undefined || n > counts.get(main)!) main = style;
    const out: Found[] = [];
    for (const { tool, style } of styled) {
      if (style === main || (style === 'lower' && (main === undefined || FITS_LOWER_WORD.has(main)))) continue;
      if (main === undefined && style !== 'mixed') continue;
      const what =
        style === 'mixed' ? 'mixes naming styles' : style === 'lower' ? 'is one lower-case word' : `is ${style}`;
      const most = main ? `, but ${counts.get(main)} of the server's ${ctx.model.tools.length} tools use ${main}` : '';
      const renamed = restyle(tool.name, main ?? 'snake_case');
      out.push({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['name']),
        message: `tool name "${tool.name}" ${what}${most}`,
        hint:
          renamed === tool.name
            ? 'use one naming style for every tool of the server, so that a model can guess names right'
            : `rename it to "${renamed}": one style across the server lets a model guess names right`,
      });
    }
    return out;
  },
};
