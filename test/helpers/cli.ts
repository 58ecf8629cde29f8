import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const bin = path.join(repoRoot, 'bin', 'toolspec.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (npm test builds first) as a user would, without a terminal. */
export function runCli(args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI's main() in this process (no Node start-up): for tests where a real process is not the point. */
export async function runMain(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const { main } = await import('../../src/cli.js');
  const { Writable } = await import('node:stream');
  const sink = () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer | string, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    return { stream, text: () => chunks.join('') };
  };
  const stdout = sink();
  const stderr = sink();
  const code = await main(['node', 'toolspec', ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { NO_COLOR: '', ...env },
    cwd,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
