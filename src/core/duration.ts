/** Durations in the spec ("500ms", "30s", "2m", "1h"). */
import { diagnostic, type Diagnostics, type Span } from './diagnostics.js';

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The longest timeout the spec accepts: a day (timers cannot wait much longer than 24 days anyway). */
export const MAX_DURATION_MS = 24 * UNITS.h;

/** Milliseconds of a duration the spec schema has accepted already; undefined when it is not one. */
export function parseDuration(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^([1-9][0-9]*)(ms|s|m|h)$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2] as keyof typeof UNITS] : undefined;
}

/** A timeout (the spec schema has checked its form): at most a day. */
export function checkTimeout(value: unknown, pos: Span, diags: Diagnostics): number | undefined {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= MAX_DURATION_MS) return ms;
  diags.add(
    diagnostic(
      'TS009',
      pos,
      `timeout ${String(value)} is longer than a day`,
      'use at most 24h; a call that may take longer should be a task',
    ),
  );
  return undefined;
}
