/**
 * 2025 sessions shared by the instances of one endpoint through a real Redis (Debian's redis-server, started here;
 * createRedisSessionStore over the official client): a session opened on one instance is served, as the same
 * session, by another; a stream whose instance stopped is resumed on another from the events kept in Redis; a
 * session ended on one is gone on all. What Redis hands back is untrusted, and a session is its caller's on every
 * instance. Then the SDK's real client through Debian's HAProxy with session affinity: the instance holding its
 * session stops, and the session goes on, questions mid-call included, on the other.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { connectFixtureClient, toolText } from '../helpers/e2e-client.js';
import { answeredBy, startBalancer } from '../helpers/haproxy.js';
import {
  generateAndCompile,
  importGenerated,
  scratchCopy,
  type GeneratedIndex,
  type GeneratedServer,
} from '../helpers/project.js';
import { callerFromHeader } from '../helpers/tasks.js';
import { installRedisClient, redisClient, startRedis, type RedisClient, type RedisServer } from '../helpers/redis.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'e2e-redis-sessions');
const dist = path.join(project.dir, 'dist');
const VERSION = '2025-11-25';

type Generated = GeneratedIndex & {
  createRedisSessionStore(options: {
    client: RedisClient;
    prefix?: string;
    maxEventsPerStream?: number;
    maxEventChars?: number;
  }): unknown;
};

let redis: RedisServer;
let g: Generated;
let inspect: RedisClient;
const servers: GeneratedServer[] = [];

beforeAll(async () => {
  installRedisClient();
  generateAndCompile(project.dir);
  redis = await startRedis();
  inspect = await redisClient(redis.url);
  g = await importGenerated<Generated>(dist);
}, 180_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
  await redis?.stop();
  project.cleanup();
});

/** An instance of the endpoint keeping its 2025 sessions in Redis, the caller named by the x-caller header. */
async function instance(caps: Record<string, number> = {}): Promise<GeneratedServer> {
  const server = await g.serveHttp(g.handlers, {
    port: 0,
    sessions: g.createRedisSessionStore({ client: await redisClient(redis.url), prefix: 'e2e:', ...caps }),
    authenticate: callerFromHeader('alice'),
  });
  servers.push(server);
  return server;
}

interface Event {
  id?: string;
  data?: Record<string, unknown>;
}
interface Reply {
  status: number;
  session: string | null;
  events: Event[];
  /** The JSON-RPC response among the events (or the JSON body). */
  answer?: Record<string, unknown>;
}

/**
 * One request on the 2025 wire, raw: `session` sent as Mcp-Session-Id, `as` as the caller. A GET that finds its
 * kept-alive connection to the balancer closed under it before any answer (the balancer closes a client's
 * connection when the instance behind it goes) is sent once more, as a client resuming a stream does; a POST is
 * not, since its call may have run.
 */
async function send(
  url: string,
  method: 'POST' | 'GET' | 'DELETE',
  body?: object,
  options: { session?: string; as?: string; lastEventId?: string } = {},
): Promise<Reply> {
  try {
    return await sendOnce(url, method, body, options);
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code;
    if (method !== 'GET' || code !== 'UND_ERR_SOCKET') throw error;
    return sendOnce(url, method, body, options);
  }
}

async function sendOnce(
  url: string,
  method: 'POST' | 'GET' | 'DELETE',
  body: object | undefined,
  { session, as, lastEventId }: { session?: string; as?: string; lastEventId?: string },
): Promise<Reply> {
  const res = await fetch(url, {
    method,
    headers: {
      accept: 'application/json, text/event-stream',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': VERSION } : {}),
      ...(as ? { 'x-caller': as } : {}),
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const events: Event[] = text.startsWith('{')
    ? [{ data: JSON.parse(text) as Record<string, unknown> }]
    : text
        .split('\n\n')
        .filter((block) => block.trim())
        .map((block) => {
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (\{.*)$/m.exec(block)?.[1];
          return { ...(id ? { id } : {}), ...(data ? { data: JSON.parse(data) as Record<string, unknown> } : {}) };
        });
  const answer = events.find((e) => e.data && ('result' in e.data || 'error' in e.data))?.data;
  return { status: res.status, session: res.headers.get('mcp-session-id'), events, ...(answer ? { answer } : {}) };
}

let ids = 1;
const request = (method: string, params: object = {}) => ({ jsonrpc: '2.0', id: ids++, method, params });
const callTool = (name: string, args: object = {}) =>
  request('tools/call', { name, arguments: args, _meta: { progressToken: `p${ids}` } });

/** initialize on `url`, as `as`: the session's id. */
async function open(url: string, as?: string): Promise<string> {
  const init = request('initialize', {
    protocolVersion: VERSION,
    capabilities: {},
    clientInfo: { name: 'sessions-e2e', version: '1.0.0' },
  });
  const reply = await send(url, 'POST', init, as ? { as } : {});
  expect(reply.answer).toHaveProperty('result.protocolVersion', VERSION);
  return reply.session!;
}

const structured = (reply: Reply) => (reply.answer?.['result'] as { structuredContent?: unknown }).structuredContent;

describe('2025 sessions shared through Redis', () => {
  it('a session opened on one instance is the same session on another', async () => {
    const [a, b] = [await instance(), await instance()];
    const session = await open(a.url);
    expect(
      (await send(b.url, 'POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, { session })).status,
    ).toBe(202);
    expect(structured(await send(b.url, 'POST', callTool('whoami'), { session }))).toMatchObject({ session });
    // The instance that took the session over negotiated what the first one did.
    expect(structured(await send(b.url, 'POST', callTool('era'), { session }))).toEqual({
      era: 'legacy',
      protocolVersion: VERSION,
    });
    const listed = await send(a.url, 'POST', request('tools/list'), { session });
    expect((listed.answer!['result'] as { tools: unknown[] }).tools.length).toBeGreaterThan(5);
    // Its keys share one hash slot: the session's id in braces.
    expect((await inspect.sendCommand(['KEYS', `e2e:{${session}}:*`])) as string[]).toContain(
      `e2e:{${session}}:session`,
    );
  });

  it("a stream whose instance stopped is resumed on another, from Redis's events", async () => {
    const [a, b] = [await instance(), await instance()];
    const session = await open(a.url);
    const first = await send(b.url, 'POST', callTool('slow', { steps: 3, ms: 5 }), { session });
    expect(first.answer).toHaveProperty('result.content.0.text', 'done after 3 steps');
    const [priming, ...rest] = first.events;
    expect(priming!.data).toBeUndefined();
    await b.close();
    // Say the connection broke after the priming event: the client comes back, to the instance still there.
    const resumed = await send(a.url, 'GET', undefined, { session, lastEventId: priming!.id! });
    expect(resumed.status).toBe(200);
    expect(resumed.events).toEqual(rest);
    expect(rest.map((e) => e.data?.['method'] ?? 'answer')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
      'answer',
    ]);
    // From the middle: only what came after.
    const later = await send(a.url, 'GET', undefined, { session, lastEventId: rest[2]!.id! });
    expect(later.events).toEqual(rest.slice(3));
  });

  it('keeps a stream within its caps: from before the kept events, or a message too large to keep, is refused', async () => {
    const [a, b] = [await instance({ maxEventsPerStream: 3, maxEventChars: 400 }), await instance()];
    const session = await open(a.url);
    // priming, three progress notifications, the log message, the answer: the last three are kept.
    const { events } = await send(a.url, 'POST', callTool('slow', { steps: 3, ms: 5 }), { session });
    expect(events).toHaveLength(6);
    expect((await send(b.url, 'GET', undefined, { session, lastEventId: events[2]!.id! })).status).toBe(400);
    expect((await send(b.url, 'GET', undefined, { session, lastEventId: events[3]!.id! })).events).toEqual(
      events.slice(4),
    );
    const long = await send(a.url, 'POST', callTool('echo', { text: 'y'.repeat(500) }), { session });
    expect(long.answer).toHaveProperty('result.content.0.text', 'y'.repeat(500));
    expect((await send(b.url, 'GET', undefined, { session, lastEventId: long.events[0]!.id! })).status).toBe(400);
    // Its own id is kept, with nothing after it: the client that saw it misses nothing.
    const after = await send(b.url, 'GET', undefined, { session, lastEventId: long.events.at(-1)!.id! });
    expect([after.status, after.events]).toEqual([200, []]);
  });

  it('a session ended on one instance is gone on every instance, and so are its events', async () => {
    const [a, b] = [await instance(), await instance()];
    const session = await open(a.url);
    expect(structured(await send(b.url, 'POST', callTool('whoami'), { session }))).toMatchObject({ session });
    expect((await send(a.url, 'DELETE', undefined, { session })).status).toBe(200);
    expect((await send(b.url, 'POST', callTool('whoami'), { session })).status).toBe(404);
    expect((await send(a.url, 'POST', callTool('whoami'), { session })).status).toBe(404);
    expect(await inspect.sendCommand(['KEYS', `e2e:{${session}}:*`])).toEqual([]);
  });

  it("is its caller's on every instance, and takes nothing from Redis that is not a session of ours", async () => {
    const [a, b] = [await instance(), await instance()];
    const session = await open(a.url, 'alice');
    for (const url of [a.url, b.url])
      expect((await send(url, 'POST', callTool('whoami'), { session, as: 'mallory' })).status).toBe(404);
    expect(structured(await send(b.url, 'POST', callTool('whoami'), { session, as: 'alice' }))).toMatchObject({
      client: 'alice',
      session,
    });
    // A Last-Event-ID of another session, or forged: refused, on an instance that took the session over too.
    const other = await open(a.url, 'alice');
    const theirs = (await send(a.url, 'POST', callTool('echo', { text: 'x' }), { session: other, as: 'alice' }))
      .events[0]!.id!;
    for (const lastEventId of [theirs, '_GET_stream/1-0', `${theirs}0`, 'x'.repeat(5000)])
      expect((await send(b.url, 'GET', undefined, { session, as: 'alice', lastEventId })).status).toBe(400);
    // Planted records: not JSON, not a record, a handshake the SDK refuses. None is a session.
    const planted = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    await inspect.set(`e2e:{${planted[0]}}:session`, '{not json');
    await inspect.set(`e2e:{${planted[1]}}:session`, JSON.stringify({ principal: 'alice\0', init: { no: 1 } }));
    for (const id of planted)
      expect((await send(b.url, 'POST', callTool('whoami'), { session: id, as: 'alice' })).status).toBe(404);
    // Not an id this endpoint gives: no key is read for it.
    expect((await send(b.url, 'POST', callTool('whoami'), { session: '../../x', as: 'alice' })).status).toBe(404);
  });
});

describe('a session store that fails', () => {
  it('answers 503 saying so, to a new session and to a known one', async () => {
    const down = {
      sendCommand: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      },
    };
    const server = await g.serveHttp(g.handlers, {
      port: 0,
      sessions: g.createRedisSessionStore({ client: down as never }),
    });
    servers.push(server);
    const init = await send(
      server.url,
      'POST',
      request('initialize', {
        protocolVersion: VERSION,
        capabilities: {},
        clientInfo: { name: 'sessions-e2e', version: '1.0.0' },
      }),
    );
    expect([init.status, init.session]).toEqual([503, null]);
    const known = await send(server.url, 'POST', callTool('whoami'), {
      session: '00000000-0000-4000-8000-00000000000a',
    });
    expect(known.status).toBe(503);
    expect(known.events[0]?.data).toMatchObject({
      error: { message: 'The session store cannot be reached; try again later' },
    });
  });
});

describe('the SDK client behind HAProxy with affinity, its instance stopped', () => {
  it('keeps its session and its streams on the other instance, a question mid-call included', async () => {
    const [a, b] = [await instance(), await instance()];
    const balancer = await startBalancer(
      project.dir,
      [a, b].map((s) => Number(new URL(s.url).port)),
    );
    const client = await connectFixtureClient(balancer.url, 'legacy');
    try {
      const whoami = async () => (await client.callTool({ name: 'whoami', arguments: {} })).structuredContent;
      const before = await whoami();
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo', arguments: { text: `n${i}` } });
      // 2025 clients send no Mcp-Method header: every request of this client is logged under the empty one.
      // Affinity: one instance has served the session's last four calls (whoami and the echoes).
      const holders = new Set(answeredBy(balancer, '').slice(-4));
      expect(holders.size).toBe(1);
      const holder = [...holders][0]!;
      // A call on the session whose stream the client is about to lose (read here, raw, through the balancer).
      const session = (before as { session: string }).session;
      const lost = await send(balancer.url, 'POST', callTool('slow', { steps: 2, ms: 5 }), { session });
      await (holder === 's1' ? a : b).close();
      const resumed = await send(balancer.url, 'GET', undefined, { session, lastEventId: lost.events[0]!.id! });
      expect(resumed.events).toEqual(lost.events.slice(1));
      expect(await whoami()).toEqual(before);
      const confirmed = await client.callTool({ name: 'confirm', arguments: { note: 'n1' } });
      expect(toolText(confirmed as never)).toContain('outdated');
      expect(answeredBy(balancer, '').at(-1)).not.toBe(holder);
    } finally {
      await client.close();
      await balancer.stop();
    }
  });
});
