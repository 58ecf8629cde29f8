/**
 * Servers a test runs as processes on 127.0.0.1: a free port, and a command started and waited for until its HTTP
 * endpoint answers, stopped with its whole process group (npm's launchers of Deno and workerd start the real
 * binary as a child).
 */
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';

/** A port free a moment ago on 127.0.0.1 (so a URL can name it before the server listens on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Served {
  /** http://127.0.0.1:<port><path> */
  url: string;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  /** Whether it has ended. */
  ended(): boolean;
  /** SIGTERM to its group (SIGKILL after 5 s, or at once with `signal` SIGKILL); resolves once it has ended. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface ServeOptions {
  cwd: string;
  port: number;
  env?: Record<string, string>;
  /** The path that must answer (any status) for it to count as serving; default /mcp. */
  path?: string;
}

/** Starts `command` and waits until http://127.0.0.1:port/path answers, failing with its output after 60 s. */
export async function serveProcess(command: string, args: string[], options: ServeOptions): Promise<Served> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (d: Buffer) => {
    if (output.length < 100_000) output += d.toString();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  const gone = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group has ended
    }
  };
  const url = `http://127.0.0.1:${options.port}${options.path ?? '/mcp'}`;
  const name = path.basename(command);
  const end = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} ended before serving:\n${output}`);
    if (Date.now() > end) {
      group('SIGKILL');
      throw new Error(`${name} did not serve ${url} in 60 s:\n${output}`);
    }
    const answered = await fetch(url, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (answered) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => output,
    ended: () => exited,
    async stop(signal = 'SIGTERM') {
      if (!exited) {
        group(signal);
        const timer = setTimeout(() => group('SIGKILL'), 5_000);
        await gone;
        clearTimeout(timer);
      }
      group('SIGKILL'); // a child its launcher left behind
    },
  };
}
