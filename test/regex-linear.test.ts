/**
 * The generated validators match `pattern` with a linear-time engine (linearProgram at generate time,
 * linearPattern in the runtime) instead of V8's backtracking one, so no argument can make validation take
 * polynomial or exponential time. A shortcut must never change an answer: a property over random patterns (the
 * syntax a finite automaton can match: characters, classes, escapes, anchors, word boundaries, groups,
 * alternation, every quantifier) and random strings (with astral characters, lone surrogates and line
 * terminators) holds it equal to `new RegExp(pattern, 'u').test`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearProgram } from '../src/pipeline/validate/regex.js';
import { linearPattern } from '../templates/runtime/arguments.js';
import { fuzzParams } from './fuzz/config.js';

const atom = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', '-', '1', 'é', '😀', '\\.', '\\u{1F600}', '\\n') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '.',
      '\\d',
      '\\w',
      '\\s',
      '\\D',
      '\\W',
      '\\S',
      '[a-c]',
      '[^a]',
      '[\\d-]',
      '[😀-😂b]',
      '[^]',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom('^', '$', '\\b', '\\B') },
  { weight: 1, arbitrary: fc.constantFrom('\\p{Lu}', '\\P{L}', '[\\p{N}a]') },
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,3}', '{2,}', '*?', '+?', '{1,2}?');
const patternArbitrary: fc.Arbitrary<string> = fc.letrec<{ pattern: string; term: string }>((tie) => ({
  term: fc.oneof(
    { weight: 5, arbitrary: fc.tuple(atom, quantifier).map(([a, q]) => (/^[\^$]|^\\[bB]$/.test(a) ? a : a + q)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('(?:', '('), tie('pattern'), quantifier)
        .map(([open, inner, q]) => `${open}${inner})${q}`),
    },
  ),
  pattern: fc
    .array(
      fc.array(tie('term'), { minLength: 0, maxLength: 4 }).map((t) => t.join('')),
      {
        minLength: 1,
        maxLength: 3,
      },
    )
    .map((alternatives) => alternatives.join('|')),
})).pattern;

const stringArbitrary = fc
  .array(fc.constantFrom('a', 'b', 'c', '-', '1', '9', ' ', '\n', 'é', 'É', '😀', '😁', '\uD800', '\uDE00', 'A', '_'), {
    maxLength: 12,
  })
  .map((chars) => chars.join(''));

/** V8's answer, or undefined for a pattern V8 refuses (the loader refuses it too). */
function v8(pattern: string, text: string): boolean | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  return re.test(text);
}

describe('the linear-time pattern matcher', () => {
  it('answers as V8 does, for random patterns and strings', () => {
    let compared = 0;
    fc.assert(
      fc.property(patternArbitrary, fc.array(stringArbitrary, { minLength: 1, maxLength: 8 }), (pattern, texts) => {
        if (v8(pattern, '') === undefined) return;
        // Compiled up to 50 times larger here; generate leaves a program past 2,000 instructions to V8.
        const program = linearProgram(pattern, 100_000);
        if (!program) return void expect(linearProgram(pattern)).toBeUndefined();
        expect(linearProgram(pattern) === undefined, pattern).toBe(program.code.length / 3 > 2000);
        const matcher = linearPattern(program);
        for (const text of texts) {
          compared++;
          expect(matcher.test(text), `/${pattern}/u on ${JSON.stringify(text)}`).toBe(v8(pattern, text));
        }
      }),
      fuzzParams(400),
    );
    expect(compared).toBeGreaterThan(1000);
  });

  it.each([
    ['^[a-z0-9]+(?:-[a-z0-9]+)*$', ['my-slug', 'my--slug', '-x', 'x-', '', 'abc']],
    ['\\d+\\d+$', ['12', '1', 'x123', '12x']],
    ['^(a|a)*$', ['aaaa', 'aab', '']],
    ['\\bword\\b', ['a word here', 'swordfish', 'word']],
    ['^.$', ['😀', '\uD800', '\n', 'ab']],
    ['(?:)*x', ['x', '']],
    ['^(?:a*)*b$', ['aaab', 'aaa']],
    ['[^]{2,3}', ['ab', 'a']],
  ])('/%s/u', (pattern, texts) => {
    const matcher = linearPattern(linearProgram(pattern)!);
    for (const text of texts)
      expect(matcher.test(text), JSON.stringify(text)).toBe(new RegExp(pattern, 'u').test(text));
  });

  it('leaves to V8 what an automaton cannot match: lookarounds and backreferences', () => {
    for (const pattern of ['(?=a)a', '(?!b).', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?<x>a)\\k<x>'])
      expect(linearProgram(pattern), pattern).toBeUndefined();
    expect(linearProgram('[')).toBeUndefined();
  });
});
