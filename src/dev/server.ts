/**
 * The server `toolspec dev` runs: the project's built entry point (`main.js --http`) in a child process, always on
 * the same address, so a client stays pointed at it across restarts. A restart stops the old process (SIGTERM: it
 * lets calls in flight finish; SIGKILL after a grace period), then starts the new one and waits until its port
 * accepts connections. What the server prints while it starts is kept, and shown only when it fails to start;
 * afterwards its output (the handlers' failures it logs) is passed on as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface ServerOptions {
  cwd: string;
  host: string;
  port: number;
  /** Extra flags for main.js (e.g. --stateless). */
  flags: readonly string[];
  /** The running server's output, passed on. */
  output: (text: string) => void;
}

export type StartResult = { ok: true; pid: number } | { ok: false; why: string };

/**
 * Loaded into the server before its entry point: it ends the server when dev's end of its stdin closes, which
 * happens however dev ends (even by SIGKILL or a crash), so no server outlives the dev that started it.
 */
const ORPHAN_GUARD = `data:text/javascript,${encodeURIComponent(
  "process.stdin.on('end', () => process.exit(0)).on('error', () => {}).resume();",
)}`;

const STOP_GRACE_MS = 5_000;
const START_LIMIT_MS = 30_000;

export class DevServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;

  constructor(private readonly options: ServerOptions) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Stops the running server (if any), starts `main` (the built main.js), and resolves once it listens or failed. */
  async restart(main: string): Promise<StartResult> {
    await this.stop();
    const { cwd, host, port, flags } = this.options;
    const child = spawn(
      process.execPath,
      ['--import', ORPHAN_GUARD, main, '--http', '--host', host, '--port', String(port), ...flags],
      { cwd, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let early = '';
    let ready = false;
    // Whole lines only, from both streams, so that two writes never end up on one line.
    const partial = { out: '', err: '' };
    const pass = (stream: 'out' | 'err') => (chunk: Buffer) => {
      const text = partial[stream] + chunk.toString();
      const end = text.lastIndexOf('\n') + 1;
      partial[stream] = text.slice(end);
      if (!end) return;
      if (ready) this.options.output(text.slice(0, end));
      else early += text.slice(0, end);
    };
    child.stdout!.on('data', pass('out'));
    child.stderr!.on('data', pass('err'));
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    this.exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        exit = { code, signal };
        const rest = partial.out + partial.err;
        if (rest) early += `${rest}\n`;
        if (this.child === child) {
          // Not stopped by dev: the server ended on its own.
          this.child = undefined;
          if (ready) {
            if (rest) this.options.output(rest);
            this.options.output(
              `toolspec dev: the server ${signal ? `was ended by ${signal}` : `exited with code ${code}`}; the next good change starts it again`,
            );
          }
        }
        resolve();
      });
      child.on('error', (e) => {
        early += `${e.message}\n`;
        exit ??= { code: null, signal: null };
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
    this.child = child;
    const end = Date.now() + START_LIMIT_MS;
    while (!exit && Date.now() < end) {
      if (await accepts(host, port)) {
        ready = true;
        return { ok: true, pid: child.pid! };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!exit) {
      await this.stop();
      return {
        ok: false,
        why: `the server did not listen on ${host}:${port} within ${START_LIMIT_MS / 1000} s\n${early}`,
      };
    }
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
    return { ok: false, why: `${early.trimEnd()}\nthe server ${how} while starting`.trimStart() };
  }

  /** Stops the server and waits until its process has ended. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = this.exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

/** Whether something accepts TCP connections at host:port. */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether host:port is free to listen on; with port 0, a free port picked by the system. */
export function freePort(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const picked = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(picked));
    });
  });
}
