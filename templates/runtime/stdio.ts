/**
 * stdio: both eras on one connection (the client's first message picks one), until stdin closes.
 */
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import {
  deserializeMessage,
  serializeMessage,
  type JSONRPCMessage,
  type McpRequestContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { ToolHandlers } from './handler-types.js';
import { listenOverStdio } from './resources.js';
import { createServerFactory, DEFAULT_SHUTDOWN_GRACE_MS, type ServerOptions } from './server.js';

export interface StdioOptions extends ServerOptions {
  /**
   * The largest message accepted, in bytes (default 64 MiB). A longer line cannot be answered (its id is never
   * read): it is skipped, reported on stderr, and the server goes on with the next line.
   */
  maxMessageBytes?: number;
}

/**
 * Serves over stdio, both eras (the client's first message picks one for the connection), until stdin closes.
 * stdout carries the protocol, so it is kept for the protocol alone: anything else written to it (a stray
 * console.log in a handler or a library) goes to stderr instead.
 */
export function serveStdio(handlers: ToolHandlers, options: StdioOptions = {}): StdioServer {
  const maxBufferSize = options.maxMessageBytes ?? 64 * 1024 * 1024;
  const factory = createServerFactory(handlers, options);
  // stdin closing ends the requests, not the answers: the calls in flight finish first, as on SIGTERM.
  const transport = new LineTransport(process.stdin, protocolChannel(), maxBufferSize, () =>
    factory.settled(DEFAULT_SHUTDOWN_GRACE_MS),
  );
  // The entry pins one instance per connection. A 2026-07-28 one is where notifyResourceUpdated sends its updates:
  // the entry routes them onto the connection's subscriptions/listen streams (it takes no event bus, as HTTP does).
  const pinned = (context: McpRequestContext) => {
    const server = factory(context);
    if (context.era === 'modern') listenOverStdio(server);
    return server;
  };
  const handle = sdkServeStdio(pinned, {
    transport,
    onerror: (error) => console.error('[toolspec] stdio:', error.message),
  });
  return {
    close: async () => {
      await factory.close();
      await handle.close();
    },
    async shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS) {
      // No new requests; the calls in flight may finish and send their answers, up to the grace period.
      process.stdin.pause();
      const settled = await factory.settled(graceMs);
      // The last answers are written a turn after their handlers return.
      await new Promise((resolve) => setImmediate(resolve));
      await factory.close();
      await handle.close();
      return settled;
    },
  };
}

export interface StdioServer extends StdioServerHandle {
  /**
   * Stops reading requests, waits for the calls in flight to answer (at most `graceMs`, default 10 s), then closes.
   * Resolves false when calls were still running at the end of the grace period.
   */
  shutdown(graceMs?: number): Promise<boolean>;
}

/** A stream onto the real stdout for the transport; process.stdout itself is redirected to stderr from now on. */
function protocolChannel(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  // The client has gone (its end of the pipe is closed): nothing can be answered any more, so the server ends.
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      // Keep stdout's backpressure: wait for 'drain' when it asks to.
      if (write(chunk)) done();
      else stdout.once('drain', () => done());
    },
  });
}

/**
 * Newline-delimited JSON-RPC over a pair of streams, read in linear time: a line is kept as the chunks it arrived in
 * and joined once, when its newline comes (appending to one buffer would copy it again with every chunk). A line
 * longer than `max` is skipped without being kept, and reported.
 */
class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly max: number,
    /** Resolves when the calls in flight have answered (or given up): awaited between stdin's end and closing. */
    private readonly settled: () => Promise<unknown> = async () => undefined,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.read);
    this.input.once('end', this.end);
    this.input.on('error', this.fail);
  }

  private readonly read = (chunk: Buffer) => {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      this.keep(chunk.subarray(from, nl));
      this.line();
      from = nl + 1;
    }
    if (from < chunk.length) this.keep(chunk.subarray(from));
  };

  private keep(part: Buffer): void {
    if (this.skipping || !part.length) return;
    this.size += part.length;
    if (this.size <= this.max) {
      this.parts.push(part);
      return;
    }
    this.skipping = true;
    this.parts = [];
    this.onerror?.(new Error(`a message longer than ${this.max} bytes (maxMessageBytes) arrived: skipped unanswered`));
  }

  private line(): void {
    const parts = this.parts;
    const skipped = this.skipping;
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    if (skipped || !parts.length) return;
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
    if (!text.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  private readonly fail = (error: Error) => this.onerror?.(error);
  private readonly end = () =>
    void this.settled()
      // The last answers are written a turn after their handlers return.
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => this.close());

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.read);
    this.input.off('end', this.end);
    this.input.off('error', this.fail);
    this.input.pause();
    this.onclose?.();
  }
}
