/** A thread of emit/types.ts: takes pieces from the shared counter until none is left, posts each one's types back. */
import { parentPort, workerData } from 'node:worker_threads';
import { typesOf } from './types.js';

const { pieces, control } = workerData as { pieces: Record<string, unknown>[]; control: SharedArrayBuffer };
const counter = new Int32Array(control);
for (let i = Atomics.add(counter, 0, 1); i < pieces.length; i = Atomics.add(counter, 0, 1)) {
  let text: string | null;
  try {
    text = await typesOf(pieces[i]!);
  } catch {
    text = null; // computed again on the main thread, where the failure takes the whole-schema path
  }
  parentPort!.postMessage([i, text]);
}
parentPort!.postMessage('done');
