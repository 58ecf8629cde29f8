/**
 * The Node HTTP server: the web-standard endpoint of web.ts behind node:http, listening on 127.0.0.1 by default,
 * with Host and Origin held to the loopback names unless told otherwise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import type { ToolHandlers } from './contract.js';
import { createWebHandler, DEFAULT_MAX_BODY, LOOPBACK, type WebHandlerOptions } from './web.js';

export interface HttpOptions extends WebHandlerOptions {
  /** Default 127.0.0.1: other machines cannot connect unless you say so. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
}

export interface HttpServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** Starts a Node HTTP server speaking MCP Streamable HTTP at `path`, on 127.0.0.1 unless told otherwise. */
export async function serveHttp(handlers: ToolHandlers, options: HttpOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const allowedHosts = options.allowedHosts ?? (LOOPBACK.includes(hostPart) ? LOOPBACK : [hostPart]);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const endpoint = createWebHandler(handlers, { ...options, allowedHosts });
  const toNode = toNodeHandler(endpoint, {
    maxRequestBodySize: maxBody,
    onerror: (error) => console.error('[toolspec] HTTP request failed:', error),
  });
  // (IncomingMessage types `method` as optional, which exactOptionalPropertyTypes tells apart from the adapter's.)
  const server = http.createServer((req, res) => void toNode(req as NodeIncomingMessageLike, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostPart}:${port}${options.path ?? '/mcp'}`,
    server,
    async close() {
      await endpoint.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
