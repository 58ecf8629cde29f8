/**
 * The verdicts of a load's schema jobs (judge.ts): computed, or taken from the cache when the caller opened one
 * (generate does; check and the reporting commands do not). A verdict is plain JSON and a function of its job alone,
 * so a kept one is what computing it gives (test/cache.test.ts holds the two paths to the same bytes and diagnostics).
 */
import type { Cache } from '../../cache/store.js';
import { judge, type JudgeJob, type Verdict } from './judge.js';

export function resolveVerdicts(jobs: readonly JudgeJob[], cache?: Cache): Verdict[] {
  const found = new Map<string, Verdict>();
  return jobs.map((job) => {
    // forAjv is `bundled` without $schema and $id (schemas.ts): the rest of the job names it, at half the length.
    const input = JSON.stringify({ ...job, forAjv: undefined });
    let verdict = found.get(input) ?? asVerdict(cache?.get('verdict', input));
    if (!verdict) {
      verdict = judge(job);
      cache?.put('verdict', input, JSON.stringify(verdict));
    }
    found.set(input, verdict);
    return verdict;
  });
}

/** A kept entry, if it parses to a verdict's shape. */
function asVerdict(text: string | undefined): Verdict | undefined {
  try {
    const v = text === undefined ? undefined : (JSON.parse(text) as Partial<Verdict> | null);
    return Array.isArray(v?.meta) ? (v as Verdict) : undefined;
  } catch {
    return undefined;
  }
}
