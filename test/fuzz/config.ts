/**
 * How many cases the property tests run, and from which seed. CI runs a bounded, fixed-seed number of cases, so
 * a red run reproduces; `npm run fuzz` (FUZZ=1) runs many more from a fresh seed. A failure prints its seed:
 * rerun it with FUZZ_SEED=<seed> (and FUZZ_PATH=<path> to jump straight to the shrunk case).
 */
import type { Parameters } from 'fast-check';

const long = process.env['FUZZ'] === '1';
const seedEnv = process.env['FUZZ_SEED'];

/** The seed of this run: FUZZ_SEED, else a fresh one for long runs, else a fixed one. */
export const seed = seedEnv !== undefined ? Number(seedEnv) : long ? (Date.now() ^ (process.pid << 16)) | 0 : 20261130;

/** fast-check parameters for a property worth `ciRuns` cases in CI; `npm run fuzz` multiplies them. */
export function fuzzParams<T>(ciRuns: number): Parameters<T> {
  const path = process.env['FUZZ_PATH'];
  return {
    seed,
    numRuns: long ? ciRuns * Number(process.env['FUZZ_FACTOR'] ?? 50) : ciRuns,
    ...(path ? { path } : {}),
    verbose: 1,
  };
}

/** Long runs get a longer vitest timeout per test. */
export const fuzzTimeout = (ciMs: number): number => (long ? ciMs * 60 : ciMs);
