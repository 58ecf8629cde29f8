/**
 * The dispatcher: looks a tool up, validates its arguments with the precompiled validator (applying schema
 * defaults), calls the handler, and turns whatever it returns or throws into a CallToolResult, or into an
 * input-required result when the handler asked the client for something it has no answer to yet. Protocol errors
 * (unknown tool, arguments that are not an object, a bad cursor, a bad requestState) are JSON-RPC errors;
 * everything the model can correct or should know about is a result with isError: true.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  specTypeSchemas,
  type CallToolResult,
  type InputRequiredResult,
  type ListToolsResult,
  type Result,
  type ServerContext,
  type SpecTypeName,
  type StandardSchemaV1Sync,
  type Tool,
} from '@modelcontextprotocol/server';
import { argumentPath, type ValidationError, type Validator } from './arguments.js';
import { createContext, isModern, type Connection, type ToolContext } from './context.js';
import { cannotAskPerRequest, InputRounds, principalOf, WaitingCalls, type InputOptions, type Round } from './input.js';
import { ready } from './lazy.js';
import { declaresTasks, tasksRequired, type Tasks } from './tasks.js';

export { guardInherited, type ValidationError, type Validator } from './arguments.js';

export interface ToolBinding {
  /** Validates the arguments and fills in schema defaults. */
  input: Validator;
  /** Validates structured output, for tools with an outputSchema. */
  output?: Validator;
}

/** Throw this from a handler to send its message to the model as the tool's error result, verbatim. */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}

export type AnyHandler = (args: never, ctx: ToolContext) => unknown;

export interface DispatcherOptions extends InputOptions {
  tools: readonly Tool[];
  /** The tools as 2025 clients see them (legacyTools), when they differ: listed to 2025 requests. */
  legacyTools?: readonly Tool[];
  /** Each tool's validators, or a function that loads them (once, on the first call: listing tools needs none). */
  bindings: ReadonlyMap<string, ToolBinding> | (() => Promise<ReadonlyMap<string, ToolBinding>>);
  handlers: Readonly<Record<string, AnyHandler>>;
  /** Tools per tools/list page; 0 sends all in one page. */
  pageSize?: number;
  /** Time limits in milliseconds, by tool (the spec's `timeout`): past it the call ends with an error result. */
  timeouts?: Readonly<Record<string, number>>;
  /** Where failures are logged; never stdout (on stdio that is the protocol channel). Default: stderr. */
  onError?: (error: unknown, toolName: string) => void;
  /**
   * 2025 calls that may wait for their questions' answers at once (default 100), and how long one waits at most
   * (default 300 s): a call past the cap ends with an error result instead of asking. A WaitingCalls shares its cap
   * with the prompts and resources that ask (the server passes one to all three).
   */
  waiting?: { max?: number; expireMs?: number } | WaitingCalls;
  /** The tools that run as tasks (the spec's `task`), and where tasks are kept (tasks.ts). */
  taskModes?: Readonly<Record<string, 'optional' | 'required'>>;
  tasks?: Tasks;
}

/**
 * The tools as 2025 clients must see them: an output schema whose root resolves to an object (a `$ref`, an `allOf`;
 * `objectOutputs`, decided by toolspec on the resolved schema) but does not say `type: "object"` says it, since the
 * SDK's 2025 codec takes any other root for one that is not an object and wraps it, and the results, as {result}.
 * Every other tool, and every tool for 2026-07-28 clients, goes out exactly as written.
 */
export function legacyTools(tools: readonly Tool[], objectOutputs: readonly string[]): readonly Tool[] {
  const stamped = new Set(objectOutputs);
  return tools.map((t) =>
    stamped.has(t.name) && t.outputSchema ? { ...t, outputSchema: { ...t.outputSchema, type: 'object' } } : t,
  );
}

export const DEFAULT_MAX_WAITING = 100;
export const DEFAULT_WAITING_MS = 300_000;

/** A tool's result, the questions that end its round, or (tasks.ts) the handle of the task it runs as. */
export type CallResult = CallToolResult | InputRequiredResult | (Result & { resultType: 'task' });

/** A tool as a call needs it: its handler, validators and time limit. */
interface Entry {
  handler: (args: unknown, ctx: ToolContext) => unknown;
  binding: ToolBinding;
  limit: number | undefined;
}

export interface Dispatcher {
  /** `legacy`: for a 2025 request (see legacyTools). */
  listTools(cursor?: string, legacy?: boolean): ListToolsResult;
  /** One round of a call: `sdk` is the SDK's request context, `connection` the server instance serving it. */
  callTool(name: string, args: unknown, sdk: ServerContext, connection: Connection): Promise<CallResult>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { tools, handlers, pageSize = 0, timeouts } = options;
  const names = new Set(tools.map((t) => t.name));
  const source = options.bindings;
  /** Everything a call of each tool needs, found once: the hot path makes one Map lookup, not four. */
  const index = (bindings: ReadonlyMap<string, ToolBinding>) => {
    const byName = new Map<string, Entry>();
    for (const name of names) {
      const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
      const binding = bindings.get(name);
      if (!handler || !binding) continue;
      const limit = timeouts && Object.hasOwn(timeouts, name) ? timeouts[name] : undefined;
      byName.set(name, { handler: handler as Entry['handler'], binding, limit });
    }
    return byName;
  };
  // Once loaded, the bindings are read synchronously: the hot path awaits nothing for them.
  let entries = typeof source === 'function' ? undefined : index(source);
  let loading: Promise<Map<string, Entry>> | undefined;
  /** The first calls, while the validators load: an unknown tool is refused before they are loaded for it. */
  const load = async (name: string) => {
    if (!names.has(name) || !(Object.hasOwn(handlers, name) && handlers[name])) return undefined;
    loading ??= (source as () => Promise<ReadonlyMap<string, ToolBinding>>)().then(index);
    return (entries = await loading).get(name);
  };
  const onError = options.onError ?? ((error, tool) => console.error(`[toolspec] tool "${tool}" failed:`, error));
  const all: ListToolsResult = { tools: tools as Tool[] };
  const legacyAll: ListToolsResult = { tools: (options.legacyTools ?? tools) as Tool[] };
  const rounds = new InputRounds(options);
  const waiting =
    options.waiting instanceof WaitingCalls
      ? options.waiting
      : new WaitingCalls(options.waiting?.max ?? DEFAULT_MAX_WAITING, options.waiting?.expireMs ?? DEFAULT_WAITING_MS);
  /**
   * Ends a round that asked: on 2025 connections only while few enough calls wait (each holds a request open), and
   * never on a 2025 request served without a session (nothing could carry the question to the client).
   */
  const ask = (name: string, input: unknown, round: Round, sdk: ServerContext, connection: Connection) => {
    if (connection.legacyPerRequest) return errorResult(cannotAskPerRequest(`Tool ${JSON.stringify(name)}`, round));
    const refused = isModern(sdk) ? undefined : waiting.enter(connection, sdk.mcpReq.id, sdk.mcpReq.signal);
    if (refused)
      return errorResult(
        `Tool ${JSON.stringify(name)} needs an answer from the client, but ${refused}. Try again later.`,
      );
    return rounds.ask(name, input, round, sdk);
  };

  /** Runs the handler and makes its result a CallToolResult; a round that asked ends with `asked()` instead. */
  const perform = async (
    name: string,
    entry: Entry,
    input: unknown,
    ctx: ToolContext,
    round: Round,
    asked: () => CallResult | Promise<CallResult>,
  ): Promise<CallResult> => {
    let value: unknown;
    try {
      value = await runHandler(entry.handler, input, ctx, entry.limit);
    } catch (error) {
      // Questions without answers end the round, whatever the handler did with their rejection.
      if (round.hasAsked) return asked();
      if (error instanceof ProtocolError) throw error;
      if (error instanceof TimeoutError) {
        onError(error, name);
        return errorResult(`Tool ${JSON.stringify(name)} failed: ${error.message}`);
      }
      if (!(error instanceof ToolError)) onError(error, name);
      return errorResult(
        error instanceof ToolError ? error.message : `Tool ${JSON.stringify(name)} failed: ${publicMessage(error)}`,
      );
    }
    if (round.hasAsked) return asked();
    try {
      return normalizeResult(name, value, entry.binding, onError);
    } catch (error) {
      // A result that cannot be serialized (a cycle, a BigInt) or validated (nested past the stack).
      onError(error, name);
      return errorResult(`Tool ${JSON.stringify(name)} failed: its result cannot be sent (${publicMessage(error)})`);
    }
  };
  const { taskModes, tasks } = options;

  /**
   * A call that runs as a task. It starts as any call: what it asks before it first waits for something else (a
   * timer, I/O) is asked the usual way, in this request's result, and no task is made (the extension's
   * "multi round-trip requests before a task"); otherwise, after that first wait, it becomes a task and goes on
   * running: the handle is the answer, its later questions go through the task, its progress is the task's status
   * message. Its signal is the task's from the start: answering this request does not abort it.
   */
  async function runAsTask(
    name: string,
    entry: Entry,
    input: unknown,
    round: Round,
    sdk: ServerContext,
    connection: Connection,
  ): Promise<CallResult> {
    // The module first: its loading is not the handler's first wait.
    await ready(entry.handler);
    const controller = new AbortController();
    const request = sdk.mcpReq.signal;
    const forward = () => controller.abort(request.reason);
    request.addEventListener('abort', forward, { once: true });
    /** Set once the call has become a task. */
    const became: { task?: ReturnType<Tasks['adopt']> } = {};
    const base = createContext(name, sdk, connection, round);
    const ctx: ToolContext = {
      ...base,
      signal: controller.signal,
      progress: (progress, options = {}) => {
        if (!became.task) return base.progress(progress, options);
        became.task.status(
          options.message ?? `${progress}${options.total === undefined ? '' : ` of ${options.total}`}`,
        );
        return Promise.resolve();
      },
      // A task's request has been answered: log messages have no request to go with (the extension sends none).
      log: (level, data, logger) => (became.task ? Promise.resolve() : base.log(level, data, logger)),
    };
    const running = perform(name, entry, input, ctx, round, () => ask(name, input, round, sdk, connection));
    const settled = await Promise.race([
      running.then(
        () => true,
        () => true,
      ),
      nextTurn(),
    ]);
    request.removeEventListener('abort', forward);
    if (round.hasAsked) {
      tasks!.release();
      return settled ? running : ask(name, input, round, sdk, connection);
    }
    const task = (became.task = tasks!.adopt(
      principalOf(sdk.http?.authInfo),
      controller,
      running as Promise<CallToolResult>,
    ));
    round.attach(task.questions);
    await task.saved;
    return task.handle as CallResult;
  }

  return {
    listTools(cursor, legacy = false) {
      const list = legacy ? legacyAll : all;
      if (pageSize <= 0) {
        if (cursor !== undefined)
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            'Invalid cursor: this server does not paginate tools/list',
          );
        return list;
      }
      const start = cursor === undefined ? 0 : decodeCursor(cursor, tools.length);
      const end = start + pageSize;
      const page: ListToolsResult = { tools: list.tools.slice(start, end) };
      if (end < tools.length) page.nextCursor = encodeCursor(end);
      return page;
    },

    async callTool(name, args, sdk, connection) {
      const entry = entries ? entries.get(name) : await load(name);
      if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}`);
      const { binding } = entry;
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid arguments for tool ${JSON.stringify(name)}: arguments must be an object`,
        );
      }
      const input = args ?? {};
      let valid: boolean;
      try {
        valid = binding.input(input);
      } catch (error) {
        // A validator throws on arguments too deep for the stack (a recursive schema, thousands of levels), or on
        // values its deep equality cannot compare (an object with its own `toString` against an enum of objects).
        onError(error, name);
        const why =
          error instanceof RangeError
            ? 'they are nested too deeply to check. Send a flatter value.'
            : `they could not be checked (${publicMessage(error)}).`;
        return errorResult(`Invalid arguments for tool ${JSON.stringify(name)}: ${why}`);
      }
      if (!valid) return errorResult(describeInvalidArguments(name, binding.input.errors ?? [], input));

      const mode = taskModes && Object.hasOwn(taskModes, name) ? taskModes[name] : undefined;
      // A task only for a 2026-07-28 client that declares the extension on this request (SEP-2663).
      const asTask = mode !== undefined && tasks !== undefined && declaresTasks(sdk) && tasks.reserve();
      if (mode === 'required' && !asTask) {
        if (tasks && declaresTasks(sdk))
          throw new ProtocolError(ProtocolErrorCode.InternalError, 'Too many tasks at once; try again later');
        throw tasksRequired(`Tool ${JSON.stringify(name)}`);
      }

      if (waiting.size) waiting.leave(connection, sdk.mcpReq.id);
      // A requestState that is not this server's, for this call, is refused here, before the handler runs.
      let round: Round;
      try {
        const started = rounds.begin(name, input, sdk);
        round = started instanceof Promise ? await started : started;
      } catch (error) {
        if (asTask) tasks!.release();
        throw error;
      }
      if (!asTask) {
        return perform(name, entry, input, createContext(name, sdk, connection, round), round, () =>
          ask(name, input, round, sdk, connection),
        );
      }
      return runAsTask(name, entry, input, round, sdk, connection);
    },
  };
}

/** One turn of the event loop: every microtask the handler queued has run by then. */
function nextTurn(): Promise<false> {
  return new Promise((resolve) => setTimeout(() => resolve(false), 0));
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`it did not finish within its timeout of ${ms < 1000 ? `${ms} ms` : `${ms / 1000} s`}`);
    this.name = 'TimeoutError';
  }
}

/**
 * Calls the handler and settles as soon as the call is cancelled or its time limit passes, even if the handler
 * never does: the handler's signal aborts, the request is released, and the server keeps serving. A handler that
 * returns a value at once costs nothing extra; a promise gets one abort listener for as long as it is pending.
 */
function runHandler(
  handler: (a: unknown, c: ToolContext) => unknown,
  input: unknown,
  ctx: ToolContext,
  timeoutMs: number | undefined,
): unknown {
  if (timeoutMs === undefined) {
    const value = handler(input, ctx);
    return isPromiseLike(value) ? untilAborted(value, ctx.signal) : value;
  }
  const parent = ctx.signal;
  const controller = new AbortController();
  const forward = () => controller.abort(parent.reason);
  const timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
  parent.addEventListener('abort', forward, { once: true });
  const done = () => {
    clearTimeout(timer);
    parent.removeEventListener('abort', forward);
  };
  try {
    const value = handler(input, { ...ctx, signal: controller.signal });
    if (!isPromiseLike(value)) {
      done();
      return value;
    }
    const settled = untilAborted(value, controller.signal);
    settled.then(done, done);
    return settled;
  } catch (error) {
    done();
    throw error;
  }
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Settled from the start: a callback given to its `then` runs one microtask later. */
const NEXT_MICROTASK = Promise.resolve();

/**
 * The promise's outcome, or a rejection as soon as `signal` aborts (a TimeoutError, or the call's cancellation).
 * Most handlers settle within a microtask, before any cancellation could arrive (that comes from the transport, on
 * a later task): the abort listener is attached only to a promise still pending after one microtask, which spares
 * the common call adding and removing it. That microtask is a reaction on a promise settled once for all, not
 * queueMicrotask, which in Node makes an async resource for every callback (measured: ~10 % of a whole 2025
 * tools/call round trip at 500 tools).
 */
function untilAborted(promise: PromiseLike<unknown>, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let listening = false;
    const onAbort = () =>
      reject(
        signal.reason instanceof TimeoutError
          ? signal.reason
          : new ProtocolError(ProtocolErrorCode.InternalError, 'The call was cancelled'),
      );
    if (signal.aborted) return onAbort();
    const finish = () => {
      settled = true;
      if (listening) signal.removeEventListener('abort', onAbort);
    };
    promise.then(
      (v) => {
        finish();
        resolve(v);
      },
      (e: unknown) => {
        finish();
        reject(e);
      },
    );
    void NEXT_MICROTASK.then(() => {
      if (settled) return;
      if (signal.aborted) return onAbort();
      listening = true;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  });
}

/**
 * string → text; a CallToolResult as is; for tools with an outputSchema, the structured value itself, of any JSON
 * type (2025 clients get a value that is not an object wrapped as {result}, as the tool's listed schema says: the
 * server projects it for them).
 */
function normalizeResult(
  name: string,
  value: unknown,
  binding: ToolBinding,
  onError: (e: unknown, t: string) => void,
): CallToolResult {
  const validateOutput = binding.output;
  if (validateOutput) {
    if (isCallToolResult(value) && !isPlainStructured(value, validateOutput)) {
      const invalid = invalidResult(value);
      if (invalid) return failed(name, invalid, onError);
      if (value.isError) return value;
      if (value.structuredContent === undefined)
        return failed(name, 'the result has no structuredContent, which its outputSchema requires', onError);
      if (!validateOutput(value.structuredContent))
        return failed(name, describeInvalidOutput(validateOutput.errors ?? [], value.structuredContent), onError);
      return value;
    }
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      return failed(
        name,
        `the handler returned ${describeValue(value)}; this tool returns a value matching its outputSchema`,
        onError,
      );
    }
    if (!validateOutput(value)) return failed(name, describeInvalidOutput(validateOutput.errors ?? [], value), onError);
    const text = JSON.stringify(value);
    return { content: [{ type: 'text', text }], structuredContent: value as CallToolResult['structuredContent'] };
  }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isCallToolResult(value)) {
    const invalid = invalidResult(value);
    return invalid ? failed(name, invalid, onError) : value;
  }
  return failed(name, `the handler returned ${describeValue(value)}; return a string or a CallToolResult`, onError);
}

/** An error result for a handler whose result cannot be sent, logged too. */
function failed(name: string, why: string, onError: (e: unknown, t: string) => void): CallToolResult {
  onError(new Error(why), name);
  return errorResult(`Tool ${JSON.stringify(name)} failed: ${why}`);
}

/**
 * Why a CallToolResult built by a handler cannot be sent as it is (a cycle, a BigInt, an invalid content block, bad
 * base64), or undefined. Checked here so that the client gets an error result instead of a protocol error or, for
 * a value that cannot be serialized, no answer at all.
 */
function invalidResult(result: CallToolResult): string | undefined {
  return invalidSpecResult('CallToolResult', result, (segments) => {
    const pointer = segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    return argumentPath(pointer, undefined, result);
  });
}

/** The first problem the SDK's schema `type` finds in a value: where (its path) and what. */
export function specIssue(type: SpecTypeName, value: unknown): { segments: string[]; message: string } | undefined {
  // Read through a plain record: indexing the SDK's mapped record with a union key makes the compiler build every
  // spec type's zod input type, which was 60 % of the time to type-check a generated server.
  const schema = (specTypeSchemas as unknown as Readonly<Record<SpecTypeName, StandardSchemaV1Sync>>)[type];
  const checked = schema['~standard'].validate(value);
  const issue = 'issues' in checked ? checked.issues?.[0] : undefined;
  if (!issue) return undefined;
  return { segments: (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)), message: issue.message };
}

/**
 * Why a handler's result is not what the protocol takes (undefined when it is): it cannot be serialized, or the
 * SDK's schema `type` refuses it, said with the place (`where`, by default the dotted path) and the reason.
 */
export function invalidSpecResult(
  type: 'CallToolResult' | 'GetPromptResult' | 'ReadResourceResult',
  result: unknown,
  where: (segments: string[]) => string = (segments) => segments.join('.'),
): string | undefined {
  try {
    JSON.stringify(result);
  } catch (error) {
    return `its result cannot be serialized as JSON (${publicMessage(error)})`;
  }
  const issue = specIssue(type, result);
  if (!issue) return undefined;
  const at = issue.segments.length ? `${where(issue.segments)}: ` : '';
  return `its result is not a valid ${type} (${at}${issue.message})`;
}

function isCallToolResult(v: unknown): v is CallToolResult {
  return typeof v === 'object' && v !== null && Array.isArray((v as { content?: unknown }).content);
}

/** A structured value that happens to have a `content` array: it matches the outputSchema, so it is the value. */
function isPlainStructured(v: CallToolResult, validate: Validator): boolean {
  return v.structuredContent === undefined && v.isError === undefined && validate(v);
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** One line per failing argument, by path, saying what was expected, so a model can correct its call. */
export function describeInvalidArguments(tool: string, errors: readonly ValidationError[], args?: unknown): string {
  const lines = uniqueLines(errors, args);
  return `Invalid arguments for tool ${JSON.stringify(tool)}:\n${lines.map((l) => `- ${l}`).join('\n')}\nFix these and call the tool again.`;
}

function describeInvalidOutput(errors: readonly ValidationError[], value: unknown): string {
  return `its result does not match the outputSchema: ${uniqueLines(errors, value, 'field').join('; ')}`;
}

/** At most this many problems are named (a model acts on the first ones; thousands would only cost tokens). */
const MAX_LINES = 20;
/** And each line is cut at this length (a value, a path or a list of choices can be long). */
const MAX_LINE = 300;

/**
 * One line per problem, the same ones once, at most MAX_LINES of them, each at most MAX_LINE characters. `noun` is
 * what the properties are: the arguments of a call, or the fields of a result.
 */
function uniqueLines(errors: readonly ValidationError[], data?: unknown, noun = 'argument'): string[] {
  const lines = new Set<string>();
  let more = 0;
  for (const e of errors) {
    if (lines.size === MAX_LINES) {
      more++;
      continue;
    }
    const line = describeError(e, data, noun);
    lines.add(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);
  }
  return more ? [...lines, `… and ${more} more`] : [...lines];
}

function describeError(e: ValidationError, data: unknown, noun: string): string {
  const p = e.params;
  const argPath = (pointer: string, child?: string) => argumentPath(pointer, child, data);
  switch (e.keyword) {
    case 'required':
      return `${argPath(e.instancePath, String(p['missingProperty']))}: is required`;
    case 'additionalProperties':
      return `${argPath(e.instancePath, String(p['additionalProperty']))}: is not an accepted ${noun}`;
    case 'enum':
      return `${argPath(e.instancePath)}: must be one of ${(p['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${argPath(e.instancePath)}: must be ${JSON.stringify(p['allowedValue'])}`;
    default:
      return `${argPath(e.instancePath)}: ${e.message ?? `fails ${e.keyword}`}`;
  }
}

/** What a handler returned, in a few words, for a message saying what it should have returned. */
export function describeValue(v: unknown, object = 'an object without a content array'): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length ? `an array of ${describeValue(v[0], 'an object')}s` : 'an empty array';
  return typeof v === 'object' ? object : `a ${typeof v}`;
}

/**
 * What the client may see of an unexpected error: the first line of its message, absolute paths replaced, at most
 * 500 characters. The whole error, with its stack, goes to onError (stderr).
 */
export function publicMessage(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message;
  else if (typeof error === 'string') text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = Object.prototype.toString.call(error);
    }
  }
  text = (text.split(/\r?\n|\u2028|\u2029/, 1)[0] ?? '')
    .replace(/(^|[\s'"(=])(?:file:\/\/)?(?:\/|[A-Za-z]:\\)[^\s'"()]+/g, '$1<path>')
    .trim();
  if (text.length > 500) text = `${text.slice(0, 500)}…`;
  return text || (error instanceof Error ? error.name : 'an error without a message');
}

function encodeCursor(offset: number): string {
  return btoa(`tools:${offset}`);
}

function decodeCursor(cursor: string, total: number): number {
  let offset = NaN;
  try {
    const m = /^tools:(\d+)$/.exec(atob(cursor));
    if (m) offset = Number(m[1]);
  } catch {
    // not base64: invalid below
  }
  if (!Number.isInteger(offset) || offset <= 0 || offset >= total) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid cursor: pass back the nextCursor of a previous tools/list',
    );
  }
  return offset;
}
