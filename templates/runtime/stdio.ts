/**
 * stdio: both eras on one connection (the client's first message picks one), until stdin closes.
 */
import { Writable } from 'node:stream';
import {
  serveStdio as sdkServeStdio,
  StdioServerTransport,
  type StdioServerHandle,
} from '@modelcontextprotocol/server/stdio';
import type { ToolHandlers } from './contract.js';
import { createServerFactory, DEFAULT_SHUTDOWN_GRACE_MS, type ServerOptions } from './server.js';

export interface StdioOptions extends ServerOptions {
  /**
   * The largest message accepted, in bytes (default 64 MiB). A longer one cannot be answered: the SDK drops it
   * and reports it to stderr.
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
  const transport = new StdioServerTransport(process.stdin, protocolChannel(), { maxBufferSize });
  const factory = createServerFactory(handlers, options);
  const handle = sdkServeStdio(factory, {
    transport,
    onerror: (error) => console.error('[toolspec] stdio:', error.message),
  });
  return {
    close: () => handle.close(),
    async shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS) {
      // No new requests; the calls in flight may finish and send their answers, up to the grace period.
      process.stdin.pause();
      const settled = await factory.settled(graceMs);
      // The last answers are written a turn after their handlers return.
      await new Promise((resolve) => setImmediate(resolve));
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
