/**
 * The types prompt and resource handlers are written against (the generated contract.ts re-exports them), and the
 * shape of the tables the generated primitives.ts holds.
 */
import type { AuthInfo, GetPromptResult, PromptMessage, ReadResourceResult } from '@modelcontextprotocol/server';
import type { Caller, ToolContext } from './context.js';

/** A prompt handler's context: the tool context's cancellation, logging, questions (`ctx.elicit`) and caller. */
export interface PromptContext extends Omit<ToolContext, 'toolName'> {
  /** The prompt being got. */
  readonly promptName: string;
}

/** What a prompt handler returns: text (one user message), a list of messages, or a whole GetPromptResult. */
export type PromptResult = string | PromptMessage[] | GetPromptResult;

/** A resource handler's context. */
export interface ResourceContext extends Omit<ToolContext, 'toolName'> {
  /** The resource's (or template's) name in the spec. */
  readonly resourceName: string;
  /** The URI being read, as the client sent it. */
  readonly uri: string;
}

/** One content of a resource; its URI defaults to the one read, its MIME type to the spec's. */
export type ResourceContent =
  | { text: string; uri?: string; mimeType?: string; _meta?: Record<string, unknown> }
  | { blob: string; uri?: string; mimeType?: string; _meta?: Record<string, unknown> };

/**
 * What a resource handler returns: text, bytes (sent base64-encoded as a blob), one content or several, a whole
 * ReadResourceResult, or undefined when there is no such resource (the client gets "resource not found").
 */
export type ResourceResult =
  string | Uint8Array | ResourceContent | ResourceContent[] | ReadResourceResult | undefined | null;

export interface CompletionContext<Args> {
  /** The other arguments (or variables) the client has filled in already. */
  readonly arguments: Partial<Args>;
  readonly signal: AbortSignal;
  readonly caller: Caller | undefined;
  readonly authInfo: AuthInfo | undefined;
}

/** Completion values, best first: at most 100 are sent (the rest counted in `total`, and `hasMore` set). */
export type Completion = readonly string[] | { values: readonly string[]; total?: number; hasMore?: boolean };

/** Completes one argument or template variable from what the user has typed so far. */
export type Completer<Args> = (value: string, context: CompletionContext<Args>) => Completion | Promise<Completion>;

/** How an argument or a variable completes: from a fixed list, or by the module's `complete` export. */
export type CompletionRule = readonly string[] | 'handler';

export interface PromptRule {
  arguments: readonly { name: string; required: boolean; complete?: CompletionRule }[];
}

export interface ResourceRule {
  name: string;
  /** A resource with a fixed URI has `uri`, a template `uriTemplate`. */
  uri?: string;
  uriTemplate?: string;
  mimeType?: string;
  complete: Readonly<Record<string, CompletionRule>>;
}

/** A prompt's or resource's handler module, as the runtime sees it. */
export interface AnyModule {
  handler: (input: never, ctx: never) => unknown;
  complete?: Readonly<Record<string, (value: string, context: CompletionContext<never>) => unknown>>;
}
