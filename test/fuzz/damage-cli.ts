/**
 * The CLI in process: `main` with captured streams, as the built binary would run it (no terminal, no colour).
 * `main` takes argv as the binary passes it, `node` and the script first.
 */
import { Writable } from 'node:stream';
import { main } from '../../src/cli.js';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

/** Runs `toolspec <args>` in `cwd` in this process. A throw from `main` propagates: callers treat it as a failure. */
export async function runMain(args: readonly string[], cwd: string): Promise<InProcessRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(['node', 'toolspec', ...args], { stdout, stderr, cwd, env: { NO_COLOR: '1' } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
