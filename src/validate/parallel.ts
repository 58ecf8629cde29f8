/**
 * Judging many schemas at once on worker threads, behind a synchronous call: the load stays one synchronous
 * function, so every command, the watch loop and the tests call it as before.
 *
 * The jobs go to every worker whole; each thread (this one too) takes the next job from a shared counter until none
 * is left, so a worker that is slow to start simply takes fewer. Results come back over one message port per worker,
 * read with `receiveMessageOnPort` while this thread waits on the shared counter of workers done. A verdict is a
 * function of its job alone (judge.ts), so which thread computed it changes no byte; a job whose verdict never comes
 * (a worker that died) is judged here at the end.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { threadsFor as threadCount, workerModule } from '../threads.js';
import { judge, type JudgeJob, type Verdict } from './judge.js';

/** Below this many missing verdicts, starting a thread (loading ajv there) costs more than it saves. */
export const PARALLEL_MIN = 32;
/** Each thread gets at least this many jobs: fewer would not pay for its start. */
const PER_THREAD = 16;

const workerFile = () => workerModule('validate/parallel-worker.js', import.meta.url);

/** How many threads judge `count` missing verdicts (see threads.ts). */
export function threadsFor(count: number, wanted?: number): number {
  return workerFile() ? threadCount(count, PARALLEL_MIN, PER_THREAD, wanted) : 1;
}

/** How long to wait without any verdict arriving before judging the rest here. */
const STALL_MS = 20_000;

export function judgeInParallel(jobs: readonly JudgeJob[], threads: number): Verdict[] {
  const control = new Int32Array(new SharedArrayBuffer(8)); // [next job, workers done]
  const ports: MessagePort[] = [];
  const workers: Worker[] = [];
  for (let i = 1; i < threads; i++) {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1);
    const worker = new Worker(workerFile()!, {
      workerData: { jobs, control: control.buffer, port: port2 },
      transferList: [port2],
    });
    worker.unref();
    workers.push(worker);
  }
  const out: (Verdict | undefined)[] = new Array(jobs.length);
  let left = jobs.length;
  const drain = () => {
    for (const port of ports) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        const [i, verdict] = m.message as [number, Verdict];
        if (out[i] === undefined) left--;
        out[i] = verdict;
      }
    }
  };
  for (let i = Atomics.add(control, 0, 1); i < jobs.length; i = Atomics.add(control, 0, 1)) {
    out[i] = judge(jobs[i]!);
    left--;
  }
  let quiet = 0;
  while (left > 0 && quiet < STALL_MS) {
    const before = left;
    drain();
    if (left === 0) break;
    const done = Atomics.load(control, 1);
    if (done === workers.length) {
      drain();
      break;
    }
    Atomics.wait(control, 1, done, 50);
    quiet = left === before ? quiet + 50 : 0;
  }
  drain();
  for (const w of workers) void w.terminate();
  for (const port of ports) port.close();
  return jobs.map((job, i) => out[i] ?? judge(job));
}
