/**
 * The handler half of a full check (coverage, contracts, prompt and resource modules) run beside the main thread,
 * which meanwhile loads the spec and regenerates in memory: a CI machine without the local cache pays for the type
 * checker and the generator at the same time instead of one after the other.
 *
 * The worker checks the handlers against the contract modules on disk, before the main thread knows what the spec
 * generates. Its findings are used only when those modules turn out byte for byte what the spec generates now (the
 * usual case: generated files current); then the program it checked is the one the in-memory check would build, and
 * its findings are the same. Otherwise (a stale contract) the worker is stopped and the check runs again in
 * process, against the contract in memory. A machine with one core, or toolspec run from its sources (no built
 * worker module), checks in process as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { OutputFile } from '../emit/generate.js';
import { CONTRACT_MODULES } from './cache.js';
import type { Finding } from './findings.js';
import type { CheckSubject } from './subject.js';

export type WorkerRequest =
  | { kind: 'warm'; rootDir: string }
  | { kind: 'check'; subject: CheckSubject; cwd: string; specPath: string | undefined };

export type WorkerReply = { ok: true; findings: Finding[] } | { ok: false; error: string };

/** A handler check under way in the worker, and the contract modules it reads. */
export interface EarlyCheck {
  findings: Promise<Finding[]>;
  /** The contract modules as the worker reads them (undefined: not on disk). */
  disk: Map<string, string | undefined>;
}

export class CheckWorker {
  readonly #worker: Worker;
  #settle: ((reply: WorkerReply) => void) | undefined;
  #closed = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: WorkerReply) => this.#answer(reply));
    worker.on('error', (error) => this.#answer({ ok: false, error: error.stack ?? error.message }));
    worker.on('exit', (code) => this.#answer({ ok: false, error: `the check's worker stopped (exit code ${code})` }));
    // Warming up alone must never keep the process alive; a check under way does (ref() in check()).
    worker.unref();
  }

  /** A worker warming up for the project in rootDir, or undefined where the check runs in process. */
  static start(rootDir: string, cores = os.availableParallelism()): CheckWorker | undefined {
    if (cores < 2) return undefined;
    const url = new URL('./worker.js', import.meta.url);
    if (url.protocol !== 'file:' || !fs.existsSync(fileURLToPath(url))) return undefined;
    try {
      const w = new CheckWorker(new Worker(url));
      w.#worker.postMessage({ kind: 'warm', rootDir } satisfies WorkerRequest);
      return w;
    } catch {
      return undefined;
    }
  }

  /** Starts checkHandlers(subject, cwd, <the generated folder on disk>, specPath) in the worker. */
  check(subject: CheckSubject, cwd: string, specPath: string | undefined): EarlyCheck {
    const disk = new Map<string, string | undefined>();
    for (const name of CONTRACT_MODULES) {
      const abs = path.join(subject.generatedDir, name);
      let text: string | undefined;
      try {
        text = fs.readFileSync(abs, 'utf8');
      } catch {
        text = undefined;
      }
      disk.set(abs, text);
    }
    const findings = new Promise<Finding[]>((resolve, reject) => {
      if (this.#closed || this.#settle) return reject(new Error("the check's worker is not available"));
      this.#settle = (reply) => (reply.ok ? resolve(reply.findings) : reject(new Error(reply.error)));
    });
    findings.catch(() => undefined); // a check nobody waits for (a stale contract) may fail unobserved
    this.#worker.ref();
    this.#worker.postMessage({ kind: 'check', subject, cwd, specPath } satisfies WorkerRequest);
    return { findings, disk };
  }

  #answer(reply: WorkerReply): void {
    const settle = this.#settle;
    this.#settle = undefined;
    this.#worker.unref();
    settle?.(reply);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#worker.terminate();
  }
}

/** Whether the worker's check read the contract the spec generates now: each contract module the same bytes. */
export function sameContract(early: EarlyCheck, rootDir: string, files: readonly OutputFile[]): boolean {
  for (const f of files) {
    if (f.kind !== 'generated') continue;
    const abs = path.resolve(rootDir, f.path);
    if (early.disk.has(abs) && early.disk.get(abs) !== f.contents) return false;
  }
  return true;
}
