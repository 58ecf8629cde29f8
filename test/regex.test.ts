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
  ])('%s is refused', (pattern) => {
    expect(backtracksExponentially(pattern)).toBe(true);
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
  ])('%s is accepted', (pattern) => {
    expect(backtracksExponentially(pattern)).toBe(false);
  });
});
