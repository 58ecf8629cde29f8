/**
 * prompts/list, prompts/get and completion/complete: the spec's prompts, their arguments checked before the handler
 * runs (unknown prompt, an argument that is not a string or not declared, a required one missing: -32602), the
 * handler's result normalised into a GetPromptResult, and questions (`ctx.elicit`) ending the round with an
 * input-required result as tools do. Completion of prompt arguments and template variables lives here too.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CompleteResult,
  type GetPromptResult,
  type InputRequiredResult,
  type ListPromptsResult,
  type Prompt,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { callerOf, createContext, isModern, type Connection } from './context.js';
import {
  DEFAULT_MAX_WAITING,
  DEFAULT_WAITING_MS,
  describeValue,
  invalidSpecResult,
  publicMessage,
} from './dispatcher.js';
import { cannotAskPerRequest, InputRounds, WaitingCalls, type InputOptions, type Round } from './input.js';
import type { AnyModule, CompletionRule, PromptContext, PromptRule } from './primitive-types.js';

export interface PrimitiveOptions extends InputOptions {
  /** Where handler failures are logged; never stdout. Default: stderr. */
  onError?: (error: unknown, name: string) => void;
  /**
   * The 2025 requests waiting for their questions' answers: the server shares one with tools/call, so a prompt or a
   * read that asks counts under the same cap (legacyInput.maxWaiting). Default: a cap of this module's own.
   */
  waiting?: WaitingCalls;
}

/**
 * Ends a round that asked. On 2025 connections the SDK's shim then holds the request open while the client answers,
 * so only while fewer than the cap wait already; past it the request fails (prompts and reads have no error result),
 * as it does on a 2025 request served without a session, which has no channel for the question.
 */
export function askWithin(
  waiting: WaitingCalls,
  rounds: InputRounds,
  what: string,
  key: string,
  state: unknown,
  round: Round,
  sdk: ServerContext,
  connection: Connection,
): Promise<InputRequiredResult> {
  if (connection.legacyPerRequest)
    throw new ProtocolError(ProtocolErrorCode.InternalError, cannotAskPerRequest(what, round));
  const refused = isModern(sdk) ? undefined : waiting.enter(connection, sdk.mcpReq.id, sdk.mcpReq.signal);
  if (refused) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `${what} needs an answer from the client, but ${refused}. Try again later.`,
    );
  }
  return rounds.ask(key, state, round, sdk);
}

export function waitingCalls(options: PrimitiveOptions): WaitingCalls {
  return options.waiting ?? new WaitingCalls(DEFAULT_MAX_WAITING, DEFAULT_WAITING_MS);
}

export type ModuleLoaders = Readonly<Record<string, () => Promise<AnyModule>>>;

/** At most this many completion values go out in one result (the protocol's limit). */
export const MAX_COMPLETIONS = 100;

const invalid = (message: string, data?: unknown) => new ProtocolError(ProtocolErrorCode.InvalidParams, message, data);

export function defaultOnError(kind: string) {
  return (error: unknown, name: string) => console.error(`[toolspec] ${kind} "${name}" failed:`, error);
}

/** Loads each handler module once, on first use. */
export function moduleCache(loaders: ModuleLoaders): (name: string) => Promise<AnyModule> | undefined {
  const loaded = new Map<string, Promise<AnyModule>>();
  return (name) => {
    if (!Object.hasOwn(loaders, name)) return undefined;
    let m = loaded.get(name);
    if (!m) {
      m = loaders[name]!();
      loaded.set(name, m);
      m.catch(() => loaded.delete(name));
    }
    return m;
  };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface Prompts {
  list(cursor?: string): ListPromptsResult;
  get(
    name: unknown,
    args: unknown,
    sdk: ServerContext,
    connection: Connection,
  ): Promise<GetPromptResult | InputRequiredResult>;
  complete(
    name: unknown,
    argument: string,
    value: string,
    context: unknown,
    sdk: ServerContext,
  ): Promise<CompleteResult>;
}

export function createPrompts(
  prompts: readonly Prompt[],
  rules: Readonly<Record<string, PromptRule>>,
  loaders: ModuleLoaders,
  options: PrimitiveOptions = {},
): Prompts {
  const all: ListPromptsResult = { prompts: prompts as Prompt[] };
  const descriptions = new Map(prompts.map((p) => [p.name, p.description]));
  const load = moduleCache(loaders);
  const rounds = new InputRounds(options);
  const waiting = waitingCalls(options);
  const onError = options.onError ?? defaultOnError('prompt');
  const ruleOf = (name: unknown): PromptRule => {
    const rule = typeof name === 'string' && Object.hasOwn(rules, name) ? rules[name] : undefined;
    if (!rule) throw invalid(`Unknown prompt: ${JSON.stringify(name)}`);
    return rule;
  };
  return {
    list(cursor) {
      if (cursor !== undefined) throw invalid('Invalid cursor: this server does not paginate prompts/list');
      return all;
    },

    async get(name, args, sdk, connection) {
      const rule = ruleOf(name);
      const prompt = name as string;
      const input = checkArguments(prompt, rule, args);
      const module = await load(prompt)!;
      // Back with answers (or never asked): no longer waiting.
      if (waiting.size) waiting.leave(connection, sdk.mcpReq.id);
      const round: Round = await rounds.begin(`prompts/get:${prompt}`, input, sdk);
      const ask = () =>
        askWithin(
          waiting,
          rounds,
          `Prompt ${JSON.stringify(prompt)}`,
          `prompts/get:${prompt}`,
          input,
          round,
          sdk,
          connection,
        );
      const { toolName: _tool, ...base } = createContext(prompt, sdk, connection, round);
      const ctx: PromptContext = { ...base, promptName: prompt };
      let value: unknown;
      try {
        value = await (module.handler as (a: unknown, c: PromptContext) => unknown)(input, ctx);
      } catch (error) {
        if (round.hasAsked) return ask();
        if (error instanceof ProtocolError) throw error;
        onError(error, prompt);
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `Prompt ${JSON.stringify(prompt)} failed: ${publicMessage(error)}`,
        );
      }
      if (round.hasAsked) return ask();
      const result = promptResult(value, descriptions.get(prompt));
      const why =
        result === undefined
          ? `the handler returned ${describeValue(value, 'an object without a messages array')}; return text, a list of messages or a GetPromptResult`
          : invalidResult(result);
      if (why) {
        onError(new Error(why), prompt);
        throw new ProtocolError(ProtocolErrorCode.InternalError, `Prompt ${JSON.stringify(prompt)} failed: ${why}`);
      }
      return result!;
    },

    async complete(name, argument, value, context, sdk) {
      const rule = ruleOf(name);
      const arg = rule.arguments.find((a) => a.name === argument);
      if (!arg) throw invalid(`Unknown argument ${JSON.stringify(argument)} of prompt ${JSON.stringify(name)}`);
      return completeValue(
        arg.complete,
        () => load(name as string)!,
        argument,
        value,
        context,
        sdk,
        (e) => onError(e, name as string),
      );
    },
  };
}

/** The arguments as the handler receives them: declared ones only, each a string, the required ones present. */
function checkArguments(prompt: string, rule: PromptRule, args: unknown): Record<string, string> {
  if (args !== undefined && args !== null && !isPlainObject(args))
    throw invalid(`Invalid arguments for prompt ${JSON.stringify(prompt)}: arguments must be an object`);
  const given = (args ?? {}) as Record<string, unknown>;
  const names = new Set(rule.arguments.map((a) => a.name));
  for (const key of Object.keys(given)) {
    if (!names.has(key))
      throw invalid(
        `Unknown argument ${JSON.stringify(key)} for prompt ${JSON.stringify(prompt)}; it takes ${
          names.size ? [...names].map((n) => JSON.stringify(n)).join(', ') : 'no arguments'
        }`,
      );
    if (typeof given[key] !== 'string')
      throw invalid(
        `Invalid argument ${JSON.stringify(key)} for prompt ${JSON.stringify(prompt)}: it must be a string`,
      );
  }
  for (const a of rule.arguments) {
    if (a.required && !Object.hasOwn(given, a.name))
      throw invalid(`Missing required argument ${JSON.stringify(a.name)} for prompt ${JSON.stringify(prompt)}`);
  }
  // fromEntries defines own properties: an argument named __proto__ stays data.
  return Object.fromEntries(
    rule.arguments.flatMap((a) => (Object.hasOwn(given, a.name) ? [[a.name, given[a.name] as string]] : [])),
  );
}

function promptResult(value: unknown, description: string | undefined): GetPromptResult | undefined {
  const withDescription = (r: GetPromptResult) =>
    r.description === undefined && description !== undefined ? { description, ...r } : r;
  if (typeof value === 'string')
    return withDescription({ messages: [{ role: 'user', content: { type: 'text', text: value } }] });
  if (Array.isArray(value)) return withDescription({ messages: value as GetPromptResult['messages'] });
  if (isPlainObject(value) && Array.isArray(value['messages'])) return withDescription(value as GetPromptResult);
  return undefined;
}

function invalidResult(result: GetPromptResult): string | undefined {
  return invalidSpecResult('GetPromptResult', result);
}

const EMPTY: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/** A completion result from a fixed list (by prefix, case-insensitive) or from the module's `complete` export. */
export async function completeValue(
  rule: CompletionRule | undefined,
  load: () => Promise<AnyModule>,
  argument: string,
  value: string,
  context: unknown,
  sdk: ServerContext,
  onError: (error: unknown) => void,
): Promise<CompleteResult> {
  if (rule === undefined) return EMPTY;
  if (rule !== 'handler') {
    const typed = value.toLowerCase();
    return cap(rule.filter((v) => v.toLowerCase().startsWith(typed)));
  }
  const module = await load();
  const completer = module.complete && Object.hasOwn(module.complete, argument) ? module.complete[argument] : undefined;
  if (typeof completer !== 'function') {
    const error = new Error(
      `its module has no complete.${argument}: export complete = { ${argument}: (value) => [...] }`,
    );
    onError(error);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Completion of ${JSON.stringify(argument)} failed: ${error.message}`,
    );
  }
  const given = isPlainObject(context) && isPlainObject(context['arguments']) ? context['arguments'] : {};
  const others = Object.fromEntries(Object.entries(given).filter(([, v]) => typeof v === 'string'));
  let out: unknown;
  try {
    out = await completer(value, {
      arguments: others as never,
      signal: sdk.mcpReq.signal,
      caller: callerOf(sdk.http?.authInfo),
      authInfo: sdk.http?.authInfo,
    });
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    onError(error);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Completion of ${JSON.stringify(argument)} failed: ${publicMessage(error)}`,
    );
  }
  const values = Array.isArray(out)
    ? out
    : isPlainObject(out) && Array.isArray(out['values'])
      ? out['values']
      : undefined;
  if (!values || !values.every((v) => typeof v === 'string')) {
    const error = new Error('a completer returns a list of strings, or { values, total?, hasMore? }');
    onError(error);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Completion of ${JSON.stringify(argument)} failed: ${error.message}`,
    );
  }
  const extra = isPlainObject(out) ? out : {};
  const result = cap(values as string[]);
  if (typeof extra['total'] === 'number' && Number.isInteger(extra['total']) && extra['total'] >= values.length)
    result.completion.total = extra['total'];
  if (typeof extra['hasMore'] === 'boolean')
    result.completion.hasMore = extra['hasMore'] || values.length > MAX_COMPLETIONS;
  return result;
}

function cap(values: readonly string[]): CompleteResult {
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}
