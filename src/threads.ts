/**
 * How many threads a batch of independent, pure jobs is spread over (the loader's schema verdicts, the types of each
 * tool), and where a worker's module is. Used by validate/parallel.ts and emit/types.ts; the output never depends on
 * the number of threads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './paths.js';

/**
 * Threads for `count` jobs: `wanted`, else TOOLSPEC_THREADS, else the machine's cores; one when fewer than `min`
 * jobs (a thread's start, loading its modules, would cost more than it saves), and never fewer than `per` jobs a
 * thread.
 */
export function threadsFor(count: number, min: number, per: number, wanted?: number): number {
  const env = Number(process.env['TOOLSPEC_THREADS']);
  const threads = wanted ?? (Number.isInteger(env) && env > 0 ? env : os.availableParallelism());
  if (count < min || threads <= 1) return 1;
  return Math.max(1, Math.min(threads, Math.floor(count / per)));
}

const found = new Map<string, string | null>();

/**
 * A worker module by its path below `src/` (`validate/parallel-worker.js`): beside the caller when running built,
 * else the build's (the tests run the sources). Undefined when there is none: the caller stays on one thread.
 */
export function workerModule(below: string, from: string): string | undefined {
  if (!found.has(below)) {
    const here = fileURLToPath(new URL(path.basename(below), from));
    const built = path.join(packageRoot, 'dist/src', below);
    found.set(below, [here, built].find((f) => f.endsWith('.js') && fs.existsSync(f)) ?? null);
  }
  return found.get(below) ?? undefined;
}
