/**
 * The child process of `import --from-command`, as an MCP transport for the SDK's Client. Unlike the SDK's own
 * stdio transport it keeps what a failure message needs (how the process ended, the tail of its stderr), passes
 * the caller's whole environment (a server usually needs its tokens and settings), and always stops the process:
 * stdin closed, then SIGTERM, then SIGKILL, and a kill on toolspec's own exit as a last resort.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { UserError } from '../core/diagnostics.js';

/** How much of the server's stderr is kept for messages. */
const STDERR_TAIL_BYTES = 4096;

/** All a server may write to stdout during an import: far above any tools/list, far below exhausting memory. */
export const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Its own process group (POSIX), so that stopping it stops what it started too. */
const GROUP = process.platform !== 'win32';

export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Set once the process has ended. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** Why the process could not be started (ENOENT, EACCES, …). */
  spawnError?: NodeJS.ErrnoException;
  /** The last bytes the server wrote to stderr. */
  stderrTail = '';
  /** True when the process wrote something to stdout that is not a JSON-RPC message. */
  badOutput?: string;

  #child?: ChildProcess;
  #exited?: Promise<void>;
  readonly #buffer = new ReadBuffer();
  readonly #killOnExit = () => this.#signal('SIGKILL');
  #bytes = 0;

  /** Sends the signal to the server and, on POSIX, to every process it started (its process group). */
  #signal(signal: NodeJS.Signals): void {
    const child = this.#child;
    if (!child?.pid) return;
    try {
      if (GROUP) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      child.kill(signal); // the group is gone already
    }
  }

  constructor(
    readonly command: string,
    readonly args: readonly string[],
    private readonly options: { cwd: string; env: NodeJS.ProcessEnv },
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...this.args], {
        cwd: this.options.cwd,
        env: this.options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        detached: GROUP,
      });
      this.#child = child;
      this.#exited = new Promise((done) => {
        let ended = false;
        const end = (code: number | null, signal: NodeJS.Signals | null) => {
          if (ended) return;
          ended = true;
          this.exit = { code, signal };
          process.removeListener('exit', this.#killOnExit);
          done();
          this.onclose?.();
        };
        // 'close' comes once stdout and stderr are read to the end; a grandchild that keeps them open must not
        // hold the import up, so the process's own end counts a moment later.
        child.once('close', end);
        child.once('exit', (code, signal) => {
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
            end(code, signal);
          }, 500).unref();
        });
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid) return this.onerror?.(error);
        this.spawnError = error;
        this.exit = { code: null, signal: null };
        reject(error);
      });
      child.once('spawn', () => {
        process.once('exit', this.#killOnExit);
        resolve();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  #read(chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes > MAX_OUTPUT_BYTES) {
      if (this.#bytes - chunk.length <= MAX_OUTPUT_BYTES) {
        this.onerror?.(new Error(`the server wrote more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB to stdout`));
        this.#signal('SIGKILL');
      }
      return;
    }
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC: a server that logs to stdout. Keep the first for the message.
        this.badOutput ??= error instanceof Error ? error.message : String(error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.exit) throw new Error('the server process is not running');
    if (!stdin.write(serializeMessage(message))) await new Promise((resolve) => stdin.once('drain', resolve));
  }

  /**
   * Stops the process and waits until it has ended: stdin closed (an MCP server's cue to exit), then SIGTERM after
   * `graceMs`, then SIGKILL. With graceMs 0 (a server that hangs) SIGTERM follows at once.
   */
  async close(graceMs = 1000): Promise<void> {
    const child = this.#child;
    const exited = this.#exited;
    if (!child || !exited || this.exit) return;
    const wait = (ms: number) =>
      Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    child.stdin?.end();
    const ended = graceMs > 0 && (await wait(graceMs));
    this.#signal('SIGTERM'); // when it ended, for what it started, which may still run
    if (ended || (await wait(2000))) return;
    this.#signal('SIGKILL');
    await exited;
  }
}

/**
 * The parts of a command line, in order: a double-quoted string (in which a backslash escapes ", \, $ and `), a
 * single-quoted one, a backslash and the character it escapes, white space, a quote never closed, any other character.
 */
const PART = /"((?:\\.|[^"\\])*)"|'([^']*)'|\\(.)|(\s)|(["'])|(.)/gs;

/** Splits a command line into words as a POSIX shell would for simple commands: quotes and backslashes, no expansion. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (const [, double, single, escaped, space, unclosed, other] of line.matchAll(PART)) {
    if (unclosed)
      throw new UserError(
        `cannot read --from-command ${JSON.stringify(line)}: the command has an unclosed ${unclosed} quote`,
      );
    if (space === undefined)
      word = (word ?? '') + (double?.replace(/\\(["\\$`])/g, '$1') ?? single ?? escaped ?? other);
    else if (word !== undefined) {
      words.push(word);
      word = undefined;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
