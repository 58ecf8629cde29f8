/**
 * The tool table of a Markdown file (options.toolTables): what stands between the marker lines is toolspec's,
 * rewritten by generate and compared by check; the rest of the file is the user's and is kept byte for byte.
 */
import type { ServerModel, ToolModel } from '../pipeline/model.js';
import { plural } from '../report/text.js';

export const TABLE_START = '<!-- toolspec:tools -->';
export const TABLE_END = '<!-- /toolspec:tools -->';

/** A description's first line is cut near this many characters, at a sentence's end when one is close. */
const DESCRIPTION_CHARS = 120;

/** The table, its lines joined by `\n`: one row per tool in the spec's order, then a line with the totals. */
export function toolTable(model: ServerModel, tokens: ReadonlyMap<string, number>, encoding: string): string {
  const rows = model.tools.map((tool) => {
    const cells = [
      `\`${tool.name}\``,
      cell(tool.definition.title ?? tool.definition.annotations?.title ?? ''),
      cell(oneLine(tool.definition.description ?? '')),
      annotations(tool).join(', '),
      String(tokens.get(tool.name) ?? 0),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const total = model.tools.reduce((sum, tool) => sum + (tokens.get(tool.name) ?? 0), 0);
  return [
    '| Tool | Title | Description | Annotations | Tokens |',
    '| --- | --- | --- | --- | ---: |',
    ...rows,
    '',
    `${plural(model.tools.length, 'tool')}, ${total} tokens as a model reads them (name, description and input schema; ${encoding}).`,
  ].join('\n');
}

/** The hints a client shows, in words; a hint left out or false says nothing. */
function annotations(tool: ToolModel): string[] {
  const a = tool.definition.annotations ?? {};
  return [
    ...(a.readOnlyHint ? ['read-only'] : []),
    ...(a.destructiveHint && !a.readOnlyHint ? ['destructive'] : []),
    ...(a.idempotentHint ? ['idempotent'] : []),
    ...(a.openWorldHint ? ['open world'] : []),
    ...(tool.task ? [`task (${tool.task})`] : []),
  ];
}

/** The first line of a description, cut at a sentence's end (or a word's) when it is long. */
export function oneLine(description: string): string {
  const first = description.trim().split(/\r?\n/, 1)[0]!.trim();
  if (first.length <= DESCRIPTION_CHARS) return first;
  const head = first.slice(0, DESCRIPTION_CHARS);
  const sentence = head.search(/[.!?](\s|$)[^.!?]*$/);
  if (sentence >= DESCRIPTION_CHARS / 2) return head.slice(0, sentence + 1);
  const space = head.lastIndexOf(' ');
  return `${(space > 0 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** Text in a table cell: one line, no HTML, no column break. */
function cell(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[&<>\\|]/g, (c) => CELL_ESCAPES[c]!);
}

const CELL_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\\': '\\\\', '|': '\\|' };

export type Spliced = { text: string } | { line: number; column: number; message: string; hint: string };

/**
 * `text` with the table between its marker lines (each alone on its line, once): the lines in between replaced,
 * a blank line on each side, the file's own line ending kept. Anything else is a problem at its place.
 */
export function spliceTable(text: string, table: string): Spliced {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // Lines at even indexes, each followed by its own line ending: the bytes outside the table stay as they are.
  const parts = text.split(/(\r?\n)/);
  const lines = parts.filter((_, i) => i % 2 === 0);
  const at = (marker: string) => lines.flatMap((l, i) => (l.trim() === marker ? [i] : []));
  const starts = at(TABLE_START);
  const ends = at(TABLE_END);
  const markers = `${TABLE_START} and ${TABLE_END}, each on a line of its own`;
  const place = (i: number) => ({ line: i + 1, column: lines[i]!.indexOf('<') + 1 });
  if (!starts.length)
    return {
      line: 1,
      column: 1,
      message: `has no ${TABLE_START} line, where the tool table goes`,
      hint: `add the two lines ${markers}, where the table should stand; generate fills in what is between them`,
    };
  if (starts.length > 1 || ends.length > 1)
    return {
      ...place(starts.length > 1 ? starts[1]! : ends[1]!),
      message: "has the tool table's markers more than once",
      hint: `keep one pair: ${markers}`,
    };
  const [start] = starts as [number];
  const end = ends[0];
  if (end === undefined || end < start)
    return {
      ...place(start),
      message: `has ${TABLE_START} without a ${TABLE_END} line after it`,
      hint: `add ${TABLE_END} on a line of its own where the table should end`,
    };
  const middle = `${eol}${table.split('\n').join(eol)}${eol}${eol}`;
  return { text: parts.slice(0, 2 * start + 2).join('') + middle + parts.slice(2 * end).join('') };
}
