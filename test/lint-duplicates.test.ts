/**
 * duplicate-description finds, for each tool, the first earlier one whose description it resembles, through an
 * index of rare words rather than every pair (src/lint/rules/descriptions.ts). Held here to the plain loop over
 * every earlier description, on drawn lists where near-duplicates, identical texts and short ones are common.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DUPLICATE_SIMILARITY, firstResembling, similarity } from '../src/lint/rules/descriptions.js';
import { contentWords, stem } from '../src/lint/words.js';

const described = (text: string) => ({
  words: new Set(contentWords(text).map(stem)),
  norm: text.trim().toLowerCase().replace(/\s+/g, ' '),
});

/** The rule as it was written: every earlier description, in order, until one resembles. */
function plainFirst(list: ReturnType<typeof described>[]): (number | undefined)[] {
  return list.map((b, j) => {
    for (let i = 0; i < j; i++) if (similarity(list[i]!, b) >= DUPLICATE_SIMILARITY) return i;
    return undefined;
  });
}

const words = (vocab: string) => fc.constantFrom(...vocab.split(' '));
const many = words('orders order records fetch fetches shard store stream chunk export cursor page the a of Return');
// Few words, so that most pairs are near each other (sets of up to six stems).
const few = words('orders records fetch shard store stream export');
const text = fc
  .tuple(
    fc.oneof(fc.array(many, { maxLength: 14 }), fc.array(few, { minLength: 2, maxLength: 9 })),
    fc.constantFrom(' ', '  ', '\n'),
    fc.boolean(),
  )
  .map(([list, gap, upper]) => (upper ? list.join(gap).toUpperCase() : list.join(gap)));

/** Lists made of a few texts, each again as it is, with a word less or one more, or another text beside them. */
const lists = fc.array(text, { minLength: 1, maxLength: 3 }).chain((bases) =>
  fc
    .array(fc.tuple(fc.nat(bases.length - 1), fc.constantFrom('same', 'drop', 'add', 'other'), text), {
      maxLength: 40,
    })
    .map((items) =>
      items.map(([k, op, other]) => {
        const base = bases[k]!;
        if (op === 'same') return base;
        if (op === 'drop') return base.split(' ').slice(1).join(' ');
        return op === 'add' ? `${base} cursor` : other;
      }),
    ),
);

describe('duplicate descriptions', () => {
  it('are found as the plain loop over every earlier one finds them', () => {
    let [same, near] = [0, 0];
    fc.assert(
      fc.property(lists, (texts) => {
        const list = texts.map(described);
        const fast = firstResembling(list);
        expect(fast).toEqual(plainFirst(list));
        fast.forEach((i, j) => {
          if (i === undefined) return;
          if (list[i]!.norm === list[j]!.norm) same++;
          else near++;
        });
      }),
      { numRuns: 1500, seed: 23 },
    );
    // The draws do hold both kinds.
    expect(same).toBeGreaterThan(1000);
    expect(near).toBeGreaterThan(500);
  });
});
