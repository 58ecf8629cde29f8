/**
 * The MCP server on the SDK's low-level Server, so tool schemas reach clients exactly as written.
 */
import { Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type CallToolRequest,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createContext } from './context.js';
import type { ToolHandlers } from './contract.js';
import { createDispatcher, type AnyHandler, type DispatcherOptions } from './dispatcher.js';
import { instructions, loadBindings, pageSize, serverInfo, timeouts, tools } from './tools.js';

/**
 * tools/call as the SDK's Server sees it before its own check of the params: that check answers a malformed call
 * (e.g. arguments that are not an object) with -32602, where a strict schema here would make it -32603.
 */
const CallToolRequestSchema = z.object({ method: z.literal('tools/call'), params: z.unknown() });

export interface ServerOptions {
  /** Tools per tools/list page (default: the spec's options.pageSize); 0 sends all tools in one page. */
  pageSize?: number;
  /** Where handler failures are logged. Default: stderr, never stdout. */
  onError?: DispatcherOptions['onError'];
}

/** A new MCP server for one connection. Connect it to a transport, e.g. `server.connect(new StdioServerTransport())`. */
export function createServer(handlers: ToolHandlers, options: ServerOptions = {}): Server {
  const server = new Server(serverInfo, {
    capabilities: { tools: {}, logging: {} },
    ...(instructions === undefined ? {} : { instructions }),
  });
  const dispatcher = createDispatcher({
    tools,
    // Validators load on the first tools/call: a client that connects and lists tools does not wait for them.
    bindings: loadBindings,
    handlers: handlers as unknown as Record<string, AnyHandler>,
    pageSize: options.pageSize ?? pageSize,
    timeouts,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  // One logging level per connection: this server serves one connection (one session).
  let level: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => dispatcher.listTools(request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params as CallToolRequest['params'];
    return dispatcher.callTool(
      name,
      args,
      createContext(name, extra, () => level),
    );
  });
  return server;
}

export interface StdioOptions extends ServerOptions {
  /**
   * The largest message accepted, in bytes (default 64 MiB). A longer one cannot be answered: the SDK drops it
   * and reports it to stderr.
   */
  maxMessageBytes?: number;
}

/**
 * Serves over stdio until stdin closes. stdout carries the protocol, so it is kept for the protocol alone: anything
 * else written to it (a stray console.log in a handler or a library) goes to stderr instead.
 */
export async function serveStdio(handlers: ToolHandlers, options: StdioOptions = {}): Promise<Server> {
  const server = createServer(handlers, options);
  const maxBufferSize = options.maxMessageBytes ?? 64 * 1024 * 1024;
  await server.connect(new StdioServerTransport(process.stdin, protocolChannel(), { maxBufferSize }));
  return server;
}

/** A stream onto the real stdout for the transport; process.stdout itself is redirected to stderr from now on. */
function protocolChannel(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      // Keep stdout's backpressure: wait for 'drain' when it asks to.
      if (write(chunk)) done();
      else stdout.once('drain', () => done());
    },
  });
}
