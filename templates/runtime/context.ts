/**
 * The context every handler receives: cancellation, progress, logging to the client, requests to the client
 * (sampling, elicitation), and who is calling (auth info, session and request ids).
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolContext {
  /** The tool being called. */
  readonly toolName: string;
  /** Aborted when the client cancels the call (notifications/cancelled) or the connection closes. */
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  /** The MCP session, over Streamable HTTP in stateful mode. */
  readonly sessionId: string | undefined;
  /** What the HTTP authentication hook returned for this request. */
  readonly authInfo: AuthInfo | undefined;
  /** The HTTP request's headers, over HTTP. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>> | undefined;
  /**
   * Reports progress when the client asked for it (a progressToken); otherwise does nothing. Values must increase:
   * one that does not is dropped, as the protocol requires.
   */
  progress(progress: number, options?: { total?: number; message?: string }): Promise<void>;
  /** Sends a log message to the client (notifications/message), unless the client set a higher level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Asks the client's model for a completion (sampling/createMessage). */
  sample(params: CreateMessageRequest['params']): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (elicitation/create). */
  elicit(params: ElicitRequest['params']): Promise<ElicitResult>;
  /** The SDK's own request context, for anything not covered above. */
  readonly extra: RequestExtra;
}

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export function createContext(
  toolName: string,
  extra: RequestExtra,
  minLevel: () => LoggingLevel | undefined,
): ToolContext {
  const progressToken = extra._meta?.progressToken;
  let last = -Infinity;
  return {
    toolName,
    signal: extra.signal,
    requestId: extra.requestId,
    sessionId: extra.sessionId,
    authInfo: extra.authInfo,
    headers: extra.requestInfo?.headers,
    async progress(progress, options = {}) {
      if (progressToken === undefined || !(progress > last)) return;
      last = progress;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, ...options },
      });
    },
    async log(level, data, logger) {
      const min = minLevel();
      if (min !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(min)) return;
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level, data, ...(logger === undefined ? {} : { logger }) },
      });
    },
    sample: (params) => extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema),
    elicit: (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema),
    extra,
  };
}
