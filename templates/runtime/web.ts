/**
 * Streamable HTTP for both protocol eras, as one web-standard `fetch` handler: the whole endpoint for Workers,
 * Deno and Bun (`export default createWebHandler(handlers)`), and what the Node server (http.ts) serves. No Node
 * modules here.
 *
 * - 2026-07-28 requests are stateless by nature: each is served by the SDK's `createMcpHandler` from the factory.
 * - 2025 requests go, by default, to a sessionful leg (routed with the SDK's `isLegacyRequest`): `initialize` opens
 *   a session on its own transport, so a tool can ask the client for input mid-call (the SDK's legacy shim) as
 *   before. `stateless: true` serves 2025 clients per request instead: any instance can answer, but a 2025 client
 *   then cannot be asked anything (elicitation, sampling and roots fail with an error saying so), gets no
 *   standalone stream, and is offered neither `logging` nor resource subscriptions (see ServingOptions).
 * - The sessionful leg's SSE streams are resumable (the event store below): each starts with a priming event and a `retry:`
 *   field, every event is kept for a while, and a client whose connection broke GETs with `Last-Event-ID` and is
 *   sent what it missed. A call whose client left keeps running for `resumeWindowMs` so that it can come back.
 *   Stateless requests and 2026-07-28 ones have no stream to resume: their answer is the response itself.
 *
 * Safe by default: loopback only, Host and Origin checked against DNS rebinding, request bodies limited, an
 * optional authentication hook in front of every request (401 before any handler), and bounds on what a client can
 * make the server hold: open sessions (capped, idle ones expire), subscription streams, calls waiting for input.
 */
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  validateHostHeader,
  validateOriginHeader,
  CLIENT_CAPABILITIES_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type EventStore,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { createAuthGate, type AuthOptions } from './access.js';
import type { ToolHandlers } from './handler-types.js';
import { principalOf } from './input.js';
import { resourceEvents } from './resources.js';
import { createServerFactory, type ServerFactory, type ServerOptions, type ServingOptions } from './server.js';
import { prompts, resources } from './primitives.js';
import { followTasks, TASKS_EXTENSION, tasksRequired, type Tasks } from './tasks.js';
import { access, loadAuth, mcpHeaders, serverInfo, tools } from './tools.js';

/** An argument a 2026-07-28 client mirrors into the header Mcp-Param-{header} (the spec's x-mcp-header). */
export interface McpParamHeader {
  header: string;
  path: readonly string[];
  type: 'string' | 'integer' | 'boolean';
}

export interface HttpSecurityOptions {
  /**
   * Host names accepted in the Host header (DNS-rebinding protection), without ports. Node server default: the
   * loopback names when it listens on loopback, else the host it listens on. `[]` turns the check off.
   */
  allowedHosts?: string[];
  /** Host names accepted in an Origin header (browsers send one). Default: allowedHosts. Requests without Origin pass. */
  allowedOrigins?: string[];
  /** Largest request body in bytes (default 1 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /**
   * The spec's `auth` (an OAuth 2.1 resource server: access.ts): the deployment's URLs and the introspection
   * client's credentials, which the spec never holds. `false` serves without it (behind a gateway that checks the
   * tokens, say). Without `auth` in the spec it does nothing.
   */
  auth?: AuthOptions | false;
  /**
   * Authentication of your own, for a spec without `auth`: return the caller's AuthInfo (it reaches handlers as
   * ctx.authInfo) or undefined to refuse the request with 401 before it reaches any handler.
   */
  authenticate?: (headers: Headers) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
}

export interface HttpLimits {
  /** Open 2025 sessions at most (default 1000); past it the longest-idle one is closed, or 503 when all are busy. */
  maxSessions?: number;
  /** A 2025 session with no request for this long is closed (default 30 minutes); its client opens a new one. */
  sessionIdleMs?: number;
  /** Open 2026-07-28 subscription streams (subscriptions/listen) at most (default 100). */
  maxSubscriptions?: number;
}

/** How the 2025 sessionful leg's streams are resumed after a broken connection. */
export interface ResumptionOptions {
  /** Where events are kept (default: in memory, bounded: createMemoryEventStore). One store serves every session. */
  store?: SessionEventStore;
  /** The SSE `retry:` field: how long a client waits before it reconnects (default 1 s). */
  retryMs?: number;
  /**
   * A call whose client left its stream without a word keeps running this long for the client to resume it
   * (default 30 s); then it is cancelled, as a client that never comes back would have wanted.
   */
  resumeWindowMs?: number;
}

export interface WebHandlerOptions extends ServerOptions, ServingOptions, HttpSecurityOptions, HttpLimits {
  /** Default /mcp. */
  path?: string;
  /**
   * Experimental (a draft of the protocol): serve the server card, JSON saying who the server is and what it
   * offers, at `<path>/server-card` to GET requests (serverCard below). Default false.
   */
  serverCard?: boolean;
  /**
   * Resumable streams for sessionful 2025 clients (on by default; see ResumptionOptions). `false`: no event
   * store, no priming event; a call whose client leaves is cancelled at once. Stateless mode has no streams to
   * resume, and 2026-07-28 requests are answered on their own response.
   */
  resumption?: ResumptionOptions | false;
  /**
   * Where 2025 sessions are kept when several instances serve one endpoint (createRedisSessionStore, redis.ts):
   * any instance then serves any session and resumes its streams, so a session outlives the instance that opened
   * it. Default: each instance keeps its own, and a balancer must route a session to the instance that has it.
   */
  sessions?: SessionStore;
  /**
   * Serve 2025 clients per request, without sessions: any instance behind a load balancer can answer, but they
   * cannot be asked for input mid-call, and are offered no `logging` and no resource subscriptions, which no
   * later request could honour. 2026-07-28 clients are served the same way in both modes.
   */
  stateless?: boolean;
}

export interface McpFetchHandler {
  /**
   * `parsedBody`: the request's body, already read and parsed by the caller (the Node server of http.ts, or a
   * framework's body parser through the SDK's `toNodeHandler`): taken as the body, and not read again.
   * `direct`: the caller writes the response's body itself and tells what happens to it (bodyWatch), so a 2025
   * session's stream is handed on as the SDK made it, not wrapped in a stream that watches it.
   */
  fetch(request: Request, options?: { parsedBody?: unknown; direct?: boolean }): Promise<Response>;
  /** Ends every session and in-flight exchange. */
  close(): Promise<void>;
  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean>;
}

export const DEFAULT_MAX_BODY = 1024 * 1024;
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_MAX_SUBSCRIPTIONS = 100;
export const DEFAULT_SSE_RETRY_MS = 1000;
/** One decoder for the SSE chunks whose first event id is read (watchStream). */
const UTF8 = new TextDecoder();
export const DEFAULT_RESUME_WINDOW_MS = 30_000;
export const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The whole MCP endpoint as a web-standard handler: `export default createWebHandler(handlers)` on Workers, Deno
 * or Bun. It checks Host and Origin only when given allowedHosts/allowedOrigins (those runtimes route by host).
 */
export function createWebHandler(handlers: ToolHandlers, options: WebHandlerOptions = {}): McpFetchHandler {
  const factory = createServerFactory(handlers, options);
  const mcpPath = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const hosts = options.allowedHosts?.length ? options.allowedHosts : undefined;
  const origins = options.allowedOrigins?.length ? options.allowedOrigins : hosts;
  const onerror = (error: Error) => console.error('[toolspec] HTTP:', error.message);
  const modern = createMcpHandler(factory, {
    legacy: options.stateless ? 'stateless' : 'reject',
    maxRequestBodySize: maxBody,
    maxSubscriptions: options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS,
    // notifyResourceUpdated publishes here, for the subscriptions/listen streams of 2026-07-28 clients.
    bus: resourceEvents,
    onerror,
  });
  const legacy = options.stateless ? undefined : new LegacySessions(factory, options, maxBody);
  // Listen streams kept open for tasks (the SDK counts the others): under the same cap.
  const taskStreams = { open: 0, max: options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS };
  const checkHeaders = Object.keys(mcpHeaders).length > 0;
  if (checksTokens(options) && options.authenticate)
    throw new RangeError('the spec has auth, which checks the tokens: pass auth: false to use an authenticate hook');
  const gate = checksTokens(options) ? createAuthGate(access!, options.auth || {}, loadAuth!) : undefined;

  return {
    async fetch(incoming, given) {
      let request = incoming;
      const { pathname } = new URL(request.url);
      const hostOk = () => !hosts || validateHostHeader(request.headers.get('host'), hosts).ok;
      // The metadata is public, for any origin (browser clients read it across origins).
      if (gate && pathname === gate.metadataPath && hostOk()) return gate.metadata(request);
      if (options.serverCard && pathname === `${mcpPath}/server-card` && request.method === 'GET' && hostOk())
        return new Response(serverCard(new URL(mcpPath, request.url).href), {
          headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
        });
      if (pathname !== mcpPath) {
        return jsonError(404, -32600, `Not found: MCP is served at ${mcpPath}`);
      }
      if (!hostOk()) {
        return jsonError(403, -32600, 'Forbidden: this Host is not allowed (DNS-rebinding protection)');
      }
      if (origins && !validateOriginHeader(request.headers.get('origin'), origins).ok) {
        return jsonError(403, -32600, 'Forbidden: this Origin is not allowed');
      }
      // A body read already was held to its reader's limit (the Node server's is maxBody); its Content-Length is
      // the adapter's serialisation of the parsed value, not what the client sent.
      const parsed = given?.parsedBody !== undefined;
      const declared = Number(request.headers.get('content-length') ?? 0);
      if (!parsed && declared > maxBody) {
        return jsonError(413, -32600, `Request body too large: at most ${maxBody} bytes`);
      }
      let auth: AuthInfo | undefined;
      if (gate) {
        const verified = await gate.authenticate(request);
        if (verified instanceof Response) return verified;
        auth = verified;
      } else {
        const hooked = await authenticate(options, request.headers);
        if (hooked === 'refused') return jsonError(401, -32600, 'Unauthorized', { 'www-authenticate': 'Bearer' });
        auth = hooked;
      }
      // The body, read and parsed once here, is handed to the SDK parsed (routing, the scope gate, the transport).
      // With a scope gate every JSON body is read (a chunked one too): no request may pass the gate unread.
      const read = parsed ? { request, parsedBody: given!.parsedBody } : await readOnce(request, maxBody, !!gate);
      if (read instanceof Response) return read;
      request = read.request;
      const body: { parsedBody?: unknown } = 'parsedBody' in read ? { parsedBody: read.parsedBody } : {};
      if (gate && auth && 'parsedBody' in body) {
        const refused = gate.challenge(body.parsedBody, auth);
        if (refused) return refused;
      }
      const extra = { ...(auth ? { authInfo: auth } : {}), ...body };
      if (legacy && (await isLegacyRequest(request, body.parsedBody, { maxRequestBodySize: maxBody }))) {
        return legacy.handle(request, extra, given?.direct === true);
      }
      const taskIds = listenTaskIds(body.parsedBody);
      if (taskIds) return listenWithTasks(modern, request, extra, taskIds, factory.tasks, taskStreams);
      if (checkHeaders && request.headers.get('mcp-method') === 'tools/call') {
        const mismatch = await headerMismatch(request, body);
        if (mismatch) return mismatch;
      }
      return modern.fetch(request, extra);
    },
    async close() {
      await Promise.all([modern.close(), legacy?.close(), factory.close()]);
    },
    settled: (timeoutMs) => factory.settled(timeoutMs),
  };
}

/**
 * What the caller of `fetch(request, { direct: true })` tells the endpoint about a response body it writes itself,
 * in place of the stream the endpoint would wrap it in: each chunk as it is written, the body's end (done, or
 * failed), and the client leaving before the end (the caller cancels the body). The wrapper hears the same from
 * its reader: the endpoint counts the request busy until then, and learns the stream's first event id.
 */
export interface BodyWatch {
  written(chunk: Uint8Array): void;
  ended(): void;
  left(): void;
}

const watches = new WeakMap<Response, BodyWatch>();

/** The watch of a response `fetch` returned for `direct: true`; undefined when there is nothing to tell. */
export const bodyWatch = (response: Response): BodyWatch | undefined => watches.get(response);

/** Whether the spec's `auth` checks each request's token (it has `auth`, and the options do not turn it off). */
const checksTokens = (options: HttpSecurityOptions) => access !== undefined && options.auth !== false;

/** Whether a request is authenticated (the spec's `auth`, or an authenticate hook) before its body is read. */
export const authenticates = (options: HttpSecurityOptions) => checksTokens(options) || !!options.authenticate;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Who opened it (the authentication hook's clientId): nobody else may use or end it. */
  principal: string;
  /** Requests whose response is still open (a stream counts until it ends). */
  busy: number;
  lastSeen: number;
  /** When it was last used, in order: two uses in one millisecond are still told apart. */
  used: number;
  /** Why the shared store could not record it (it is no session then). */
  unrecorded?: unknown;
}

/** The calls a request carried, to cancel if its client leaves for good; and the stream they are answered on. */
interface Departure {
  session: Session;
  cancels: (() => void)[];
  /**
   * The SDK's stream, once the response's first event id is seen (resumable sessions only): asked of the store
   * only if the client leaves, so that a call costs the store no lookup (a round trip, for a shared one).
   */
  stream?: () => Promise<string | undefined>;
}

/** Calls whose client left their stream, waiting `resumeWindowMs` for it to resume before they are cancelled. */
interface Waiting {
  timer: ReturnType<typeof setTimeout>;
  cancels: (() => void)[];
}

/** The sessionful 2025 leg: one transport and one server instance per session, capped, idle ones expired. */
class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly max: number;
  private readonly idleMs: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private uses = 0;
  private readonly store: SessionEventStore | undefined;
  private readonly retryMs: number;
  private readonly resumeWindowMs: number;
  /** By session id and the SDK's stream id (a line feed between: neither holds one). */
  private readonly waiting = new Map<string, Waiting>();

  private readonly shared: SessionStore | undefined;
  /** Sessions of the shared store being restored here, by id: one restoration however many requests ask. */
  private readonly restoring = new Map<string, Promise<Session | Response | undefined>>();

  constructor(
    private readonly factory: ServerFactory,
    options: HttpLimits & Pick<WebHandlerOptions, 'resumption' | 'sessions'>,
    private readonly maxBody: number,
  ) {
    this.max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.shared = options.sessions;
    const resumption = options.resumption === false ? undefined : (options.resumption ?? {});
    this.store = resumption && (resumption.store ?? this.shared?.events ?? createMemoryEventStore());
    this.retryMs = resumption?.retryMs ?? DEFAULT_SSE_RETRY_MS;
    this.resumeWindowMs = resumption?.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS;
  }

  async handle(
    request: Request,
    extra: { authInfo?: AuthInfo; parsedBody?: unknown },
    direct = false,
  ): Promise<Response> {
    const { authInfo } = extra;
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      let session: Session | Response | undefined = this.sessions.get(id);
      if (this.shared) session = await this.fromShared(id, session, request, extra).catch(unreachable);
      if (session instanceof Response) return session;
      // Another caller's session is answered as if it did not exist: its id proves nothing.
      if (!session || session.principal !== principalOf(authInfo)) {
        return jsonError(404, -32600, 'Session not found: initialize a new session');
      }
      const lastEventId = request.method === 'GET' ? request.headers.get('last-event-id') : null;
      if (lastEventId && this.store) return this.resume(session, id, lastEventId, request, extra);
      return this.track(session, request, session.transport.handleRequest(request, extra), direct);
    }
    if (this.sessions.size >= this.max && !this.evictIdle()) return this.full();
    // No session yet: a transport that keeps one only if this request is an initialize.
    const session = await this.open(request, authInfo, initializeParams(extra.parsedBody));
    const response = await this.track(session, request, session.transport.handleRequest(request, extra), direct);
    if (!session.transport.sessionId || session.unrecorded !== undefined) void session.transport.close();
    if (session.unrecorded === undefined) return response;
    // The SDK answered it as a bad request: the truth is that the shared store could not record the session.
    watches.get(response)?.left();
    void response.body?.cancel();
    return unreachable(session.unrecorded);
  }

  private full(): Response {
    return jsonError(503, -32603, `Too many open sessions (${this.max}); try again later`, { 'retry-after': '60' });
  }

  /**
   * A session on its own transport and server instance. `init`: the initialize request's params, recorded in the
   * shared store once it succeeds. `restoring`: the id of a shared session this instance takes over.
   */
  private async open(
    request: Request,
    authInfo: AuthInfo | undefined,
    init: unknown,
    restoring?: string,
  ): Promise<Session> {
    const session: Session = {
      transport: undefined as never,
      principal: principalOf(authInfo),
      busy: 0,
      lastSeen: Date.now(),
      used: ++this.uses,
    };
    const quiet = { on: restoring !== undefined };
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => restoring ?? crypto.randomUUID(),
      maxRequestBodySize: this.maxBody,
      // A priming event (an id, empty data) opens every POST stream of a 2025-11-25 client, with this retry.
      ...(this.store
        ? { eventStore: sessionEventStore(this.store, () => transport.sessionId, quiet), retryInterval: this.retryMs }
        : {}),
      onsessioninitialized: async (sid) => {
        if (this.shared && !restoring) {
          const record = JSON.stringify({ principal: session.principal, init });
          await this.shared.open(sid, record, this.idleMs).catch((error: unknown) => {
            session.unrecorded = error;
            throw error;
          });
        }
        this.sessions.set(sid, session);
        this.sweep();
      },
      onsessionclosed: async (sid) => {
        this.sessions.delete(sid);
        // Ended by its client (DELETE): for every instance when they share sessions.
        if (this.shared) await Promise.all([this.shared.end(sid), this.store?.forget(sid)]);
      },
    });
    session.transport = transport;
    const server = this.factory({ era: 'legacy', requestInfo: request, ...(authInfo ? { authInfo } : {}) });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid) {
        if (this.sessions.get(sid) === session) this.sessions.delete(sid);
        // A shared session's events stay for the other instances: closing here is not its end.
        if (!this.shared) void this.store?.forget(sid);
        for (const [key, w] of this.waiting) {
          if (!key.startsWith(`${sid}\n`)) continue;
          clearTimeout(w.timer);
          this.waiting.delete(key);
        }
      }
      void server.close();
    };
    await server.connect(transport);
    // A cancelled request gets no response, so its stream would stay open (kept alive by pings) until the session
    // ends: end it when the cancellation arrives.
    const deliver = transport.onmessage;
    transport.onmessage = (message, info) => {
      deliver?.(message, info);
      // A client that goes away without a word (its POST's stream closed) cancels the calls that POST carried, as
      // a cancellation would: the handler's signal aborts, and a call waiting for answers frees its slot.
      if ('method' in message && 'id' in message && info?.request) {
        const requestId = message.id;
        this.whenGone(info.request, session, () =>
          deliver?.({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'the client closed the request' },
          }),
        );
      }
      if ('method' in message && message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof id === 'string' || typeof id === 'number') transport.closeSSEStream(id);
      }
    };
    if (restoring !== undefined) {
      // The handshake again, inside: the server instance learns the client as the first instance did. Its
      // answers are nobody's, so none is kept as an event.
      const post = (message: object, sid?: string) =>
        transport.handleRequest(
          new Request(request.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...(sid ? { 'mcp-session-id': sid } : {}),
            },
            body: JSON.stringify(message),
          }),
          { parsedBody: message, ...(authInfo ? { authInfo } : {}) },
        );
      const answer = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init });
      await answer.text();
      if (answer.ok) await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, restoring)).text();
      quiet.on = false;
    }
    return session;
  }

  /**
   * The session `id` names in the shared store, its idle time restarted: this instance's own copy while the
   * store still has it (ended elsewhere, the copy goes), else restored here from its record.
   */
  private async fromShared(
    id: string,
    local: Session | undefined,
    request: Request,
    extra: { authInfo?: AuthInfo },
  ): Promise<Session | Response | undefined> {
    const record = SESSION_ID.test(id) ? sharedRecord(await this.shared!.touch(id, this.idleMs)) : undefined;
    if (!record) {
      if (local) {
        this.sessions.delete(id);
        void local.transport.close();
      }
      return undefined;
    }
    if (local) return local;
    if (record.principal !== principalOf(extra.authInfo)) return undefined;
    let pending = this.restoring.get(id);
    if (!pending) {
      pending = (async () => {
        if (this.sessions.size >= this.max && !this.evictIdle()) return this.full();
        const session = await this.open(request, extra.authInfo, record.init, id);
        if (this.sessions.get(id) === session) return session;
        void session.transport.close(); // a record the SDK refused: no session
        return undefined;
      })().finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    return pending;
  }

  /**
   * A GET with Last-Event-ID: the events after it on its stream, then the stream live, when it is an event of this
   * session that can still be resumed from; 400 otherwise, the same answer whatever the reason, so it tells a
   * forger nothing. The calls of that stream, waiting for their client to come back, are its again.
   */
  private async resume(
    session: Session,
    sid: string,
    lastEventId: string,
    request: Request,
    extra: { authInfo?: AuthInfo },
  ): Promise<Response> {
    const stream = lastEventId.length <= MAX_EVENT_ID_LENGTH ? await this.store!.streamOf(sid, lastEventId) : undefined;
    if (stream === undefined) {
      return jsonError(
        400,
        -32600,
        'Cannot resume: Last-Event-ID is not an event of this session that is still kept (events are kept for a ' +
          'while and up to a limit); the calls of that stream cannot be resumed',
      );
    }
    const response = await this.track(session, request, session.transport.handleRequest(request, extra));
    const key = `${sid}\n${stream}`;
    const waiting = this.waiting.get(key);
    if (response.ok && waiting) {
      clearTimeout(waiting.timer);
      this.waiting.delete(key);
      for (const cancel of waiting.cancels) this.whenGone(request, session, cancel);
      this.gone.get(request)!.stream = () => Promise.resolve(stream);
    }
    return response;
  }

  async close(): Promise<void> {
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
    if (this.sweeper) clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.transport.close()));
  }

  /** What to do for each call a POST carried when its client leaves before the answer (the response unread). */
  private readonly gone = new WeakMap<Request, Departure>();

  private whenGone(request: Request, session: Session, cancel: () => void) {
    let departure = this.gone.get(request);
    if (!departure) {
      this.gone.set(request, (departure = { session, cancels: [] }));
      // The runtime aborts a request's signal when its client disconnects (Node's adapter, Deno, Bun, workerd).
      request.signal.addEventListener('abort', () => this.left(request), { once: true });
    }
    departure.cancels.push(cancel);
  }

  /**
   * The client left a stream that carries calls. Without resumption, or before it saw an event id (it cannot
   * resume then), they are cancelled at once; otherwise after resumeWindowMs unless it resumes the stream first:
   * a broken connection is not a cancellation (Streamable HTTP, "Sending Messages to the Server").
   */
  private left(request: Request) {
    const departure = this.gone.get(request);
    this.gone.delete(request);
    if (!departure?.cancels.length) return;
    const cancelAll = () => departure.cancels.forEach((cancel) => cancel());
    const sid = departure.session.transport.sessionId;
    if (!departure.stream || !sid) return cancelAll();
    void departure.stream().then((stream) => {
      if (stream === undefined || !this.sessions.has(sid)) return cancelAll();
      const key = `${sid}\n${stream}`;
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        cancelAll();
      }, this.resumeWindowMs);
      (timer as { unref?: () => void }).unref?.();
      this.waiting.set(key, { timer, cancels: departure.cancels });
    }, cancelAll);
  }

  /** Reads the stream's first event id off a resumable response, to know which stream its calls are on. */
  private watchStream(request: Request, chunk: Uint8Array) {
    const departure = this.gone.get(request);
    const sid = departure?.session.transport.sessionId;
    if (!departure || departure.stream || !sid || !this.store) return;
    const id = /(?:^|\n)id: ([^\n]{1,256})\n/.exec(UTF8.decode(chunk))?.[1];
    const store = this.store;
    // (async: a store that throws rejects, which left() answers by cancelling the calls)
    if (id !== undefined) departure.stream = async () => store.streamOf(sid, id);
  }

  /** The session is used now: for idle expiry (the clock) and for which one was used last (the order). */
  private touch(session: Session) {
    session.lastSeen = Date.now();
    session.used = ++this.uses;
  }

  /**
   * Counts the request as busy until its response (a stream, maybe) ends; a response left unread cancels. `direct`:
   * the response as the SDK made it, and its caller tells its end and its client's departure (bodyWatch), as the
   * wrapping stream would have learned them from its reader.
   */
  private async track(
    session: Session,
    request: Request,
    pending: Promise<Response>,
    direct = false,
  ): Promise<Response> {
    session.busy++;
    this.touch(session);
    let response: Response;
    try {
      response = await pending;
    } catch (error) {
      session.busy--;
      this.gone.delete(request);
      throw error;
    }
    const done = () => {
      session.busy--;
      this.touch(session);
      this.gone.delete(request);
    };
    if (!response.body) {
      done();
      return response;
    }
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      done();
    };
    const resumable = this.store !== undefined && response.headers.get('content-type') === 'text/event-stream';
    if (direct) {
      watches.set(response, {
        written: resumable ? (chunk) => this.watchStream(request, chunk) : () => undefined,
        ended: end,
        left: () => {
          this.left(request);
          end();
        },
      });
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { value, done: finished } = await reader.read();
          if (finished) {
            end();
            controller.close();
          } else {
            if (resumable) this.watchStream(request, value);
            controller.enqueue(value);
          }
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel: (reason) => {
        this.left(request);
        end();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** Closes the session idle longest (nothing open); false when every session is busy. */
  private evictIdle(): boolean {
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) {
      if (entry[1].busy === 0 && (!oldest || entry[1].used < oldest[1].used)) oldest = entry;
    }
    if (!oldest) return false;
    this.sessions.delete(oldest[0]);
    void oldest[1].transport.close();
    return true;
  }

  /** Expires idle sessions from time to time while there are any. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [sid, s] of this.sessions) {
          if (s.busy === 0 && now - s.lastSeen > this.idleMs) {
            this.sessions.delete(sid);
            void s.transport.close();
          }
        }
        if (!this.sessions.size) {
          clearInterval(this.sweeper);
          this.sweeper = undefined;
        }
      },
      Math.min(60_000, Math.max(1_000, this.idleMs / 4)),
    );
    (this.sweeper as { unref?: () => void }).unref?.();
  }
}

// Resumable 2025 streams (Streamable HTTP, "Resumability and Redelivery"): each message a session's SSE stream
// carries is kept for a while under an event id, so a client whose connection broke can GET with `Last-Event-ID`
// and be sent what it missed on that stream, and only that. The store is keyed by session: an event id is looked
// up among the events of the session the request belongs to, never elsewhere, so another session's id (or a forged
// one) finds nothing. The in-memory store is the default; a deployment with several instances replaces it with a
// shared one behind the same interface.

/** Where the events of every 2025 session of an endpoint are kept. Every method gets the session's id. */
export interface SessionEventStore {
  /** Keeps `message`, sent on the SDK's stream `stream` of `session`; resolves with its event id. */
  append(session: string, stream: string, message: JSONRPCMessage): Promise<string>;
  /**
   * The stream a client sending `eventId` as Last-Event-ID resumes: undefined unless it is an event of this
   * session whose stream still holds every event after it (not past a cap or the age limit). `eventId` is
   * untrusted input: any string.
   */
  streamOf(session: string, eventId: string): Promise<string | undefined>;
  /**
   * Sends, in order, every event of that stream after `eventId` (those appended meanwhile too); resolves with the
   * stream, or undefined, having sent nothing, when streamOf would say undefined.
   */
  replayAfter(
    session: string,
    eventId: string,
    send: (eventId: string, message: JSONRPCMessage) => Promise<void>,
  ): Promise<string | undefined>;
  /** Forgets a session's events: it has ended. */
  forget(session: string): Promise<void>;
}

/**
 * 2025 sessions shared by the instances of an endpoint (createRedisSessionStore): a record per open session, which
 * any instance restores its session from, and the events of its streams. Ids and what the store hands back are
 * untrusted: an id is checked before it reaches the store, a record is parsed and bounded.
 */
export interface SessionStore {
  /** Keeps the record of a session just opened here, for `idleMs` unless touched. */
  open(id: string, record: string, idleMs: number): Promise<void>;
  /** The record of an open session, its idle time restarted; undefined once it ended or expired, or never was. */
  touch(id: string, idleMs: number): Promise<string | undefined>;
  /** The session ended (its client's DELETE): no instance serves it any more. */
  end(id: string): Promise<void>;
  /** Where its streams' events are kept, for any instance to resume them (unless resumption.store says otherwise). */
  events: SessionEventStore;
}

/** The answer while the shared session store fails (its error is logged): the client may try again. */
function unreachable(error: unknown): Response {
  console.error('[toolspec] HTTP: the session store failed:', error instanceof Error ? error.message : error);
  return jsonError(503, -32603, 'The session store cannot be reached; try again later', { 'retry-after': '5' });
}

/** The ids this endpoint gives sessions (randomUUID): anything else is no session, and never reaches a store. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A shared record longer than this is no record (an initialize request is far smaller). */
export const MAX_SESSION_RECORD_CHARS = 64 * 1024;

interface SharedRecord {
  principal: string;
  /** The initialize request's params, for the handshake a restoring instance repeats. */
  init: Record<string, unknown>;
}

function sharedRecord(text: string | undefined): SharedRecord | undefined {
  if (text === undefined || text.length > MAX_SESSION_RECORD_CHARS) return undefined;
  try {
    const record = JSON.parse(text) as Partial<SharedRecord>;
    const ok = typeof record.principal === 'string' && typeof record.init === 'object' && record.init !== null;
    return ok ? (record as SharedRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** The params of the initialize request a body is (the SDK takes no other body for a new session). */
function initializeParams(body: unknown): unknown {
  const message = body as { method?: unknown; params?: unknown } | null;
  return typeof message === 'object' && message?.method === 'initialize' ? message.params : undefined;
}

export interface MemoryEventStoreOptions {
  /** Events kept per stream (default 1,000); past it the oldest go, and a resumption from before them is refused. */
  maxEventsPerStream?: number;
  /** Events kept for all sessions together (default 10,000); past it the oldest go, whoever's they are. */
  maxEvents?: number;
  /** Characters of JSON kept for all sessions together (default 16 Mi); past it the oldest go. */
  maxChars?: number;
  /** An event older than this is gone (default 5 minutes). */
  maxAgeMs?: number;
}

export const DEFAULT_MAX_EVENTS_PER_STREAM = 1000;
export const DEFAULT_MAX_EVENTS = 10_000;
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;
export const DEFAULT_EVENT_MAX_AGE_MS = 5 * 60_000;
/** A Last-Event-ID longer than this is refused before any store sees it. */
export const MAX_EVENT_ID_LENGTH = 128;

/**
 * The memory store's ids: a random UUID naming the stream, then the event's number in it. Unique is all it needs to
 * be (find() answers only the session's own streams), and randomUUID draws from a pooled source where a
 * getRandomValues call per stream cost a system call each.
 */
const EVENT_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(0|[1-9][0-9]{0,14})$/;

interface Kept {
  seq: number;
  at: number;
  json: string;
}

interface Stream {
  key: string;
  session: string;
  sdkStream: string;
  /** Events `floor`, `floor + 1`, … `next - 1`, oldest first: never a gap. */
  events: Kept[];
  floor: number;
  next: number;
  /** Its response has been sent: nothing more will be appended. */
  done: boolean;
}

/** The in-memory store: bounded by events per stream, events and characters in all, and age. */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): SessionEventStore {
  const perStream = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const maxChars = options.maxChars ?? DEFAULT_MAX_EVENT_CHARS;
  const maxAge = options.maxAgeMs ?? DEFAULT_EVENT_MAX_AGE_MS;
  const sessions = new Map<string, Map<string, Stream>>();
  const byKey = new Map<string, Stream>();
  /** Every kept event in the order appended (so oldest first), for the caps on all and the age limit. */
  let order: { stream: Stream; seq: number }[] = [];
  let head = 0;
  let count = 0;
  let chars = 0;

  const drop = (stream: Stream, n: number) => {
    for (const e of stream.events.splice(0, n)) {
      count--;
      chars -= e.json.length;
    }
    stream.floor = stream.events[0]?.seq ?? stream.next;
    if (!stream.events.length && stream.done) remove(stream);
  };
  const remove = (stream: Stream) => {
    chars -= stream.events.reduce((n, e) => n + e.json.length, 0);
    count -= stream.events.length;
    stream.events = [];
    byKey.delete(stream.key);
    sessions.get(stream.session)?.delete(stream.sdkStream);
  };
  /** Drops the oldest events while a cap on all is passed or they are too old. */
  const prune = (now: number) => {
    while (head < order.length) {
      const { stream, seq } = order[head]!;
      const oldest = stream.events[0];
      if (!oldest || oldest.seq !== seq || byKey.get(stream.key) !== stream) {
        head++; // already gone (its stream's own cap, or its session ended)
        continue;
      }
      if (count <= maxEvents && chars <= maxChars && now - oldest.at <= maxAge) break;
      drop(stream, 1);
      head++;
    }
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      head = 0;
    }
  };
  /** This session's stream that `eventId` names, and the event's number; undefined for anything else. */
  const find = (session: string, eventId: string): [Stream, number] | undefined => {
    const m = eventId.length <= MAX_EVENT_ID_LENGTH ? EVENT_ID.exec(eventId) : null;
    if (!m) return undefined;
    const stream = byKey.get(m[1]!);
    const seq = Number(m[2]);
    // Another session's stream is answered as if it did not exist. The client has seen `seq`: it needs every
    // event after it, and they must all still be here.
    if (!stream || stream.session !== session || seq >= stream.next || seq + 1 < stream.floor) return undefined;
    return [stream, seq];
  };

  return {
    async append(session, sdkStream, message) {
      const now = Date.now();
      let streams = sessions.get(session);
      if (!streams) sessions.set(session, (streams = new Map()));
      let stream = streams.get(sdkStream);
      if (!stream) {
        const key = crypto.randomUUID();
        stream = { key, session, sdkStream, events: [], floor: 0, next: 0, done: false };
        streams.set(sdkStream, stream);
        byKey.set(key, stream);
      }
      const seq = stream.next++;
      const json = JSON.stringify(message);
      if ('id' in message && ('result' in message || 'error' in message)) stream.done = sdkStream !== STANDALONE;
      if (json.length > maxChars) {
        // Too large to keep: the stream cannot be resumed from before it.
        drop(stream, stream.events.length);
        stream.floor = stream.next;
      } else {
        stream.events.push({ seq, at: now, json });
        order.push({ stream, seq });
        count++;
        chars += json.length;
        if (stream.events.length > perStream) drop(stream, stream.events.length - perStream);
      }
      const id = `${stream.key}.${seq}`;
      prune(now);
      return id;
    },
    async streamOf(session, eventId) {
      prune(Date.now());
      return find(session, eventId)?.[0].sdkStream;
    },
    async replayAfter(session, eventId, send) {
      prune(Date.now());
      const found = find(session, eventId);
      if (!found) return undefined;
      const [stream] = found;
      // Live: events appended while this sends are sent too, so none falls between the replay and the stream.
      for (let seq = found[1] + 1; seq < stream.next; seq++) {
        const event = stream.events[seq - stream.floor];
        if (!event || event.seq !== seq) break; // dropped meanwhile (a cap): the client resumes again and is refused
        const message = JSON.parse(event.json) as JSONRPCMessage;
        // The priming event (empty data) has nothing to deliver.
        if ('jsonrpc' in message) await send(`${stream.key}.${seq}`, message);
      }
      return stream.sdkStream;
    },
    async forget(session) {
      for (const stream of sessions.get(session)?.values() ?? []) remove(stream);
      sessions.delete(session);
    },
  };
}

/** The SDK's name for a session's standalone (GET) stream, which never ends with a response. */
const STANDALONE = '_GET_stream';

/**
 * The SDK transport's view of the store for one session (its id is known once it has initialized). While
 * `quiet.on`, nothing is kept: the answers to a restored session's inner handshake.
 */
export function sessionEventStore(
  store: SessionEventStore,
  session: () => string | undefined,
  quiet = { on: false },
): EventStore {
  const sid = () => {
    const id = session();
    if (id === undefined) throw new Error('no session yet: nothing to keep events for');
    return id;
  };
  return {
    storeEvent: async (stream, message) => (quiet.on ? '' : store.append(sid(), stream, message)),
    getStreamIdForEventId: (eventId) => store.streamOf(sid(), eventId),
    async replayEventsAfter(eventId, { send }) {
      const stream = await store.replayAfter(sid(), eventId, send);
      // Checked just before (streamOf): only a cap or the age limit passed in between reaches here.
      if (stream === undefined) throw new Error('the events after this Last-Event-ID are no longer kept');
      return stream;
    },
  };
}

/** The `taskIds` a 2026-07-28 subscriptions/listen asks task notifications for (SEP-2663), if it asks. */
function listenTaskIds(body: unknown): unknown[] | undefined {
  const message = body as { method?: unknown; params?: { notifications?: { taskIds?: unknown } } } | null;
  if (typeof message !== 'object' || message?.method !== 'subscriptions/listen') return undefined;
  const ids = message.params?.notifications?.taskIds;
  return Array.isArray(ids) ? ids : undefined;
}

/**
 * subscriptions/listen with `taskIds`: the SDK serves the rest of the filter, and its stream carries the tasks'
 * notifications/tasks too. Its acknowledgement lists the ids followed (the caller's tasks); its stream, which the
 * SDK ends at once when nothing else was asked, stays open until every followed task has ended or the client left.
 * A client that did not declare the tasks extension gets -32021, as the extension requires.
 */
async function listenWithTasks(
  modern: { fetch(request: Request, extra: object): Promise<Response> },
  request: Request,
  extra: { authInfo?: AuthInfo; parsedBody?: unknown },
  taskIds: unknown[],
  tasks: Tasks | undefined,
  streams: { open: number; max: number },
): Promise<Response> {
  const message = extra.parsedBody as {
    id: string | number;
    params: { notifications: Record<string, unknown>; _meta?: Record<string, unknown> };
  };
  const capabilities = message.params._meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: object } | undefined;
  if (!(capabilities?.extensions && Object.hasOwn(capabilities.extensions, TASKS_EXTENSION))) {
    const { code, message: text, data } = tasksRequired('Task notifications');
    return Response.json({ jsonrpc: '2.0', id: message.id, error: { code, message: text, data } });
  }
  const { taskIds: _, ...rest } = message.params.notifications;
  const parsedBody = { ...message, params: { ...message.params, notifications: rest } };
  if (streams.open >= streams.max)
    return Response.json({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32603, message: 'Subscription limit reached' },
    });
  const follow = tasks ? await followTasks(tasks, taskIds, principalOf(extra.authInfo)) : undefined;
  const response = await modern.fetch(request, { ...extra, parsedBody });
  if (!response.body || response.headers.get('content-type') !== 'text/event-stream') {
    follow?.stop();
    return response;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const frame = (m: object) => encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let counted = true;
  streams.open++;
  const uncount = () => {
    if (counted) streams.open--;
    counted = false;
  };
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (chunk: Uint8Array) => {
        try {
          controller.enqueue(chunk);
        } catch {
          // the client left
        }
      };
      let following: Promise<void> = Promise.resolve();
      let last: Uint8Array | undefined;
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const text = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(text)?.[1];
          const sdk = data === undefined ? undefined : (JSON.parse(data) as Record<string, unknown>);
          if (sdk?.['method'] === 'notifications/subscriptions/acknowledged') {
            const params = sdk['params'] as { notifications: object; _meta?: object };
            params.notifications = { ...params.notifications, taskIds: follow?.honored ?? [] };
            write(frame(sdk));
            following =
              follow?.start((task) =>
                write(
                  frame({
                    jsonrpc: '2.0',
                    method: 'notifications/tasks',
                    params: { ...task, _meta: { [SUBSCRIPTION_ID_META_KEY]: message.id } },
                  }),
                ),
              ) ?? following;
            keepAlive = setInterval(() => write(encoder.encode(': keepalive\n\n')), KEEP_ALIVE_MS);
          } else if (sdk && 'result' in sdk) {
            last = encoder.encode(text); // the stream's end: after the tasks'
          } else write(encoder.encode(text));
        }
      }
      await following;
      clearInterval(keepAlive);
      uncount();
      if (last) write(last);
      try {
        controller.close();
      } catch {
        // cancelled
      }
    },
    cancel(reason) {
      follow?.stop();
      clearInterval(keepAlive);
      uncount();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** A comment line on a listen stream kept open for tasks alone, so that no proxy takes it for idle. */
const KEEP_ALIVE_MS = 15_000;

/**
 * A 2026-07-28 tools/call whose Mcp-Param-* headers disagree with its arguments (SEP-2243): 400 with -32020, as the
 * SDK answers for its own standard headers. A header is required when the argument it mirrors is in the body.
 */
async function headerMismatch(request: Request, read: { parsedBody?: unknown }): Promise<Response | undefined> {
  let body: { id?: unknown; params?: { name?: unknown; arguments?: unknown } };
  try {
    body = ('parsedBody' in read ? read.parsedBody : await request.clone().json()) as typeof body;
  } catch {
    return undefined; // the SDK answers a body that is not JSON
  }
  const name = body?.params?.name;
  const declared = typeof name === 'string' && Object.hasOwn(mcpHeaders, name) ? mcpHeaders[name] : undefined;
  for (const d of declared ?? []) {
    let value: unknown = body.params?.arguments;
    for (const step of d.path)
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[step] : undefined;
    const text =
      typeof value === 'string'
        ? value
        : typeof value === 'boolean' || Number.isSafeInteger(value)
          ? String(value)
          : undefined;
    if (text === undefined) continue;
    const header = `Mcp-Param-${d.header}`;
    const sent = request.headers.get(header);
    const decoded = sent === null ? undefined : decodeParam(sent);
    const why =
      sent === null
        ? `the ${header} header is missing, and the arguments carry ${d.path.join('.')}`
        : decoded === undefined
          ? `the ${header} header is not valid =?base64?…?= encoding`
          : decoded !== text
            ? `the ${header} header says ${JSON.stringify(decoded)}, the arguments say ${d.path.join('.')}=${JSON.stringify(value)}`
            : undefined;
    if (why) {
      const error = {
        code: -32020,
        message: `Bad Request: the request headers and body disagree: ${why}`,
        data: { mismatch: { header, body: d.path.join('.') } },
      };
      return Response.json({ jsonrpc: '2.0', id: body.id ?? null, error }, { status: 400 });
    }
  }
  return undefined;
}

/** An Mcp-Param-* value: as sent, or decoded from =?base64?…?=; undefined when that encoding is broken. */
function decodeParam(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const b64 = value.slice(9, -2);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * A JSON POST's body, read once (when its Content-Length is known, or `always`) and parsed, for the SDK to take as
 * `parsedBody`, where it would read and parse it twice (isLegacyRequest's clone, then the transport). Any other
 * request goes on as it came, and a body that is not JSON goes on as the bytes read: the SDK answers both as it
 * always has (test/web-body.test.ts holds the answers equal to the SDK reading the body itself).
 */
async function readOnce(
  request: Request,
  maxBody: number,
  always: boolean,
): Promise<{ request: Request; parsedBody?: unknown } | Response> {
  if (request.method !== 'POST' || !request.body || !(always || request.headers.has('content-length')))
    return { request };
  // Another content type is the SDK's to refuse (415), before it reads anything.
  if (!isJsonContentType(request.headers.get('content-type') ?? '')) return { request };
  const bytes = await readBytes(request.body, maxBody);
  if (!bytes) return jsonError(413, -32600, `Request body too large: at most ${maxBody} bytes`);
  try {
    return { request, parsedBody: JSON.parse(UTF8.decode(bytes)) as unknown };
  } catch {
    // The bytes, not their text: a second decoding would drop a second byte order mark.
    return { request: new Request(request, { body: bytes }) };
  }
}

/** A body's bytes, or undefined as soon as more than `max` have come. */
async function readBytes(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > max) {
      void reader.cancel();
      return undefined;
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
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

/** toolspec's own HTTP errors: JSON-RPC bodies with codes outside the range MCP keeps for legacy use. */
function jsonError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });
}

/**
 * The server card (experimental: SEP-2127's v1 card, a draft), served at `<mcp path>/server-card` when the
 * handler is made with `serverCard: true` (`--server-card`): who the server is, where to reach it, what it
 * offers, as JSON a client can read before it connects, from the generated manifest; with the spec's
 * `auth`, the card names the server and its remote only, since the tools a caller sees depend on its token.
 */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** The card's text for a server reached at `url` (the MCP endpoint as the client asked for it). */
export function serverCard(url: string): string {
  const { name, version, title, description, websiteUrl, icons } = serverInfo as typeof serverInfo & {
    description?: string;
  };
  const open = access === undefined;
  const card = {
    $schema: SERVER_CARD_SCHEMA,
    name,
    version,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(websiteUrl === undefined ? {} : { websiteUrl }),
    ...(icons === undefined ? {} : { icons }),
    remotes: [
      {
        type: 'streamable-http',
        url,
        // The SDK's list holds the 2025 revisions; 2026-07-28 is served beside them (its stateless handler).
        supportedProtocolVersions: ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS],
        ...(open ? {} : { authentication: { required: true, schemes: ['oauth2'] } }),
      },
    ],
    capabilities: {
      tools: {},
      ...(prompts.length ? { prompts: {} } : {}),
      ...(resources.length ? { resources: {} } : {}),
    },
    ...(open ? { tools, ...(prompts.length ? { prompts } : {}), ...(resources.length ? { resources } : {}) } : {}),
  };
  return JSON.stringify(card);
}
