/**
 * The context every handler receives: cancellation, progress, logging to the client, questions to the user or the
 * client's model (elicitation, sampling, roots), and who is calling on which protocol era.
 */
import type {
  AuthInfo,
  ClientCapabilities,
  CreateMessageRequestParams,
  LoggingLevel,
  Root,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { ElicitRequest, ElicitSchema, Elicited, Round, SamplingResult } from './input.js';

/** "modern": protocol 2026-07-28 (no session, everything per request). "legacy": a 2025 revision (initialize, sessions). */
export type ProtocolEra = 'modern' | 'legacy';

/** A verified caller (ctx.caller). */
export interface Caller {
  /** The token's `sub`: the user, or for a client acting on its own behalf, often the client. */
  readonly subject: string | undefined;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
}

/** ctx.caller, from what the authentication returned. */
export function callerOf(authInfo: AuthInfo | undefined): Caller | undefined {
  if (!authInfo) return undefined;
  const extra = authInfo.extra ?? {};
  const sub = extra['sub'];
  const claims = extra['claims'];
  return {
    subject: typeof sub === 'string' ? sub : undefined,
    clientId: authInfo.clientId,
    scopes: authInfo.scopes,
    claims: typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {},
  };
}

export interface ToolContext {
  /** The tool being called. */
  readonly toolName: string;
  /**
   * Aborted when the client cancels the call (or closes its request's stream or the connection: over resumable 2025
   * HTTP, once it has not come back for the call within resumeWindowMs), or its timeout passes.
   */
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  /** The protocol era the call came in on; handlers rarely need it (asking for input works the same on both). */
  readonly era: ProtocolEra;
  /** The protocol revision the client speaks, e.g. "2026-07-28" or "2025-11-25". */
  readonly protocolVersion: string | undefined;
  /** What the client said it can do (elicitation, sampling, roots …): per request on 2026-07-28, per session before. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The MCP session, for 2025 clients over sessionful HTTP; 2026-07-28 has no sessions. */
  readonly sessionId: string | undefined;
  /**
   * Who is calling, over HTTP with the spec's `auth`: the verified token's subject, client and scopes (and the
   * token's claims, as the issuer wrote them); with an authenticate hook, what it returned. Over stdio: undefined.
   */
  readonly caller: Caller | undefined;
  /** The SDK's record of the same: what the authentication (the spec's auth or your hook) returned, token included. */
  readonly authInfo: AuthInfo | undefined;
  /** The HTTP request's headers, over HTTP. */
  readonly headers: Headers | undefined;
  /** 1 on the first call; one more each time the client calls again with answers. */
  readonly round: number;
  /**
   * Reports progress when the client asked for it (a progressToken); otherwise does nothing. Values must increase:
   * one that does not is dropped, as the protocol requires.
   */
  progress(progress: number, options?: { total?: number; message?: string }): Promise<void>;
  /**
   * Sends a log message to the client (notifications/message) when it asked for that level: with logging/setLevel
   * on 2025 connections, with the request's own log level on 2026-07-28 (no level: no messages). A 2025 client
   * served without a session (stateless HTTP) is not offered logging, and gets none.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user to fill in a form (elicitation). Resolves with the answer, its content checked against the form
   * and typed from it; without one yet, the call ends here and the tool is called again once the user answered.
   * `key` names the question: unique within the call, the same on every round.
   */
  elicit<const S extends ElicitSchema>(key: string, request: ElicitRequest<S>): Promise<Elicited<S>>;
  /** Asks the user to complete an interaction at a URL (URL elicitation); resolves with what they did. */
  elicitUrl(
    key: string,
    request: { message: string; url: string },
  ): Promise<{ action: 'accept' | 'decline' | 'cancel' }>;
  /** Asks the client's model for a completion (sampling); `samplingText(result)` reads its text. */
  sample(key: string, request: CreateMessageRequestParams): Promise<SamplingResult>;
  /** Asks the client for its roots (the folders or URIs it lets the server work in). */
  listRoots(key: string): Promise<Root[]>;
  /**
   * A value computed once per call and kept for its later rounds: `compute` runs on the first round that reaches
   * it, later rounds get its result (JSON) back. Use it for work that must not be repeated when the handler runs
   * again after a question (creating a draft, an id). Kept values travel signed but readable through the client.
   */
  keep<T>(key: string, compute: () => T | Promise<T>): Promise<T>;
  /** The SDK's own request context, for anything not covered above. */
  readonly sdk: ServerContext;
}

/** What the context needs from the server instance that serves the call. */
export interface Connection {
  getClientCapabilities(): ClientCapabilities | undefined;
  getNegotiatedProtocolVersion(): string | undefined;
  /** True when it serves one 2025 request without a session (stateless HTTP): it cannot ask the client mid-call. */
  readonly legacyPerRequest?: boolean;
}

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Whether the request came in on protocol 2026-07-28 (it carries the per-request envelope). */
export function isModern(sdk: ServerContext): boolean {
  return envelopeOf(sdk)?.[PROTOCOL_VERSION] !== undefined;
}

/** The per-request envelope's keys (2026-07-28); the SDK's public type leaves them out. */
function envelopeOf(sdk: ServerContext): Record<string, unknown> | undefined {
  return sdk.mcpReq.envelope as Record<string, unknown> | undefined;
}

export function createContext(toolName: string, sdk: ServerContext, connection: Connection, round: Round): ToolContext {
  const req = sdk.mcpReq;
  const envelope = envelopeOf(sdk);
  const modern = envelope?.[PROTOCOL_VERSION] !== undefined;
  const progressToken = req._meta?.progressToken;
  let last = -Infinity;
  return {
    toolName,
    signal: req.signal,
    requestId: req.id,
    era: modern ? 'modern' : 'legacy',
    protocolVersion: modern
      ? (envelope?.[PROTOCOL_VERSION] as string)
      : // A stateless 2025 request has no initialize behind it, but its header names the revision.
        (connection.getNegotiatedProtocolVersion() ?? sdk.http?.req?.headers.get('mcp-protocol-version') ?? undefined),
    clientCapabilities: modern
      ? (envelope?.[CLIENT_CAPABILITIES] as ClientCapabilities | undefined)
      : connection.getClientCapabilities(),
    sessionId: sdk.sessionId,
    caller: callerOf(sdk.http?.authInfo),
    authInfo: sdk.http?.authInfo,
    headers: sdk.http?.req?.headers,
    round: round.number,
    async progress(progress, options = {}) {
      if (progressToken === undefined || !(progress > last)) return;
      last = progress;
      await req.notify({ method: 'notifications/progress', params: { progressToken, progress, ...options } });
    },
    log: (level, data, logger) => req.log(level, data, logger),
    elicit: (key, request) => round.elicit(key, request),
    elicitUrl: (key, request) => round.elicitUrl(key, request),
    sample: (key, request) => round.sample(key, request),
    listRoots: (key) => round.listRoots(key),
    keep: (key, compute) => round.keep(key, compute),
    sdk,
  };
}

export interface LocalCallOptions {
  signal?: AbortSignal;
  requestId?: string | number;
  /** Default "modern": the call looks like one on protocol 2026-07-28. */
  era?: ProtocolEra;
  clientCapabilities?: ClientCapabilities;
  /** Answers to the questions of an earlier round, and its requestState. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

let localRequests = 0;

/**
 * The SDK's request context for a call made in-process, without a client (contract tests, benchmarks, scripts):
 * progress and log messages go nowhere; questions come back as the input-required result.
 */
export function localRequest(options: LocalCallOptions = {}): { sdk: ServerContext; connection: Connection } {
  const modern = (options.era ?? 'modern') === 'modern';
  const version = modern ? '2026-07-28' : '2025-11-25';
  const capabilities = options.clientCapabilities ?? {};
  const sdk = {
    mcpReq: {
      id: options.requestId ?? ++localRequests,
      method: 'tools/call',
      signal: options.signal ?? new AbortController().signal,
      ...(modern ? { envelope: { [PROTOCOL_VERSION]: version, [CLIENT_CAPABILITIES]: capabilities } } : {}),
      ...(options.inputResponses ? { inputResponses: options.inputResponses } : {}),
      requestState: () => options.requestState,
      notify: async () => {},
      log: async () => {},
      send: async () => {
        throw new Error('an in-process call has no client to send requests to');
      },
      elicitInput: async () => {
        throw new Error('an in-process call has no client to ask');
      },
      requestSampling: async () => {
        throw new Error('an in-process call has no client to ask');
      },
    },
  } as unknown as ServerContext;
  return {
    sdk,
    connection: { getClientCapabilities: () => capabilities, getNegotiatedProtocolVersion: () => version },
  };
}

/** The text of a sampling result (its text blocks, joined), or "" when it has none. */
export function samplingText(result: SamplingResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
