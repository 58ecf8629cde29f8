/** A long-running CLI command (generate --watch, dev) as a child process: its output so far, waits, and a stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { bin } from './cli.js';

export class Running {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    readonly dir: string,
    args: string[],
  ) {
    this.child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '' },
      stdio: ['pipe', 'pipe', 'pipe'], // stdin is not a terminal
    });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.on('exit', (code, signal) => (this.exit = { code, signal }));
  }

  /** The lines printed on stdout so far. */
  lines(): string[] {
    return this.stdout.split('\n').filter((l) => l !== '');
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill(signal);
    await until(() => this.exit !== undefined, `exit after ${signal}`, this);
    return this.exit!;
  }
}

/** Polls until `ok()`, failing with the process's output after `limitMs`, or at once if it ended unexpectedly. */
export async function until(ok: () => boolean, what: string, w: Running, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\nstdout:\n${w.stdout}\nstderr:\n${w.stderr}`);
    if (w.exit && !what.startsWith('exit'))
      throw new Error(
        `the process ended (${JSON.stringify(w.exit)}) before ${what}\nstdout:\n${w.stdout}\nstderr:\n${w.stderr}`,
      );
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
