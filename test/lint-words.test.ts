/** The word splitting of the description rules (src/lint/words.ts): its fast path is the plain one. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameWords, textWords } from '../src/lint/words.js';

/** textWords as it was before its fast path: every word through nameWords. */
const plain = (text: string) =>
  (text.match(/[\p{L}\p{N}]+(?:'\p{L}+)?/gu) ?? []).flatMap((w) => nameWords(w.replace(/'\p{L}+$/u, '')));

const pieces = fc.constantFrom(
  ...['a', 'Z', 'getUser', 'HTTPServer', 'ID', 'x2Y', "it's", "O'Neil", '_', '-', '.', ' ', '\u00a0', '\n', 'é', 'É'],
  ...['検索', 'ß', 'İ', '𝐀', '😀', 'Σ', "'", '9', 'ǅ', 'ﬀ', 'a\u0301', 'ABCdef', 'abcDEF', 'snake_Case'],
);

describe('textWords', () => {
  it('gives what nameWords gives word by word, on text of every script, case and separator', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.array(pieces, { maxLength: 30 }).map((a) => a.join('')),
        ),
        (text) => {
          expect(textWords(text)).toEqual(plain(text));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
