/**
 * The two kinds of matching a request can make the server do, against the clock. URI templates: a near-miss of a
 * megabyte against every template shape that backtracked (two variables around a literal their characters allow)
 * is refused well within a second (the regex they compiled to took about 20 minutes). TS041 (patterns that
 * validate but cost seconds per call): each shape validate refuses is
 * shown to be exponential in the real engine on a 25-character near-miss (0.5–3 s here, refused well below
 * that: a loaded machine is slower, never faster), and each shape it accepts answers a 100,000-character near-miss
 * quickly. The engine is the server's own: V8's irregexp with the `u` flag, as ajv compiles a `pattern`.
 */
import { describe, expect, it } from 'vitest';
import { backtracksExponentially, linearProgram } from '../../src/pipeline/validate/regex.js';
import { linearPattern } from '../../templates/runtime/arguments.js';
import { compileUriTemplate, parseUriTemplate } from '../../templates/runtime/uri-template.js';

const elapsed = (pattern: string, text: string) => {
  const re = new RegExp(pattern, 'u');
  const start = performance.now();
  re.test(text);
  return performance.now() - start;
};

describe('URI templates and the time a match takes', () => {
  it.each([
    ['fx://pair/{owner}-{repo}', 'fx://pair/' + '-'.repeat(1 << 20) + '/'],
    ['fx://f/{name}.{ext}', 'fx://f/' + '.'.repeat(1 << 20) + '/'],
    ['fx://l/{a},{b}', 'fx://l/' + ','.repeat(1 << 20) + '/'],
    ['fx://t/{+dir}/{+file}', 'fx://t/' + '/'.repeat(1 << 20) + '#'],
    ['fx://q/{a}-{b}{?x}', 'fx://q/' + '-'.repeat(1 << 20) + '/?x=1'],
  ])('%s refuses a near-miss of a megabyte in under a second', (source, uri) => {
    const parsed = parseUriTemplate(source);
    if ('error' in parsed) throw new Error(parsed.error.message);
    const matcher = compileUriTemplate(parsed.template);
    const start = performance.now();
    expect(matcher.match(uri)).toBeUndefined();
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe('TS041 and the time a pattern takes', () => {
  it.each([
    ['^(\\w|\\d)+$', '1'],
    ['^(a|a)*$', 'a'],
    ['^(?:a|a?)+$', 'a'],
    ['^([a-z]|[a-f0-9])+$', 'a'],
    ['^([a-z]+)+$', 'a'],
    ['^(\\w+\\s?)*$', 'a'],
  ])('%s is refused, and a near-miss of 25 characters takes the engine over 50 ms', (pattern, char) => {
    expect(backtracksExponentially(pattern)).toBe('exponential');
    expect(elapsed(pattern, char.repeat(24) + '!')).toBeGreaterThan(50);
  });

  it.each([
    ['^[a-z0-9]+(?:-[a-z0-9]+)*$', 'a-'],
    ['^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$', 'a.'],
    ['^(?:[+-]\\d+)+$', '+1'],
    ['^"(?:[^"\\\\]|\\\\.)*"$', '"\\\\'],
    ['^\\p{Lu}\\p{Ll}+(?: \\p{Lu}\\p{Ll}+)*$', 'Ab '],
  ])('%s is accepted, and a near-miss of 100,000 characters takes the engine under a second', (pattern, unit) => {
    expect(backtracksExponentially(pattern)).toBeUndefined();
    expect(elapsed(pattern, unit.repeat(100_000 / unit.length) + '\u0000')).toBeLessThan(1000);
  });
});

describe('the linear-time matcher the generated validators use, against polynomial backtracking', () => {
  // Shapes TS041 accepts (they are not exponential) but V8 backtracks on polynomially: cubic and quadratic.
  it.each([
    ['\\d+\\d+$', '1', 1_000],
    ['^[a-z]+[a-z0-9]*$', 'a', 50_000],
    ['^(?:a|b)*a(?:a|b)*b$', 'a', 30_000],
  ])(
    '%s: V8 takes over 100 ms on a near-miss of %s × %i, the linear matcher answers 100,000 characters in under a second',
    (pattern, unit, slow) => {
      expect(backtracksExponentially(pattern)).toBeUndefined();
      expect(elapsed(pattern, unit.repeat(slow) + '!')).toBeGreaterThan(100);
      const matcher = linearPattern(linearProgram(pattern)!);
      const text = unit.repeat(100_000) + '!';
      const start = performance.now();
      expect(matcher.test(text)).toBe(false);
      expect(performance.now() - start).toBeLessThan(1000);
      expect(matcher.test(unit.repeat(1000) + (pattern.endsWith('b$') ? 'b' : unit))).toBe(true);
    },
  );
});
