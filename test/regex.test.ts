/** Patterns that backtrack exponentially (src/pipeline/validate/regex.ts): refused by validate as TS041. */
import { describe, expect, it } from 'vitest';
import { backtracksExponentially } from '../src/pipeline/validate/regex.js';

describe('patterns that backtrack exponentially', () => {
  it.each([
    '^([a-z]+)+$',
    '^(x+x+)+y$',
    '^(\\w+\\s?)*$',
    '^((ab)*)*$',
    '^(a+)*b',
    '(.*,)*x',
    // A delimiter the inner repetition can consume proves nothing.
    '^(,.*)*x',
    '^(-[a-z-]+)*$',
    // Alternatives that read the same text, under a repetition.
    '^(\\w|\\d)+$',
    '^(a|a)*$',
    '^(?:a|a?)+$',
    '^([a-z]|[a-f0-9])+$',
    '^(?:\\p{L}|[a-z])+$',
    '^(?:a|b|ab)+$',
    // Optional parts that can take turns.
    '^(a?a?)+$',
    // Inside a lookaround, and behind a bounded repetition (counted as unbounded).
    '^(?=(a|a)+$)',
    '^(?:\\d{1,3}\\.?){4}$',
    '^(a|a){30}$',
  ])('%s is refused', (pattern) => {
    expect(backtracksExponentially(pattern)).toBe('exponential');
  });

  it.each([
    '^[a-z]+$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    // Every round of the outer repetition starts with a delimiter no inner repetition consumes: one split only.
    '^[a-z0-9]+(?:-[a-z0-9]+)*$',
    '^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$',
    '^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$',
    '^(-a*-)*$',
    '^(?:[+-]\\d+)+$',
    '^\\d{1,3}(\\.\\d{1,3}){3}$',
    '^(?:a|b)+$',
    '^(a?)*$',
    '^\\p{Lu}\\p{Ll}+(?: \\p{Lu}\\p{Ll}+)*$',
    '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
    '^(?:foo|bar|baz)(?:,(?:foo|bar|baz))*$',
  ])('%s is accepted', (pattern) => {
    expect(backtracksExponentially(pattern)).toBeUndefined();
  });

  it('leaves a pattern that is not one to ajv, and calls one too large to decide unproven', () => {
    expect(backtracksExponentially('^(a')).toBeUndefined();
    expect(backtracksExponentially('a?'.repeat(5000))).toBe('unproven');
  });
});
