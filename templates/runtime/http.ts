/**
 * Streamable HTTP: a Node server (stateful sessions or stateless) and a web-standard Request → Response handler
 * for runtimes without Node's http. Safe by default: loopback only, Host and Origin checked against DNS
 * rebinding, request bodies limited, and an optional authentication hook in front of every request.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ToolHandlers } from './contract.js';
import { createServer, type ServerOptions } from './server.js';

export interface HttpSecurityOptions {
  /** Host header values accepted (DNS-rebinding protection). Node server default: this host and port on loopback names. */
  allowedHosts?: string[];
  /** Origin header values accepted from browsers. Node server default: http://<allowed host>. Requests without Origin pass. */
  allowedOrigins?: string[];
  /** Largest request body in bytes (default 1 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /**
   * Authentication: return the caller's AuthInfo (it reaches handlers as ctx.authInfo) or undefined to refuse the
   * request with 401 before it reaches any handler.
   */
  authenticate?: (headers: Headers) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
}

export interface HttpOptions extends ServerOptions, HttpSecurityOptions {
  /** Default 127.0.0.1: other machines cannot connect unless you say so. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default /mcp. */
  path?: string;
  /** No sessions: every request is served on its own, so any instance behind a load balancer can answer. */
  stateless?: boolean;
}

export interface HttpServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** Starts a Node HTTP server speaking MCP Streamable HTTP at `path`. */
export async function serveHttp(handlers: ToolHandlers, options: HttpOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const mcpPath = options.path ?? '/mcp';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let security = { allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] };

  const newTransport = (stateful: boolean): StreamableHTTPServerTransport => {
    const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      // Stateless mode is the absence of a session id generator.
      ...(stateful ? { sessionIdGenerator: () => randomUUID() } : {}),
      enableDnsRebindingProtection: true,
      allowedHosts: security.allowedHosts,
      allowedOrigins: security.allowedOrigins,
      maxRequestBodySize: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
      ...(stateful
        ? {
            onsessioninitialized: (id: string) => void sessions.set(id, t),
            onsessionclosed: (id: string) => void sessions.delete(id),
          }
        : {}),
    });
    return t;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== mcpPath) return sendJsonError(res, 404, -32000, `Not found: MCP is served at ${mcpPath}`);
      const auth = await authenticate(options, toHeaders(req.headers));
      if (auth === 'refused') return sendJsonError(res, 401, -32001, 'Unauthorized', { 'www-authenticate': 'Bearer' });
      const request = Object.assign(req, auth ? { auth } : {});

      if (options.stateless) {
        const t = newTransport(false);
        const s = createServer(handlers, options);
        res.on('close', () => {
          void t.close();
          void s.close();
        });
        await s.connect(t);
        return t.handleRequest(request, res);
      }
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const existing = sessions.get(id);
        if (!existing) return sendJsonError(res, 404, -32001, 'Session not found');
        return existing.handleRequest(request, res);
      }
      // No session yet: a new transport; it keeps a session only if this request is an initialize.
      const t = newTransport(true);
      const s = createServer(handlers, options);
      t.onclose = () => {
        if (t.sessionId) sessions.delete(t.sessionId);
        void s.close();
      };
      await s.connect(t);
      await t.handleRequest(request, res);
    })().catch((error: unknown) => {
      console.error('[toolspec] HTTP request failed:', error);
      if (!res.headersSent) sendJsonError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  if (!options.allowedHosts) {
    const loopback = ['127.0.0.1', 'localhost', '[::1]'];
    const names = loopback.includes(hostPart) ? loopback : [hostPart];
    security = {
      allowedHosts: names.map((n) => `${n}:${port}`),
      allowedOrigins: options.allowedOrigins ?? names.map((n) => `http://${n}:${port}`),
    };
  }
  return {
    url: `http://${hostPart}:${port}${mcpPath}`,
    server,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/**
 * A stateless handler for web-standard runtimes (Cloudflare Workers, Deno, Bun, edge functions):
 * `export default { fetch: createWebHandler(handlers) }`.
 */
export function createWebHandler(
  handlers: ToolHandlers,
  options: ServerOptions & HttpSecurityOptions = {},
): (request: Request) => Promise<Response> {
  return async (request) => {
    const auth = await authenticate(options, request.headers);
    if (auth === 'refused') {
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null },
        { status: 401, headers: { 'www-authenticate': 'Bearer' } },
      );
    }
    const protect = Boolean(options.allowedHosts?.length || options.allowedOrigins?.length);
    const transport = new WebStandardStreamableHTTPServerTransport({
      enableDnsRebindingProtection: protect,
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
      maxRequestBodySize: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    });
    const server = createServer(handlers, options);
    await server.connect(transport);
    return transport.handleRequest(request, auth ? { authInfo: auth } : {});
  };
}

async function authenticate(options: HttpSecurityOptions, headers: Headers): Promise<AuthInfo | 'refused' | undefined> {
  if (!options.authenticate) return undefined;
  try {
    return (await options.authenticate(headers)) ?? 'refused';
  } catch (error) {
    console.error('[toolspec] authenticate hook failed:', error);
    return 'refused';
  }
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  return headers;
}

function sendJsonError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
