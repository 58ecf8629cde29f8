/**
 * The type checking of `toolspec check`, in a worker thread (src/check/parallel.ts starts it). Messages run one at a
 * time, in order: `warm` loads the compiler and parses and binds the declarations every check of the project reads
 * (the compiler's lib, the tsconfig's `types`, the SDK the contract imports) while the main thread loads the spec;
 * `check` is checkHandlers() against the generated folder on disk, answered with its findings.
 */
import { parentPort } from 'node:worker_threads';
import { warmCompiler } from './contracts.js';
import { checkHandlers } from './handlers.js';
import type { WorkerReply, WorkerRequest } from './parallel.js';

const port = parentPort;
if (port) {
  let queue = Promise.resolve();
  port.on('message', (m: WorkerRequest) => {
    queue = queue.then(async () => {
      if (m.kind === 'warm') {
        // Only a head start: whatever fails here is met again, and reported, by the check itself.
        await warmCompiler(m.rootDir).catch(() => undefined);
        return;
      }
      let reply: WorkerReply;
      try {
        reply = { ok: true, findings: await checkHandlers(m.subject, m.cwd, undefined, m.specPath) };
      } catch (error) {
        reply = { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      }
      port.postMessage(reply);
    });
  });
}
