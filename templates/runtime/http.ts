/**
 * The Node HTTP server: the web-standard endpoint of web.ts behind node:http, listening on 127.0.0.1 by default,
 * with Host and Origin held to the loopback names unless told otherwise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { isJsonContentType } from '@modelcontextprotocol/server';
import type { ToolHandlers } from './handler-types.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './server.js';
import {
  authenticates,
  bodyWatch,
  createWebHandler,
  DEFAULT_MAX_BODY,
  LOOPBACK,
  type WebHandlerOptions,
} from './web.js';

export interface HttpOptions extends WebHandlerOptions {
  /** Default 127.0.0.1: other machines cannot connect unless you say so. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /**
   * Open TCP connections at most (default 1000); past it a request is answered 503 with `Retry-After: 1` and its
   * connection closed, and past twice as many a connection is closed at once.
   */
  maxConnections?: number;
  /**
   * A request must arrive whole, headers and body, within this time (default 30 s), and its headers within
   * `headersTimeoutMs` (default 10 s): a client that sends slowly holds nothing for long. Responses (streams, long
   * calls) are not bounded by it.
   */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
}

export const DEFAULT_MAX_CONNECTIONS = 1000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

const ANY_ADDRESS = ['0.0.0.0', '::', '[::]'];

export interface HttpServer {
  url: string;
  server: http.Server;
  /** Ends every session, call and connection at once. */
  close(): Promise<void>;
  /**
   * Stops accepting (new requests get 503), waits for the calls in flight to answer (at most `graceMs`, default
   * 10 s), then closes. Resolves false when calls were still running at the end of the grace period.
   */
  shutdown(graceMs?: number): Promise<boolean>;
}

function refuse(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const UTF8 = new TextDecoder();

/**
 * Reads `req`'s body and hands on the request with its parsed value; a body that is not JSON goes on unparsed, as
 * a request that replays the bytes read, so the adapter and the SDK read it and answer it as always
 * (test/web-body.test.ts holds both answers equal to the SDK reading the body itself). A request cut off midway
 * gets nothing: its response is closed with its socket.
 */
function readJson(req: http.IncomingMessage, then: (request: NodeIncomingMessageLike, parsed?: unknown) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', () => undefined);
  req.on('end', () => {
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    let parsed: unknown;
    try {
      parsed = JSON.parse(UTF8.decode(bytes));
    } catch {
      const { method, url, headers } = req;
      const replay = (async function* () {
        yield bytes;
      })();
      return then({ method, url, headers, [Symbol.asyncIterator]: () => replay } as NodeIncomingMessageLike);
    }
    then(req as NodeIncomingMessageLike, parsed);
  });
}

/** The web Request toNodeHandler's toWebRequest would make of `req`, without the body (already parsed). */
function webRequest(req: http.IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: 'POST', headers, signal });
}

/** The id an error answer echoes: a single request's string or number id, else null (as toNodeHandler's). */
function echoableId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}

/** Starts a Node HTTP server speaking MCP Streamable HTTP at `path`, on 127.0.0.1 unless told otherwise. */
export async function serveHttp(handlers: ToolHandlers, options: HttpOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const hostPart = host.includes(':') ? `[${host}]` : host;
  if (options.allowedHosts === undefined && ANY_ADDRESS.includes(host)) {
    throw new RangeError(
      `listening on every address (${host}), the server cannot tell which Host names are its own: name them with ` +
        'allowedHosts (--allowed-hosts mcp.example.com,10.0.0.5), or [] to turn the DNS-rebinding check off',
    );
  }
  const allowedHosts = options.allowedHosts ?? (LOOPBACK.includes(hostPart) ? LOOPBACK : [hostPart]);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const endpoint = createWebHandler(handlers, { ...options, allowedHosts });
  // Without authentication, a JSON POST whose length is declared within the limit is read and parsed here, once,
  // and answered here (answerParsed): the endpoint takes the parsed value, and the SDK's adapter is not in the way;
  // a body that is not JSON goes to the adapter as its bytes. With authentication it is parsed only once the caller
  // is known (web.ts), and every request goes through the adapter.
  const readsFirst = !authenticates(options);
  const onerror = (error: Error) => {
    // A client that went away (or was cut off by a timeout) before its request arrived is not a server failure.
    if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || error.message === 'aborted') return;
    console.error('[toolspec] HTTP request failed:', error);
  };
  const toNode = toNodeHandler(endpoint, { maxRequestBodySize: maxBody, onerror });
  /**
   * A JSON POST read and parsed by readJson, answered without the SDK's adapter (toNodeHandler), which would
   * serialise the parsed value again into a body nobody reads and hand the answer through a stream that watches it
   * (web.ts's track): a Request without a body, with the same headers and an AbortSignal aborted when the client
   * leaves before its answer is written; the answer written as the adapter writes it (status, headers, each chunk,
   * backpressure), this loop telling the endpoint what the watching stream would have told it (bodyWatch).
   * test/web-body.test.ts holds the answers equal to the adapter's.
   */
  async function answerParsed(req: http.IncomingMessage, res: http.ServerResponse, parsedBody: unknown) {
    let finished = false;
    const abort = new AbortController();
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    let response: Response;
    try {
      response = await endpoint.fetch(webRequest(req, abort.signal), { parsedBody, direct: true });
    } catch (error) {
      onerror(error instanceof Error ? error : new Error(String(error)));
      response = Response.json(
        { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: echoableId(parsedBody) },
        { status: 500 },
      );
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    res.writeHead(response.status, headers);
    if (!response.body) {
      finished = true;
      return void res.end();
    }
    const reader = response.body.getReader();
    const watch = bodyWatch(response);
    let drained: (() => void) | undefined;
    const release = () => {
      drained?.();
      drained = undefined;
    };
    res.on('drain', release);
    abort.signal.addEventListener('abort', release, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          watch?.ended();
          break;
        }
        if (abort.signal.aborted) {
          watch?.left();
          void reader.cancel().catch(() => undefined);
          break;
        }
        watch?.written(value);
        if (!res.write(value) && !abort.signal.aborted) await new Promise<void>((resolve) => (drained = resolve));
      }
    } catch {
      // the stream failed: the answer ends here, as the adapter ends it
      watch?.ended();
    }
    finished = true;
    res.end();
  }
  let draining = false;
  // Requests whose response is still being written (POSTs: a standalone GET stream never ends by itself).
  let active = 0;
  let quiet: (() => void)[] = [];
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const server = http.createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout),
      // How often Node looks for requests past those limits (its default, 30 s, would let short ones run over).
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(requestTimeout / 4))),
    },
    (req, res) => {
      if (over.has(req.socket)) {
        return refuse(res, 503, -32603, `Too many open connections (${maxConnections}); try again shortly`, {
          'retry-after': '1',
        });
      }
      if (req.method === 'POST') {
        active++;
        res.once('close', () => {
          if (--active > 0) return;
          const waiting = quiet;
          quiet = [];
          for (const resolve of waiting) resolve();
        });
      }
      if (draining) return refuse(res, 503, -32603, 'The server is shutting down', { 'retry-after': '5' });
      // Checked here, before the adapter builds a URL from it: `localhost:3000@evil.example` would make a URL with
      // credentials, which a Request refuses (a 500), before web.ts could check the Host against allowedHosts.
      if (/[@/\\?#\s]/.test(req.headers.host ?? ''))
        return refuse(res, 400, -32600, 'Bad Request: malformed Host header');
      if (
        readsFirst &&
        req.method === 'POST' &&
        isJsonContentType(req.headers['content-type'] ?? '') &&
        Number(req.headers['content-length']) <= maxBody
      ) {
        return readJson(req, (request, parsed) =>
          parsed === undefined ? void toNode(request, res) : void answerParsed(req, res, parsed),
        );
      }
      // (IncomingMessage types `method` as optional, which exactOptionalPropertyTypes tells apart from the adapter's.)
      void toNode(req as NodeIncomingMessageLike, res);
    },
  );
  // Past the cap a connection is answered 503 with Retry-After (and closed), so a client that opens one per call
  // sees why; past twice the cap Node closes it at once, so a flood of idle sockets still holds nothing.
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const over = new WeakSet<object>();
  let open = 0;
  server.on('connection', (socket) => {
    if (open >= maxConnections) return void over.add(socket);
    open++;
    socket.once('close', () => open--);
  });
  server.maxConnections = 2 * maxConnections;
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
    close,
    async shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS) {
      draining = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const settled =
        active === 0 ||
        (await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), graceMs);
          quiet.push(() => {
            clearTimeout(timer);
            resolve(true);
          });
        }));
      await close();
      await stopped;
      return settled;
    },
  };
  async function close() {
    await endpoint.close();
    const stopped = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined;
    server.closeAllConnections();
    await stopped;
  }
}
