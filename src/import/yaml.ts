/**
 * The imported spec as YAML a person would keep: block style, the server's order, a blank line between tools, short
 * lists of scalars on one line, long descriptions as folded block scalars (`>-`) and text with line breaks as
 * literal ones (`|`). Written with the `yaml` package's Document API, and read back before it is returned: the text
 * must parse to exactly the data it was made from.
 */
import { Document, isMap, isScalar, isSeq, parse, visit } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { unicodeEscape } from '../core/visible.js';

/** Longer descriptions than this become folded block scalars. */
const FOLD_AFTER = 80;
const LINE_WIDTH = 100;
/** Lists of scalars whose JSON is at most this long go on one line. */
const FLOW_LIST_MAX = 60;
const TEXT_KEYS = new Set(['description', 'instructions']);
/** Characters a person cannot see or an editor may change: such text stays double-quoted, with escapes. */
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u2060\u3000\ufeff]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'g');

/** `data` as YAML, under the `header` comment lines (without "# "). */
export function specYaml(data: Record<string, unknown>, header: string[]): string {
  for (const styled of [true, false]) {
    const text = render(data, header, styled);
    const back: unknown = parse(text, { uniqueKeys: true, strict: true });
    if (isDeepStrictEqual(back, data)) return text;
  }
  // The plain rendering is the yaml package's own round trip; a difference there is a bug to report.
  throw new Error('the YAML written for the imported spec does not read back as the same data');
}

function render(data: Record<string, unknown>, header: string[], styled: boolean): string {
  const doc = new Document(data);
  doc.commentBefore = header.map((l) => (l ? ` ${l}` : '')).join('\n');
  if (isMap(doc.contents)) {
    doc.contents.items.forEach((pair, i) => {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (i > 0 && isScalar(pair.key)) pair.key.spaceBefore = true;
      if (key === 'tools' && isSeq(pair.value))
        pair.value.items.forEach((tool, j) => j > 0 && isMap(tool) && (tool.spaceBefore = true));
      if (key === 'options' && isMap(pair.value)) {
        const pageSize = pair.value.get('pageSize');
        const notes: Record<string, string | undefined> = {
          pageSize: `the server sends its tools ${String(pageSize)} per tools/list page`,
          refs: "the server's schemas refer with $ref: sent as they are",
        };
        for (const p of pair.value.items)
          if (isScalar(p.key) && isScalar(p.value) && notes[String(p.key.value)])
            p.value.comment = ` ${notes[String(p.key.value)]}`;
      }
    });
  }
  visit(doc, {
    // Literal for text with line breaks, folded for long descriptions; the Scalar visitor, which comes after, quotes
    // the text where a block scalar could mislead.
    Pair(_, { key, value }) {
      if (!styled || !isScalar(value) || typeof value.value !== 'string') return;
      const text = value.value;
      // A leading space would need an indentation indicator (`>2-`): correct, but easy to break when edited.
      if (/^ /.test(text)) return;
      if (text.includes('\n')) value.type = 'BLOCK_LITERAL';
      else if (isScalar(key) && TEXT_KEYS.has(String(key.value)) && text.length > FOLD_AFTER && !/ {2}/.test(text))
        value.type = 'BLOCK_FOLDED';
    },
    Seq(_, seq) {
      if (!styled) return;
      const scalars = seq.items.every((item) => isScalar(item) && !String(item.value).includes('\n'));
      if (scalars && seq.items.length > 0 && JSON.stringify(seq.toJSON()).length <= FLOW_LIST_MAX) seq.flow = true;
    },
    Scalar(_, node) {
      // Keys, list items and values alike: text with invisible characters or tabs is double-quoted, with escapes, and
      // so is text whose line breaks the yaml package would write as a block with trailing spaces.
      if (typeof node.value === 'string' && !readableAsIs(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  const text = doc.toString({
    lineWidth: LINE_WIDTH,
    minContentWidth: 40,
    flowCollectionPadding: false,
    doubleQuotedAsJSON: true,
  });
  // JSON leaves U+2028 and the like as they are; every string holding one is double-quoted (above), where an
  // escape means the same character, and in a comment the escape is only text.
  return text.replace(INVISIBLE_ALL, unicodeEscape);
}

/**
 * False for text that must be double-quoted: invisible characters, tabs and carriage returns would hide in the file,
 * and text with line breaks is written as a block scalar only when no line of it ends in spaces (editors strip them)
 * and its first line starts with text (a leading blank line or space would need indentation markers).
 */
function readableAsIs(text: string): boolean {
  if (INVISIBLE.test(text) || /[\t\r]/.test(text)) return false;
  return !text.includes('\n') || (/^\S/.test(text) && !/ \n/.test(text) && !text.endsWith(' '));
}
