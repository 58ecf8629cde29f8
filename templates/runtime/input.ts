/**
 * Asking the client for input (protocol 2026-07-28 "input required" results, SEP-2322), for handlers written once
 * for both eras.
 *
 * A handler asks with `await ctx.elicit(key, …)` (or `sample`, `listRoots`, `elicitUrl`). When the answer for
 * `key` is there, the promise resolves with it, checked and typed. When it is not, the promise rejects with
 * `InputRequired`, the call ends, and the client is sent an input-required result holding every question asked
 * in this round; the client calls the tool again with the answers and the handler runs again from the top. So a
 * handler reads as straight-line code: each question it has an answer to resolves at once, the first one without
 * an answer ends the round.
 *
 * Answers arrive per round only (the protocol replaces them on every retry), so the ones a handler has used are
 * carried to later rounds inside `requestState`, with the values the handler kept (`ctx.keep`). That state goes
 * through the client: it is sealed (HMAC-SHA256, the SDK's codec), bound to the tool, its arguments and the caller,
 * and valid for a limited time; anything else is refused before the handler runs. It is signed, not encrypted: the
 * client can read it, so keep secrets out of `ctx.keep`.
 *
 * On 2025 connections the SDK's legacy shim turns the same result into real server→client requests (stdio,
 * sessionful HTTP) and calls the handler again with the answers, so one handler serves both eras.
 */
import {
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequestFormParams,
  type InputRequest,
  type InputRequiredResult,
  type RequestStateCodec,
  type Root,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** A form the user fills in: the restricted JSON Schema of MCP elicitation (flat, primitive fields). */
export interface ElicitSchema {
  readonly type: 'object';
  readonly properties: { readonly [name: string]: ElicitField };
  readonly required?: readonly string[];
}

export interface ElicitField {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly title?: string;
  readonly description?: string;
  readonly [keyword: string]: unknown;
}

type FieldValue<F> = F extends { type: 'boolean' }
  ? boolean
  : F extends { type: 'number' | 'integer' }
    ? number
    : F extends { type: 'array'; items: { enum: readonly (infer E)[] } }
      ? E[]
      : F extends { type: 'array'; items: { anyOf: readonly { const: infer C }[] } }
        ? C[]
        : F extends { type: 'array' }
          ? string[]
          : F extends { enum: readonly (infer E)[] }
            ? E
            : F extends { oneOf: readonly { const: infer C }[] }
              ? C
              : string;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R & string : never;

/** What an accepted form holds: each field typed from the schema, the required ones not optional. */
export type ElicitedContent<S extends ElicitSchema> = {
  -readonly [K in keyof S['properties'] & RequiredOf<S>]: FieldValue<S['properties'][K]>;
} & {
  -readonly [K in Exclude<keyof S['properties'], RequiredOf<S>>]?: FieldValue<S['properties'][K]>;
};

/** The user's answer to a form: accepted with its content (checked against the schema), declined or cancelled. */
export type Elicited<S extends ElicitSchema> =
  { action: 'accept'; content: ElicitedContent<S> } | { action: 'decline' | 'cancel'; content?: undefined };

export interface ElicitRequest<S extends ElicitSchema> {
  /** What the user is asked. */
  message: string;
  requestedSchema: S;
}

export type SamplingResult = CreateMessageResult | CreateMessageResultWithTools;

/**
 * The rejection of an ask whose answer is not there yet. It ends the round: let it propagate (a `catch` that
 * swallows it changes nothing, the call still ends asking).
 */
export class InputRequired extends Error {
  constructor(readonly key: string) {
    super(`waiting for the client's answer to "${key}": the tool is called again with it`);
    this.name = 'InputRequired';
  }
}

/** How a task takes a question (tasks.ts): it resolves with the answer once tasks/update brings it. */
export interface TaskQuestions {
  ask(key: string, read: (responses: Record<string, unknown>) => unknown, ask: () => InputRequest): Promise<unknown>;
}

/** What the sealed requestState carries from one round to the next. */
interface Carried {
  /** Format version. */
  v: 1;
  /** The tool, and a digest of its arguments: state is only valid for the same call. */
  t: string;
  h: string;
  /** Rounds so far. */
  r: number;
  /** Answers used so far, by key. */
  a: Record<string, unknown>;
  /** Values kept with ctx.keep, by key. */
  k: Record<string, unknown>;
}

export interface InputOptions {
  /**
   * The HMAC key that seals requestState: at least 32 bytes. Every instance that may see a round of the same call
   * must share it. Default: the TOOLSPEC_REQUEST_STATE_KEY environment variable, else a random key per process
   * (enough for stdio and for one HTTP process; a restart ends the calls waiting for input).
   */
  requestStateKey?: string | Uint8Array;
  /** How long a call may wait for its input, in seconds (default 600): past it, the state is refused as expired. */
  requestStateTtlSeconds?: number;
}

export const DEFAULT_STATE_TTL_SECONDS = 600;
const KEY_VARIABLE = 'TOOLSPEC_REQUEST_STATE_KEY';

/**
 * One round of one call: the answers it has, the questions it asks, the values it keeps. Made for every call, so
 * it holds only what it was given: the records of questions, answers used and values kept are made the first time
 * a handler asks or keeps something (most calls never do).
 */
export class Round {
  /** 1 for the first call, then one more each time the client answers. */
  readonly number: number;
  hasAsked: boolean;
  private readonly responses: Record<string, unknown> | undefined;
  private readonly previous: Carried | undefined;
  private questions: Record<string, InputRequest> | undefined;
  private answers: Record<string, unknown> | undefined;
  private values: Record<string, unknown> | undefined;
  /** Once the call runs as a task (tasks.ts): where the questions it has no answer to go, instead of ending the round. */
  private task: TaskQuestions | undefined;

  constructor(number: number, responses: Record<string, unknown> | undefined, carried: Carried | undefined) {
    this.number = number;
    this.hasAsked = false;
    this.responses = responses;
    this.previous = carried;
    this.questions = undefined;
    this.answers = undefined;
    this.values = undefined;
    this.task = undefined;
  }

  /** The call runs as a task from now on: questions wait for tasks/update. */
  attach(task: TaskQuestions): void {
    this.task = task;
  }

  /** Questions asked in this round that have no answer yet, by key. */
  get asked(): Record<string, InputRequest> {
    return (this.questions ??= {});
  }

  /** Answers used so far (this round's and earlier rounds'), by key. */
  private get used(): Record<string, unknown> {
    return (this.answers ??= this.previous ? { ...this.previous.a } : {});
  }

  /** Values kept with ctx.keep so far, by key. */
  private get kept(): Record<string, unknown> {
    return (this.values ??= this.previous ? { ...this.previous.k } : {});
  }

  elicit<S extends ElicitSchema>(key: string, request: ElicitRequest<S>): Promise<Elicited<S>> {
    return this.answer(
      key,
      (r) => {
        const view = inputResponse(r, key);
        if (view.kind !== 'elicit') return undefined;
        if (view.action !== 'accept') return { action: view.action };
        const content = checkForm(request.requestedSchema, view.content);
        return content && { action: 'accept', content };
      },
      () =>
        inputRequired.elicit({
          message: request.message,
          requestedSchema: request.requestedSchema as unknown as ElicitRequestFormParams['requestedSchema'],
        }),
    ) as Promise<Elicited<S>>;
  }

  elicitUrl(
    key: string,
    request: { message: string; url: string },
  ): Promise<{ action: 'accept' | 'decline' | 'cancel' }> {
    return this.answer(
      key,
      (r) => {
        const view = inputResponse(r, key);
        return view.kind === 'elicit' ? { action: view.action } : undefined;
      },
      () => inputRequired.elicitUrl(request),
    ) as Promise<{ action: 'accept' | 'decline' | 'cancel' }>;
  }

  sample(key: string, request: CreateMessageRequestParams): Promise<SamplingResult> {
    return this.answer(
      key,
      (r) => {
        const view = inputResponse(r, key);
        return view.kind === 'sampling' ? view.result : undefined;
      },
      () => inputRequired.createMessage(request),
    ) as Promise<SamplingResult>;
  }

  listRoots(key: string): Promise<Root[]> {
    return this.answer(
      key,
      (r) => {
        const view = inputResponse(r, key);
        return view.kind === 'roots' ? { roots: view.roots } : undefined;
      },
      () => inputRequired.listRoots(),
    ).then((v) => (v as { roots: Root[] }).roots);
  }

  async keep<T>(key: string, compute: () => T | Promise<T>): Promise<T> {
    if (Object.hasOwn(this.kept, key)) return this.kept[key] as T;
    const value = await compute();
    // Stored as JSON, as the next round will read it: what cannot be serialized fails here, in this round.
    this.kept[key] = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
    return value;
  }

  /** This round's answer to `key` when it is a valid one, else an earlier round's, else the question is asked. */
  private answer(
    key: string,
    read: (responses: Record<string, unknown>) => unknown,
    ask: () => InputRequest,
  ): Promise<unknown> {
    const fresh = this.responses && Object.hasOwn(this.responses, key) ? read(this.responses) : undefined;
    const value = fresh ?? (Object.hasOwn(this.used, key) ? read(this.used) : undefined);
    if (value !== undefined) {
      if (fresh !== undefined) this.used[key] = this.responses![key];
      return Promise.resolve(value);
    }
    if (this.task) return this.task.ask(key, read, ask);
    if (!Object.hasOwn(this.asked, key)) this.asked[key] = ask();
    this.hasAsked = true;
    const waiting = Promise.reject(new InputRequired(key));
    // A handler that never awaits its ask must not leave an unhandled rejection behind.
    waiting.catch(() => undefined);
    return waiting;
  }

  carried(tool: string, digest: string): Carried {
    return { v: 1, t: tool, h: digest, r: this.number, a: this.used, k: this.kept };
  }
}

/**
 * The 2025 calls whose questions the SDK's legacy shim is sending as real requests: each holds its connection's
 * request open until answered, so there is a cap, a share of it per connection (a 2025 session), and an expiry in
 * case the shim gives up without calling again. A call also stops waiting when its request is aborted: the client
 * cancelled it, closed its response stream, or its session ended.
 */
export class WaitingCalls {
  private readonly calls = new Map<unknown, Map<string | number, () => void>>();
  private count = 0;
  /** What one connection may hold: a quarter of the cap (at least one). */
  readonly share: number;

  constructor(
    readonly max: number,
    private readonly expireMs: number,
  ) {
    this.share = Math.max(1, Math.floor(max / 4));
  }

  /**
   * The call asks again or for the first time. Undefined when it may wait; else why not, to end "…needs an answer
   * from the client, but " with.
   */
  enter(connection: unknown, id: string | number, signal?: AbortSignal): string | undefined {
    let ids = this.calls.get(connection);
    const release = ids?.get(id);
    if (release === undefined) {
      if (this.count >= this.max) return `${this.max} calls are waiting for answers already`;
      if ((ids?.size ?? 0) >= this.share) return `this connection has ${this.share} calls waiting for answers already`;
      if (signal?.aborted) return 'the call was cancelled';
    }
    if (!ids) this.calls.set(connection, (ids = new Map()));
    release?.();
    const leave = () => this.leave(connection, id);
    const timer = setTimeout(leave, this.expireMs);
    (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener('abort', leave, { once: true });
    if (release === undefined) this.count++;
    ids.set(id, () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', leave);
    });
    return undefined;
  }

  /** The call is back with answers, done, or aborted. */
  leave(connection: unknown, id: string | number): void {
    const ids = this.calls.get(connection);
    const release = ids?.get(id);
    if (release === undefined) return;
    release();
    ids!.delete(id);
    this.count--;
    if (!ids!.size) this.calls.delete(connection);
  }

  get size(): number {
    return this.count;
  }
}

/**
 * Why a round that asked cannot be answered on a 2025 request served without a session: the SDK's legacy shim would
 * need to send the client a request mid-call, and such a request has no channel for one. `what` is the tool, prompt
 * or resource; the methods asked are named.
 */
export function cannotAskPerRequest(what: string, round: Round): string {
  const methods = [...new Set(Object.values(round.asked).map((r) => r.method))].join(', ');
  return (
    `${what} needs an answer from the client (${methods}), but this server serves 2025 clients without sessions ` +
    '(--stateless), so it cannot ask the client mid-call. A client on protocol 2026-07-28, or this server without ' +
    '--stateless, can.'
  );
}

/** The caller: the client, and the user when the verifier names one (`extra.sub`). Sessions and state bind to it. */
export function principalOf(authInfo: AuthInfo | undefined): string {
  return authInfo ? `${authInfo.clientId}\0${String(authInfo.extra?.['sub'] ?? '')}` : '';
}

/** Seals and opens the rounds of every call a server serves; one per process. */
export class InputRounds {
  private readonly codec: RequestStateCodec<Carried>;
  readonly ttlSeconds: number;

  constructor(options: InputOptions = {}) {
    const key = options.requestStateKey ?? environment(KEY_VARIABLE) ?? crypto.getRandomValues(new Uint8Array(32));
    const length = typeof key === 'string' ? new TextEncoder().encode(key).length : key.length;
    if (length < 32) {
      throw new RangeError(
        `the requestState key must be at least 32 bytes long, and ${KEY_VARIABLE} (or requestStateKey) has ${length}: ` +
          'set it to a random secret, e.g. the output of `openssl rand -hex 32`',
      );
    }
    this.ttlSeconds = options.requestStateTtlSeconds ?? DEFAULT_STATE_TTL_SECONDS;
    this.codec = createRequestStateCodec<Carried>({
      key,
      ttlSeconds: this.ttlSeconds,
      // Bound to the caller: state minted for one authenticated client and user is refused for another.
      bind: (ctx) => principalOf(ctx.http?.authInfo),
    });
  }

  /** The round a call is in: the first, or the one its requestState (checked here) continues. */
  begin(tool: string, args: unknown, sdk: ServerContext): Round | Promise<Round> {
    const state = sdk.mcpReq.requestState<unknown>();
    const responses = sdk.mcpReq.inputResponses;
    if (state === undefined) return new Round(1, responses, undefined);
    return this.open(tool, args, state, sdk).then((carried) => new Round(carried.r + 1, responses, carried));
  }

  /** The input-required result that ends a round which asked questions. */
  async ask(tool: string, args: unknown, round: Round, sdk: ServerContext): Promise<InputRequiredResult> {
    const state = await this.codec.mint(round.carried(tool, await digest(args)), sdk);
    return inputRequired({ inputRequests: round.asked, requestState: state });
  }

  private async open(tool: string, args: unknown, state: unknown, sdk: ServerContext): Promise<Carried> {
    let carried: Carried;
    try {
      if (typeof state !== 'string') throw new Error('malformed');
      carried = await this.codec.verify(state, sdk);
    } catch (error) {
      throw invalidState(reasonOf(error), this.ttlSeconds);
    }
    if (carried?.v !== 1 || carried.t !== tool || carried.h !== (await digest(args)))
      throw invalidState('call', this.ttlSeconds);
    return carried;
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : 'malformed';
}

function invalidState(reason: string, ttl: number): ProtocolError {
  const why: Record<string, string> = {
    expired: `it has expired (a call may wait ${ttl} s for its input)`,
    mac: 'its seal does not match: it was changed, or sealed with another key',
    bind: 'it was issued to another caller',
    call: 'it was issued for another call (a different tool or different arguments)',
  };
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid requestState: ${why[reason] ?? 'it is not a requestState this server issued'}. Call the tool again without it.`,
    { reason: 'invalid_request_state' },
  );
}

/** SHA-256 of the arguments' canonical JSON (keys sorted), base64url. */
async function digest(args: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(args ?? {}));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let binary = '';
  for (const b of hash) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * An accepted form's content, keeping only the schema's fields, when it fits the schema (the client does not
 * check it for us); undefined when it does not, and the question is asked again.
 */
export function checkForm(schema: ElicitSchema, content: unknown): Record<string, unknown> | undefined {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return undefined;
  const given = content as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of schema.required ?? []) if (!Object.hasOwn(given, name)) return undefined;
  for (const [name, field] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(given, name)) continue;
    if (!fits(field, given[name])) return undefined;
    out[name] = given[name];
  }
  return out;
}

function fits(field: ElicitField, value: unknown): boolean {
  const f = field as Record<string, unknown>;
  const num = (k: string) => (typeof f[k] === 'number' ? (f[k] as number) : undefined);
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (field.type === 'integer' && !Number.isInteger(value)) return false;
      const min = num('minimum');
      const max = num('maximum');
      return (min === undefined || value >= min) && (max === undefined || value <= max);
    }
    case 'string': {
      if (typeof value !== 'string') return false;
      const choices = choicesOf(f);
      if (choices && !choices.includes(value)) return false;
      const length = [...value].length;
      const min = num('minLength');
      const max = num('maxLength');
      if ((min !== undefined && length < min) || (max !== undefined && length > max)) return false;
      return typeof f['format'] === 'string' ? fitsFormat(f['format'], value) : true;
    }
    case 'array': {
      if (!Array.isArray(value)) return false;
      const items = (f['items'] ?? {}) as Record<string, unknown>;
      const choices = choicesOf(items);
      if (!value.every((v) => typeof v === 'string' && (!choices || choices.includes(v)))) return false;
      const min = num('minItems');
      const max = num('maxItems');
      return (min === undefined || value.length >= min) && (max === undefined || value.length <= max);
    }
    default:
      return false;
  }
}

function choicesOf(f: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(f['enum'])) return f['enum'];
  const options = f['oneOf'] ?? f['anyOf'];
  return Array.isArray(options) ? options.map((o) => (o as { const?: unknown }).const) : undefined;
}

function fitsFormat(format: string, value: string): boolean {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
    case 'uri':
      return /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(value);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value));
    default:
      return true;
  }
}
