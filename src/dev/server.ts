/**
 * The server `toolspec dev` runs: the project's built entry point (`main.js --http`) in a child process, behind a
 * small proxy that dev keeps listening on the one address clients use. A restart stops the old process (SIGTERM:
 * it lets calls in flight finish; SIGKILL after a grace period), starts the new one on a port of its own and waits
 * until it accepts connections; meanwhile the proxy holds the requests that arrive and then hands them to the new
 * process, so a connected client (keep-alive connections included) carries on without an error. What the server
 * prints while it starts is kept, and shown only when it fails to start; afterwards its output (the handlers'
 * failures it logs) is passed on as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface ServerOptions {
  cwd: string;
  host: string;
  port: number;
  /** Extra flags for main.js (e.g. --stateless). */
  flags: readonly string[];
  /** The running server's output, passed on. */
  output: (text: string) => void;
}

export type StartResult = { ok: true } | { ok: false; why: string };

/**
 * Loaded into the server before its entry point: it ends the server when dev's end of its stdin closes, which
 * happens however dev ends (even by SIGKILL or a crash), so no server outlives the dev that started it.
 */
const ORPHAN_GUARD = `data:text/javascript,${encodeURIComponent(
  "process.stdin.on('end', () => process.exit(0)).on('error', () => {}).resume();",
)}`;

const STOP_GRACE_MS = 5_000;
/** The generated server takes 1 MiB bodies by default; dev passes on a little more and lets it answer. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const START_LIMIT_MS = 30_000;

export class DevServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private proxy: http.Server | undefined;
  /** The running server's own port, while it accepts requests. */
  private target: number | undefined;
  /** While a restart is under way: requests wait for it. */
  private switching: Promise<unknown> | undefined;
  private agent = new http.Agent({ keepAlive: true });

  constructor(private readonly options: ServerOptions) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts listening on the clients' address; the port it listens on (port 0 picks one), undefined when taken. */
  async listen(): Promise<number | undefined> {
    const proxy = http.createServer((req, res) => void this.forward(req, res));
    const port = await listening(proxy.listen(this.options.port, this.options.host));
    if (port !== undefined) this.proxy = proxy;
    return port;
  }

  /**
   * One request, to the running server once it accepts them; 503 when none runs (the last build failed). The body
   * is read first, so that a request the old server never read (its idle connection closed as it stopped, or its
   * port already shut) is sent again to the new one: the retry Node's documentation gives for a reused socket.
   */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return refuse(res, 413, `toolspec dev: a request body over ${MAX_BODY_BYTES} bytes`);
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    for (let attempt = 0; ; attempt++) {
      if (this.switching) await this.switching;
      const port = this.target;
      if (port === undefined) return refuse(res, 503, 'toolspec dev: no server is running (see the dev output)');
      const unread = await new Promise<boolean>((resolve) => {
        const upstream = http.request(
          { host: this.options.host, port, method: req.method, path: req.url, headers: req.headers, agent: this.agent },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.once('end', () => resolve(false));
            answer.once('error', () => resolve(false));
          },
        );
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          const neverRead =
            error.code === 'ECONNREFUSED' ||
            (upstream.reusedSocket && ['ECONNRESET', 'EPIPE'].includes(error.code ?? ''));
          if (neverRead && !res.headersSent && attempt < 3) return resolve(true);
          if (!res.headersSent) refuse(res, 502, 'toolspec dev: the server ended before it answered');
          else res.destroy();
          resolve(false);
        });
        // A client that goes away cancels its request on the server too.
        res.once('close', () => {
          if (!res.writableFinished) upstream.destroy();
          resolve(false);
        });
        upstream.end(body);
      });
      if (!unread) return;
    }
  }

  /** Stops the running server (if any), starts `main` (the built main.js), and resolves once it listens or failed. */
  async restart(main: string): Promise<StartResult> {
    const started = this.start(main);
    this.switching = started.catch(() => undefined);
    try {
      return await started;
    } finally {
      this.switching = undefined;
    }
  }

  private async start(main: string): Promise<StartResult> {
    await this.stop();
    const { cwd, host, flags } = this.options;
    const port = await freePort(host);
    if (port === undefined) return { ok: false, why: `no free port on ${host} for the server` };
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
    /** How the process ended: "exited with code 1", "was ended by SIGKILL". */
    let ended: string | undefined;
    this.exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        ended = signal ? `was ended by ${signal}` : `exited with code ${code}`;
        const rest = partial.out + partial.err;
        if (rest) early += `${rest}\n`;
        if (this.child === child) {
          // Not stopped by dev: the server ended on its own.
          this.child = undefined;
          this.target = undefined;
          if (ready) {
            if (rest) this.options.output(rest);
            this.options.output(`toolspec dev: the server ${ended}; the next good change starts it again`);
          }
        }
        resolve();
      });
      child.on('error', (e) => {
        early += `${e.message}\n`;
        ended ??= 'exited with code null';
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
    this.child = child;
    const end = Date.now() + START_LIMIT_MS;
    while (!ended && Date.now() < end) {
      if (await accepts(host, port)) {
        ready = true;
        this.target = port;
        return { ok: true };
      }
      await delay(50);
    }
    if (!ended) {
      await this.stop();
      return {
        ok: false,
        why: `the server did not listen on ${host}:${port} within ${START_LIMIT_MS / 1000} s\n${early}`,
      };
    }
    return { ok: false, why: `${early.trimEnd()}\nthe server ${ended} while starting`.trimStart() };
  }

  /** Stops the server and waits until its process has ended; the connections to it are not reused. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    this.target = undefined;
    this.agent.destroy();
    this.agent = new http.Agent({ keepAlive: true });
    const exited = this.exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Stops the server and the proxy: nothing listens on the clients' address any more. */
  async close(): Promise<void> {
    await this.stop();
    const proxy = this.proxy;
    this.proxy = undefined;
    if (!proxy) return;
    const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
    proxy.closeAllConnections();
    await closed;
  }
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message }, id: null }));
}

/** Whether something accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  const socket = net.connect({ host, port });
  return once(socket, 'connect')
    .then(() => true)
    .catch(() => false)
    .finally(() => socket.destroy());
}

/** The port a server listens on once it does; undefined when it cannot (the address is taken). */
function listening(server: net.Server): Promise<number | undefined> {
  return once(server, 'listening')
    .then(() => (server.address() as net.AddressInfo).port)
    .catch(() => undefined);
}

/** A free port on host, picked by the system. */
async function freePort(host: string): Promise<number | undefined> {
  const server = net.createServer();
  const port = await listening(server.listen(0, host));
  if (port !== undefined) await once(server.close(), 'close');
  return port;
}
