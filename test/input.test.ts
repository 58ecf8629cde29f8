/**
 * Asking for input (templates/runtime/input.ts), in process: the rounds of a call, the sealed requestState (tampered,
 * expired, another call, another caller, a short key), the check of accepted forms, and the cap on 2025 calls
 * waiting for answers. The same code runs in every generated server; the wire is covered by test/e2e/server-e2e.test.ts.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localRequest, type LocalCallOptions } from '../templates/runtime/context.js';
import { createDispatcher, type AnyHandler } from '../templates/runtime/dispatcher.js';
import type { AnyModule } from '../templates/runtime/primitive-types.js';
import { createPrompts } from '../templates/runtime/prompts.js';
import { createResources } from '../templates/runtime/resources.js';
import {
  checkForm,
  InputRequired,
  InputRounds,
  Round,
  WaitingCalls,
  type ElicitSchema,
} from '../templates/runtime/input.js';

const KEY = 'k'.repeat(32);
const FORM = { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] } as const;
const yes = { action: 'accept', content: { sure: true } };

function request(options: LocalCallOptions & { clientId?: string; sub?: string } = {}): ServerContext {
  const { sdk } = localRequest(options);
  const extra = options.sub === undefined ? {} : { extra: { sub: options.sub } };
  return options.clientId === undefined
    ? sdk
    : ({
        ...sdk,
        http: { authInfo: { clientId: options.clientId, token: 't', scopes: [], ...extra } },
      } as ServerContext);
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('a round of a call', () => {
  it('answers from this round, then from earlier rounds; asks for what has no answer', async () => {
    const first = new Round(1, undefined, undefined);
    await expect(first.elicit('sure', { message: 'Sure?', requestedSchema: FORM })).rejects.toBeInstanceOf(
      InputRequired,
    );
    expect(first.hasAsked).toBe(true);
    expect(Object.keys(first.asked)).toEqual(['sure']);

    const second = new Round(2, { sure: yes }, undefined);
    expect(await second.elicit('sure', { message: 'Sure?', requestedSchema: FORM })).toEqual(yes);
    const carried = second.carried('t', 'digest');
    expect(carried.a).toEqual({ sure: yes });

    // The next round's answers replace this one's: the first answer comes back from the carried state.
    const third = new Round(3, { other: { action: 'decline' } }, carried);
    expect(await third.elicit('sure', { message: 'Sure?', requestedSchema: FORM })).toEqual(yes);
    expect(await third.elicit('other', { message: 'And?', requestedSchema: FORM })).toEqual({ action: 'decline' });
    expect(third.hasAsked).toBe(false);
  });

  it('asks again when an answer does not fit its form or is of another kind', async () => {
    const round = new Round(
      2,
      { sure: { action: 'accept', content: { sure: 'yes' } }, model: { action: 'accept' } },
      undefined,
    );
    await expect(round.elicit('sure', { message: 'Sure?', requestedSchema: FORM })).rejects.toBeInstanceOf(
      InputRequired,
    );
    await expect(round.sample('model', { messages: [], maxTokens: 5 })).rejects.toBeInstanceOf(InputRequired);
    expect(Object.keys(round.asked)).toEqual(['sure', 'model']);
  });

  it('keeps a value computed once for the later rounds, as JSON', async () => {
    const compute = vi.fn(() => ({ id: 7, at: new Date(0) }));
    const first = new Round(1, undefined, undefined);
    expect(await first.keep('draft', compute)).toEqual({ id: 7, at: new Date(0) });
    const later = new Round(2, undefined, first.carried('t', 'd'));
    expect(await later.keep('draft', compute)).toEqual({ id: 7, at: '1970-01-01T00:00:00.000Z' });
    expect(compute).toHaveBeenCalledTimes(1);
  });
});

describe('the sealed requestState', () => {
  const rounds = () => new InputRounds({ requestStateKey: KEY, requestStateTtlSeconds: 60 });

  /** The requestState a first round that asks ends with. */
  async function firstState(r: InputRounds, args: unknown, sdk = request()): Promise<string> {
    const round = await r.begin('delete', args, sdk);
    round.elicit('sure', { message: 'Sure?', requestedSchema: FORM }).catch(() => undefined);
    return (await r.ask('delete', args, round, sdk)).requestState!;
  }

  it('continues the same call, and refuses another call, a changed state, another caller and an expired one', async () => {
    const r = rounds();
    const state = await firstState(r, { id: 1, tags: ['a'] });
    // The same arguments, keys in another order: the same call.
    const next = await r.begin(
      'delete',
      { tags: ['a'], id: 1 },
      request({ requestState: state, inputResponses: { sure: yes } }),
    );
    expect(next.number).toBe(2);

    const refusal = (args: unknown, options: Parameters<typeof request>[0], tool = 'delete') =>
      Promise.resolve(r.begin(tool, args, request(options))).then(
        () => 'accepted',
        (e: { code: number; message: string }) => `${e.code} ${e.message}`,
      );
    expect(await refusal({ id: 2, tags: ['a'] }, { requestState: state })).toMatch(
      /^-32602 Invalid requestState: it was issued for another call/,
    );
    expect(await refusal({ id: 1, tags: ['a'] }, { requestState: state }, 'other')).toMatch(/issued for another call/);
    const flipped = state.slice(0, -3) + (state.at(-3) === 'A' ? 'B' : 'A') + state.slice(-2);
    expect(await refusal({ id: 1, tags: ['a'] }, { requestState: flipped })).toMatch(/its seal does not match/);
    expect(await refusal({ id: 1, tags: ['a'] }, { requestState: 'not a state' })).toMatch(
      /not a requestState this server issued/,
    );
    const sealedElsewhere = await firstState(new InputRounds({ requestStateKey: 'x'.repeat(32) }), {
      id: 1,
      tags: ['a'],
    });
    expect(await refusal({ id: 1, tags: ['a'] }, { requestState: sealedElsewhere })).toMatch(/its seal does not match/);

    const mine = await firstState(r, { id: 1 }, request({ clientId: 'alice' }));
    expect(await refusal({ id: 1 }, { requestState: mine, clientId: 'mallory' })).toMatch(/issued to another caller/);
    expect(await refusal({ id: 1 }, { requestState: mine, clientId: 'alice' })).toBe('accepted');
    // One OAuth client, many users: bound to the user too (the verifier's extra.sub), as sessions are.
    const ann = await firstState(r, { id: 1 }, request({ clientId: 'app', sub: 'ann' }));
    expect(await refusal({ id: 1 }, { requestState: ann, clientId: 'app', sub: 'bob' })).toMatch(
      /issued to another caller/,
    );
    expect(await refusal({ id: 1 }, { requestState: ann, clientId: 'app' })).toMatch(/issued to another caller/);
    expect(await refusal({ id: 1 }, { requestState: ann, clientId: 'app', sub: 'ann' })).toBe('accepted');

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await refusal({ id: 1, tags: ['a'] }, { requestState: state })).toMatch(
      /it has expired \(a call may wait 60 s for its input\)/,
    );
  });

  it('takes its key from TOOLSPEC_REQUEST_STATE_KEY, and refuses a key shorter than 32 bytes', async () => {
    vi.stubEnv('TOOLSPEC_REQUEST_STATE_KEY', KEY);
    const state = await firstState(new InputRounds(), { id: 1 });
    await expect(
      Promise.resolve(
        new InputRounds({ requestStateKey: KEY }).begin('delete', { id: 1 }, request({ requestState: state })),
      ),
    ).resolves.toBeInstanceOf(Round);
    vi.stubEnv('TOOLSPEC_REQUEST_STATE_KEY', 'short');
    expect(() => new InputRounds()).toThrow(
      /at least 32 bytes long, and TOOLSPEC_REQUEST_STATE_KEY \(or requestStateKey\) has 5/,
    );
  });
});

describe('accepted forms', () => {
  const schema: ElicitSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5 },
      mail: { type: 'string', format: 'email' },
      age: { type: 'integer', minimum: 0, maximum: 150 },
      score: { type: 'number' },
      pick: { type: 'string', oneOf: [{ const: 'a' }, { const: 'b' }] },
      many: { type: 'array', items: { enum: ['x', 'y'] }, maxItems: 2 },
      ok: { type: 'boolean' },
    },
    required: ['name'],
  };

  it('keeps the fields of the schema that fit it, and nothing else', () => {
    expect(
      checkForm(schema, {
        name: 'Ada',
        age: 36,
        score: 1.5,
        pick: 'b',
        many: ['x'],
        ok: false,
        mail: 'a@b.io',
        extra: 1,
      }),
    ).toEqual({
      name: 'Ada',
      age: 36,
      score: 1.5,
      pick: 'b',
      many: ['x'],
      ok: false,
      mail: 'a@b.io',
    });
  });

  it.each([
    ['a missing required field', { age: 3 }],
    ['a string too short', { name: 'A' }],
    ['a string too long', { name: 'Adalovelace' }],
    ['a bad email', { name: 'Ada', mail: 'nope' }],
    ['a fraction for an integer', { name: 'Ada', age: 3.5 }],
    ['a number past its maximum', { name: 'Ada', age: 151 }],
    ['a choice not offered', { name: 'Ada', pick: 'c' }],
    ['too many items', { name: 'Ada', many: ['x', 'y', 'x'] }],
    ['an item not offered', { name: 'Ada', many: ['z'] }],
    ['a string for a boolean', { name: 'Ada', ok: 'true' }],
    ['not an object', ['Ada']],
  ])('refuses %s', (_why, content) => {
    expect(checkForm(schema, content)).toBeUndefined();
  });
});

describe('the dispatcher with handlers that ask', () => {
  const tools = [{ name: 'ask', inputSchema: { type: 'object' as const } }];
  const bindings = new Map([
    ['ask', { input: Object.assign((_data: unknown): _data is unknown => true, { errors: null }) }],
  ]);
  const make = (handler: AnyHandler, waiting?: { max: number } | WaitingCalls) =>
    createDispatcher({
      tools,
      bindings,
      handlers: { ask: handler },
      requestStateKey: KEY,
      onError: () => undefined,
      ...(waiting ? { waiting } : {}),
    });

  it('asks even when the handler catches the rejection, and every question of the round at once', async () => {
    const swallowing = make((async (_a: unknown, ctx: import('../templates/runtime/context.js').ToolContext) => {
      try {
        await Promise.all([ctx.elicit('one', { message: '1', requestedSchema: FORM }), ctx.listRoots('two')]);
      } catch {
        return 'caught it';
      }
      return 'done';
    }) as AnyHandler);
    const { sdk, connection } = localRequest({ clientCapabilities: { elicitation: {}, roots: {} } });
    const result = (await swallowing.callTool('ask', {}, sdk, connection)) as {
      resultType?: string;
      inputRequests?: object;
    };
    expect(Object.keys(result.inputRequests ?? {})).toEqual(['one', 'two']);
  });

  it('ends a 2025 call that asks with an error result when too many calls wait already', async () => {
    const asking = make(
      (async (_a: unknown, ctx: import('../templates/runtime/context.js').ToolContext) => {
        await ctx.elicit('one', { message: '1', requestedSchema: FORM });
        return 'done';
      }) as AnyHandler,
      { max: 1 },
    );
    const first = localRequest({ era: 'legacy', requestId: 1 });
    expect(await asking.callTool('ask', {}, first.sdk, first.connection)).toHaveProperty('inputRequests');
    const second = localRequest({ era: 'legacy', requestId: 2 });
    const refused = (await asking.callTool('ask', {}, second.sdk, second.connection)) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('1 calls are waiting for answers already');
    // On 2026-07-28 the server holds nothing while the client answers: no cap.
    const modern = localRequest({ requestId: 3 });
    expect(await asking.callTool('ask', {}, modern.sdk, modern.connection)).toHaveProperty('inputRequests');
  });

  it('counts prompts/get and resources/read rounds that ask under the same cap as tools/call', async () => {
    const waiting = new WaitingCalls(1, 60_000);
    const asks = {
      handler: async (_input: unknown, ctx: import('../templates/runtime/context.js').ToolContext) => {
        await ctx.elicit('one', { message: '1', requestedSchema: FORM });
        return 'done';
      },
    } as unknown as AnyModule;
    const prompts = createPrompts(
      [{ name: 'p' }],
      { p: { arguments: [] } },
      { p: async () => asks },
      {
        requestStateKey: KEY,
        waiting,
      },
    );
    const resources = createResources(
      [{ uri: 'notes://a', name: 'r' }],
      [],
      [{ name: 'r', uri: 'notes://a', complete: {} }],
      { r: async () => asks },
      { requestStateKey: KEY, waiting },
    );
    const tools = make(asks.handler as unknown as AnyHandler, waiting);
    const first = localRequest({ era: 'legacy', requestId: 1 });
    expect(await resources.read('notes://a', first.sdk, first.connection)).toHaveProperty('inputRequests');
    const second = localRequest({ era: 'legacy', requestId: 2 });
    await expect(prompts.get('p', {}, second.sdk, second.connection)).rejects.toThrow(
      'Prompt "p" needs an answer from the client, but 1 calls are waiting for answers already',
    );
    const refused = (await tools.callTool('ask', {}, second.sdk, second.connection)) as { isError?: boolean };
    expect(refused.isError).toBe(true);
    // (Asked again, it is counted once; it leaves when it is done.)
    await expect(resources.read('notes://a', first.sdk, first.connection)).resolves.toHaveProperty('inputRequests');
    expect(waiting.size).toBe(1);
    waiting.leave(first.connection, 1);
    expect(await prompts.get('p', {}, second.sdk, second.connection)).toHaveProperty('inputRequests');
    await expect(resources.read('notes://a', first.sdk, first.connection)).rejects.toThrow(
      'Resource "r" needs an answer from the client, but 1 calls are waiting for answers already',
    );
  });

  it('counts a waiting 2025 call once however often it asks, and releases it when it comes back', () => {
    const waiting = new WaitingCalls(8, 60_000);
    const connection = {};
    expect(waiting.enter(connection, 1)).toBeUndefined();
    expect(waiting.enter(connection, 1)).toBeUndefined();
    expect(waiting.enter(connection, 2)).toBeUndefined();
    expect(waiting.size).toBe(2);
    // A quarter of the cap per connection: one client cannot take every slot.
    expect(waiting.enter(connection, 3)).toBe('this connection has 2 calls waiting for answers already');
    for (let i = 0; i < 3; i++) {
      const other = {};
      expect(waiting.enter(other, 1)).toBeUndefined();
      expect(waiting.enter(other, 2)).toBeUndefined();
    }
    expect(waiting.enter({}, 1)).toBe('8 calls are waiting for answers already');
    waiting.leave(connection, 1);
    expect(waiting.size).toBe(7);
    expect(waiting.enter({}, 1)).toBeUndefined();
  });

  it('releases a waiting call when its request is aborted: cancelled, its stream closed, or its session gone', () => {
    const waiting = new WaitingCalls(4, 60_000);
    const connection = {};
    const controller = new AbortController();
    expect(waiting.enter(connection, 1, controller.signal)).toBeUndefined();
    // Asked again in the same call: still one, still released by the same signal.
    expect(waiting.enter(connection, 1, controller.signal)).toBeUndefined();
    expect(waiting.size).toBe(1);
    controller.abort();
    expect(waiting.size).toBe(0);
    expect(waiting.enter(connection, 2, controller.signal)).toBe('the call was cancelled');
    expect(waiting.size).toBe(0);
  });
});

describe('what the dispatcher says of a result that breaks its outputSchema', () => {
  it('names a field the schema does not allow as a field, not as an argument', async () => {
    const { Ajv } = await import('ajv');
    const ajv = new Ajv({ allErrors: true });
    const output = ajv.compile({ type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false });
    const dispatcher = createDispatcher({
      tools: [{ name: 'count', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }],
      bindings: new Map([
        [
          'count',
          { input: Object.assign((_d: unknown): _d is unknown => true, { errors: null }), output: output as never },
        ],
      ]),
      handlers: { count: (() => ({ n: 1, extra: true })) as AnyHandler },
      onError: () => undefined,
    });
    const { sdk, connection } = localRequest();
    const result = (await dispatcher.callTool('count', {}, sdk, connection)) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('does not match the outputSchema: extra: is not an accepted field');
  });
});

describe('what prompts and resources say of a handler that returns the wrong shape', () => {
  it('names what it got, and what to return instead', async () => {
    const module = (value: unknown) => ({ handler: async () => value }) as unknown as AnyModule;
    const prompts = createPrompts(
      [{ name: 'p' }],
      { p: { arguments: [] } },
      { p: async () => module({ text: 'hi' }) },
      {
        onError: () => undefined,
      },
    );
    const resources = createResources(
      [{ uri: 'notes://a', name: 'r' }],
      [],
      [{ name: 'r', uri: 'notes://a', complete: {} }],
      { r: async () => module(42) },
      { onError: () => undefined },
    );
    const { sdk, connection } = localRequest({ era: 'legacy' });
    await expect(prompts.get('p', {}, sdk, connection)).rejects.toThrow(
      'Prompt "p" failed: the handler returned an object without a messages array; return text, a list of messages or a GetPromptResult',
    );
    await expect(resources.read('notes://a', sdk, connection)).rejects.toThrow(
      'Resource "r" failed: the handler returned a number; return text, bytes, contents or a ReadResourceResult',
    );
  });
});
