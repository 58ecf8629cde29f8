/**
 * The verdicts of a load's schema jobs (judge.ts), found the cheapest way: kept in this process from an earlier load
 * (watch, dev), kept on disk from an earlier run (the store a command opens: src/piece-cache.ts), or computed, on
 * worker threads when enough are missing (parallel.ts). Every way gives the same verdict, so the output never
 * depends on which one answered.
 */
import { judge, jobKey, type JudgeJob, type Verdict } from './judge.js';
import { recall, remember } from './memo.js';
import { judgeInParallel, threadsFor } from './parallel.js';

/** Verdicts kept between runs. An entry it cannot vouch for (corrupt, another version of toolspec) is not given. */
export interface VerdictStore {
  /** What was kept under the key, as it was kept: checked for a verdict's shape before use. */
  get(key: string): unknown;
  /** Keeps the verdict for the next run; also how the store learns which entries this run used. */
  put(key: string, verdict: Verdict): void;
}

export interface JudgeOptions {
  store?: VerdictStore | undefined;
  /** Threads to compute missing verdicts on, this one included; `undefined`: as many as the machine has cores. */
  threads?: number | undefined;
}

export function resolveVerdicts(jobs: readonly JudgeJob[], opts: JudgeOptions = {}): Verdict[] {
  const keys = jobs.map(jobKey);
  const found = new Map<string, Verdict>();
  const missing = new Map<string, JudgeJob>();
  keys.forEach((key, i) => {
    if (found.has(key) || missing.has(key)) return;
    const kept = recall<Verdict>(key) ?? asVerdict(opts.store?.get(key));
    if (kept) found.set(key, kept);
    else missing.set(key, jobs[i]!);
  });
  const todo = [...missing];
  const threads = threadsFor(todo.length, opts.threads);
  const computed =
    threads > 1
      ? judgeInParallel(
          todo.map(([, job]) => job),
          threads,
        )
      : todo.map(([, job]) => judge(job));
  todo.forEach(([key], i) => found.set(key, computed[i]!));
  for (const [key, verdict] of found) {
    remember(key, verdict);
    opts.store?.put(key, verdict);
  }
  return keys.map((key) => found.get(key)!);
}

/** A kept value, if it has a verdict's shape (a key that named something else gives nothing). */
function asVerdict(value: unknown): Verdict | undefined {
  const v = value as Partial<Verdict> | undefined;
  return typeof v === 'object' && v !== null && Array.isArray(v.meta) ? (v as Verdict) : undefined;
}
