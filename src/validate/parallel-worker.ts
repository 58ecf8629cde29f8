/** A thread of parallel.ts: takes jobs from the shared counter until none is left, posts each verdict back. */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { judge, type JudgeJob, type Verdict } from './judge.js';

const { jobs, control, port } = workerData as { jobs: JudgeJob[]; control: SharedArrayBuffer; port: MessagePort };
const counter = new Int32Array(control);
try {
  for (let i = Atomics.add(counter, 0, 1); i < jobs.length; i = Atomics.add(counter, 0, 1)) {
    let verdict: Verdict | undefined;
    try {
      verdict = judge(jobs[i]!);
    } catch {
      verdict = undefined; // left to the main thread, which judges any job that has no verdict
    }
    if (verdict) port.postMessage([i, verdict]);
  }
} finally {
  Atomics.add(counter, 1, 1);
  Atomics.notify(counter, 1);
}
