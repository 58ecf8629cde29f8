/**
 * A real Redis for the e2e tests of generated servers that keep tasks and stream events in Redis: Debian's
 * `redis-server` (apt-get install -y redis-server; .ci/run installs it when missing), one per test file, on 127.0.0.1
 * with a port of its own, nothing persisted, in a temp folder of its own. And the official Node client (node-redis),
 * installed into test/e2e/redis/node_modules, for a test to look into what a server stored and to publish or listen.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './cli.js';
import { installLocked } from './npm.js';
import { freePort } from './serve.js';

const tools = path.join(repoRoot, 'test/e2e/redis');

/** `npm ci` of test/e2e/redis (installLocked). */
export function installRedisClient(): void {
  installLocked(tools);
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`: for `redisClient` and for a generated server's configuration. */
  url: string;
  port: number;
  /** The redis-server process's id. */
  pid: number;
  /**
   * Ends the server (SIGTERM, SIGKILL after 5 s) once every client `redisClient` made for its url is destroyed, and
   * removes its temp folder. Again is a no-op.
   */
  stop(): Promise<void>;
}

/** Where redis-server is: Debian's, else the first on PATH. */
function redisServerBinary(): string {
  const dirs = ['/usr/bin', ...(process.env['PATH'] ?? '').split(path.delimiter).filter(Boolean)];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'redis-server');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error('redis-server is not installed: run `apt-get install -y redis-server` (Debian) first');
}

/** One `PING` over a fresh connection: true on `+PONG`, false on anything else (refused, an error, no answer). */
export function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('end', () => done(answer.startsWith('+PONG')));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const START_LIMIT_MS = 10_000;

/**
 * Starts redis-server on 127.0.0.1 with a free port: no RDB snapshots, no AOF, its own temp `--dir`, protected
 * mode on (loopback only anyway), logging to its stdout (kept for the error message if it does not come up).
 * Resolves once it answers PING; throws with its output if it ends first or is not up within 10 s. A port taken
 * between the pick and the bind is picked again (three tries).
 */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerBinary();
  const deadline = Date.now() + START_LIMIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, await freePort(), deadline);
    } catch (error) {
      const taken = error instanceof Error && /Address already in use/i.test(error.message);
      if (!taken || attempt === 3 || Date.now() > deadline) throw error;
    }
  }
}

async function startOnce(binary: string, port: number, deadline: number): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-redis-'));
  // Every option on the command line, no config file: what the server runs with is all here.
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--protected-mode',
    'yes',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--logfile',
    '',
    '--loglevel',
    'warning',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    if (output.length < 20_000) output += d.toString();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    // 'close', not 'exit': its output has all been read by then, for the error message.
    child.once('close', (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    child.once('error', (error) => {
      spawnError = error;
      exit ??= { code: null, signal: null };
      resolve();
    });
  });
  // A test run that ends without stop() (a crash, a forgotten afterAll) leaves no server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const url = `redis://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      process.removeListener('exit', killOnExit);
      for (const client of clients.get(url) ?? []) {
        if (client.isOpen) client.destroy();
      }
      clients.delete(url);
      if (!exit) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    })());

  while (!(await ping(port))) {
    if (exit || Date.now() > deadline) {
      const why = spawnError
        ? `could not be run (${spawnError.message})`
        : exit
          ? `ended (${JSON.stringify(exit)}) before answering PING`
          : `did not answer PING within ${START_LIMIT_MS / 1000} s`;
      await stop();
      throw new Error(`${binary} ${args.map((a) => (a === '' ? "''" : a)).join(' ')} ${why}:\n${output}`);
    }
    await sleep(25);
  }
  return { url, port, pid: child.pid!, stop };
}

/** What `set` takes: a time to live in ms (`PX`, or the `expiration` form node-redis 5 prefers), NX / XX. */
export interface RedisSetOptions {
  PX?: number;
  EX?: number;
  expiration?: { type: 'EX' | 'PX' | 'EXAT' | 'PXAT'; value: number } | 'KEEPTTL';
  condition?: 'NX' | 'XX';
  NX?: boolean;
  XX?: boolean;
  GET?: boolean;
}

/**
 * The part of a node-redis 5 client (`RedisClientType` of createClient({ url }), RESP2, no type mapping) the tests
 * use, as it types it: bulk strings come back as `string`, nil as `null`, integers as `number`. Declared here, not
 * imported, because test/e2e/redis/node_modules is only there once `installRedisClient()` ran, after the
 * type-check. A real client is assignable to it.
 */
export interface RedisClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  /** The value, or `null` for no such key (or one expired). */
  get(key: string): Promise<string | null>;
  /** `'OK'`; `null` when NX / XX kept it from being set; the old value (or `null`) with GET. */
  set(key: string, value: string | number, options?: RedisSetOptions): Promise<string | null>;
  /** How many of the keys there were. */
  del(keys: string | string[]): Promise<number>;
  /** The value after the increment. */
  incr(key: string): Promise<number>;
  /** 1 when the time to live was set, 0 when the key is not there (or the mode kept it from being set). */
  pExpire(key: string, ms: number, mode?: 'NX' | 'XX' | 'GT' | 'LT'): Promise<number>;
  /** The time to live in ms; -1 for a key without one, -2 for no such key. */
  pTTL(key: string): Promise<number>;
  /** How many of the keys are there. */
  exists(keys: string | string[]): Promise<number>;
  /** The length of the list after the push. */
  rPush(key: string, elements: string | string[]): Promise<number>;
  /** `start` to `stop`, both inclusive, negative from the end (0, -1: all of it). */
  lRange(key: string, start: number, stop: number): Promise<string[]>;
  lTrim(key: string, start: number, stop: number): Promise<'OK'>;
  lLen(key: string): Promise<number>;
  /** How many subscribers received it. */
  publish(channel: string, message: string): Promise<number>;
  /** Any other command, as its words (`['TYPE', 'k']`); its reply as RESP2 decodes it. */
  sendCommand(args: string[]): Promise<unknown>;
  /**
   * A new, not yet connected client with the same options (`await client.duplicate().connect()`): a connection
   * that subscribes takes no other commands, so subscribing is done on one of these. Also quiet on socket errors.
   */
  duplicate(): RedisClient;
  connect(): Promise<RedisClient>;
  /** Resolves once the server confirmed the subscription; `listener` gets each message published to the channel. */
  subscribe(channels: string | string[], listener: (message: string, channel: string) => unknown): Promise<void>;
  /** From the channels given (or all), for the listener given (or all). */
  unsubscribe(channels?: string | string[], listener?: (message: string, channel: string) => unknown): Promise<void>;
  /** Waits for the pending replies, then closes. Rejects (ClientClosedError) when the client is closed already. */
  close(): Promise<void>;
  /** @deprecated in node-redis 5: `close()`. QUIT, then closes; `'OK'`. */
  quit(): Promise<string>;
  /** Closes at once, failing the pending commands. Throws when the client is closed already. */
  destroy(): void;
}

/** What the tests take of node-redis's module (the real one, loaded from test/e2e/redis/node_modules). */
interface RedisClientModule {
  createClient(options: { url: string; socket?: { reconnectStrategy?: false; connectTimeout?: number } }): RawClient;
}
type RawClient = RedisClient & { on(event: 'error', listener: (error: Error) => void): unknown };

/** The clients made for each server url (their duplicates too): its stop() destroys those still open. */
const clients = new Map<string, Set<RedisClient>>();

let loaded: RedisClientModule | undefined;
function loadRedis(): RedisClientModule {
  installRedisClient();
  return (loaded ??= createRequire(path.join(tools, 'package.json'))('redis') as RedisClientModule);
}

/**
 * Without a listener a socket error (the server stopped under an open client) would be thrown from an event
 * emitter, out of any test; the commands that fail still reject. The same for the client's duplicates.
 */
function quiet(client: RawClient, url: string): RedisClient {
  client.on('error', () => {});
  const duplicate = client.duplicate.bind(client) as () => RawClient;
  Object.defineProperty(client, 'duplicate', { value: () => quiet(duplicate(), url), configurable: true });
  let set = clients.get(url);
  if (!set) clients.set(url, (set = new Set()));
  set.add(client);
  return client;
}

/**
 * A connected node-redis client of the server at `url`. It does not reconnect: a stopped server closes it (its
 * commands then reject). Close it (or let the server's stop() do it).
 */
export async function redisClient(url: string): Promise<RedisClient> {
  const { createClient } = loadRedis();
  const client = quiet(createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 5_000 } }), url);
  await client.connect();
  return client;
}
