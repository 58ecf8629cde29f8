/**
 * Tasks shared by two instances of one endpoint through a real Redis (Debian's redis-server, started here;
 * createRedisTaskStore over the official client): a task started on one instance is seen, answered and cancelled
 * from the other, stays its caller's on both, and says so when the instance running it stops. What Redis hands back
 * is untrusted: a planted record that names another task, or does not parse, is no task. And three instances behind
 * Debian's HAProxy, round robin: a task and its question through the balancer, each request on whichever instance.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import {
  generateAndCompile,
  importGenerated,
  scratchCopy,
  type GeneratedIndex,
  type GeneratedServer,
} from '../helpers/project.js';
import { installRedisClient, redisClient, startRedis, type RedisClient, type RedisServer } from '../helpers/redis.js';
import { answeredBy, startBalancer } from '../helpers/haproxy.js';
import { call, callerFromHeader, listen, rpc, until } from '../helpers/tasks.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/tasks'), 'e2e-redis-tasks');
const dist = path.join(project.dir, 'dist');

type Generated = GeneratedIndex & {
  createRedisTaskStore(options: { client: RedisClient; subscriber: RedisClient; prefix?: string }): unknown;
};

let redis: RedisServer;
let g: Generated;
let log: string[];
let inspect: RedisClient;
const servers: GeneratedServer[] = [];

beforeAll(async () => {
  installRedisClient();
  generateAndCompile(project.dir);
  redis = await startRedis();
  inspect = await redisClient(redis.url);
  g = await importGenerated<Generated>(dist);
  ({ log } = (await import(pathToFileURL(path.join(dist, 'handlers/log.js')).href)) as { log: string[] });
}, 180_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
  await redis?.stop();
  project.cleanup();
});

/** An instance of the endpoint with a Redis task store of its own (a client and a subscriber connection). */
async function instance(options: Record<string, unknown> = {}): Promise<GeneratedServer> {
  const client = await redisClient(redis.url);
  const subscriber = await client.duplicate().connect();
  const { tasks, ...rest } = options as { tasks?: object };
  const server = await g.serveHttp(g.handlers, {
    port: 0,
    tasks: { store: g.createRedisTaskStore({ client, subscriber, prefix: 'e2e:' }), ...tasks },
    authenticate: callerFromHeader('alice'),
    ...rest,
  });
  servers.push(server);
  return server;
}

describe('two instances sharing tasks through Redis', () => {
  it('a task started on one is followed on the other, to its result', async () => {
    const [a, b] = [await instance(), await instance()];
    const { result: handle } = await call(a.url, 'export', { rows: 5, pauseMs: 30 });
    const taskId = handle!['taskId'] as string;
    // Durably created: the other instance finds it at once.
    expect((await rpc(b.url, 'tasks/get', { taskId })).result?.['status']).toBe('working');
    const done = await until(b.url, taskId, (t) => t['status'] === 'completed');
    expect(done).toMatchObject({ resultType: 'complete', result: { content: [{ text: 'exported 5 rows' }] } });
    expect(done).not.toHaveProperty('principal');
  });

  it("the other instance's tasks/update answers the question the task asks, and its tasks/cancel stops a task", async () => {
    const [a, b] = [await instance(), await instance()];
    const { result: asking } = await call(a.url, 'approve', { item: 'the move' });
    const taskId = asking!['taskId'] as string;
    const parked = await until(b.url, taskId, (t) => t['status'] === 'input_required');
    expect(parked['inputRequests']).toMatchObject({ go: { method: 'elicitation/create' } });
    expect(
      (
        await rpc(b.url, 'tasks/update', {
          taskId,
          inputResponses: { go: { action: 'accept', content: { go: true } } },
        })
      ).result,
    ).toMatchObject({ resultType: 'complete' });
    const done = await until(b.url, taskId, (t) => t['status'] === 'completed');
    expect(done).toMatchObject({ result: { content: [{ text: 'went on with the move' }] } });

    const { result: long } = await call(a.url, 'export', { rows: 900, pauseMs: 20 });
    const longId = long!['taskId'] as string;
    await rpc(b.url, 'tasks/cancel', { taskId: longId });
    await until(b.url, longId, (t) => t['status'] === 'cancelled');
    await expect.poll(() => log.includes('export 900 aborted')).toBe(true);
  });

  it("the other instance's subscriptions/listen follows the task to its end, from the store", async () => {
    const [a, b] = [await instance(), await instance({ tasks: { pollIntervalMs: 50 } })];
    const { result: handle } = await call(a.url, 'export', { rows: 3, pauseMs: 30 });
    const taskId = handle!['taskId'] as string;
    const [ack, ...rest] = await listen(b.url, { taskIds: [taskId] });
    expect(ack).toMatchObject({ params: { notifications: { taskIds: [taskId] } } });
    const notes = rest.filter((e) => e['method'] === 'notifications/tasks').map((e) => e['params']);
    expect(notes.at(-1)).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ text: 'exported 3 rows' }] },
    });
  });

  it("stays its caller's on every instance", async () => {
    const [a, b] = [await instance(), await instance()];
    const { result: handle } = await call(a.url, 'export', { rows: 2, pauseMs: 10 }, { as: 'alice' });
    const taskId = handle!['taskId'] as string;
    for (const method of ['tasks/get', 'tasks/cancel'])
      expect((await rpc(b.url, method, { taskId }, { as: 'mallory' })).error?.code).toBe(-32602);
    await until(b.url, taskId, (t) => t['status'] === 'completed', 'alice');
  });

  it('says failed, on the other instance, when the one running the task stops', async () => {
    const [a, b] = [await instance(), await instance()];
    const { result: handle } = await call(a.url, 'export', { rows: 900, pauseMs: 20 });
    const taskId = handle!['taskId'] as string;
    await a.close();
    expect((await rpc(b.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The server running the task stopped' },
    });
  });

  it('three instances behind HAProxy: a task and its question, each request on whichever instance', async () => {
    const three = [await instance(), await instance(), await instance()];
    const balancer = await startBalancer(
      project.dir,
      three.map((s) => Number(new URL(s.url).port)),
    );
    try {
      const { result: handle } = await call(balancer.url, 'export', { rows: 5, pauseMs: 30 });
      const taskId = handle!['taskId'] as string;
      const done = await until(balancer.url, taskId, (t) => t['status'] === 'completed');
      expect(done).toMatchObject({ result: { content: [{ text: 'exported 5 rows' }] } });
      const { result: asking } = await call(balancer.url, 'approve', { item: 'the move' });
      const askingId = asking!['taskId'] as string;
      await until(balancer.url, askingId, (t) => t['status'] === 'input_required');
      const inputResponses = { go: { action: 'accept', content: { go: true } } };
      await rpc(balancer.url, 'tasks/update', { taskId: askingId, inputResponses });
      const went = await until(balancer.url, askingId, (t) => t['status'] === 'completed');
      expect(went).toMatchObject({ result: { content: [{ text: 'went on with the move' }] } });
      // Round robin: the polls of one task were answered by every instance, not only the one running it.
      expect(new Set(answeredBy(balancer, 'tasks/get', taskId))).toEqual(new Set(['s1', 's2', 's3']));
    } finally {
      await balancer.stop();
    }
  });

  it('takes nothing from Redis that is not a record of the task asked for', async () => {
    const b = await instance();
    const planted = '00000000-0000-4000-8000-000000000000';
    const other = '11111111-1111-4111-8111-111111111111';
    const record = { taskId: other, principal: 'alice\0', status: 'completed', result: { content: [] } };
    await inspect.set(`e2e:task:${planted}`, JSON.stringify({ owner: 'x', record }));
    expect((await rpc(b.url, 'tasks/get', { taskId: planted })).error?.code).toBe(-32602);
    await inspect.set(`e2e:task:${planted}`, '{not json');
    expect((await rpc(b.url, 'tasks/get', { taskId: planted })).error?.code).toBe(-32602);
    // Not a task id at all: no key is read for it.
    expect((await rpc(b.url, 'tasks/get', { taskId: '../../etc' })).error?.code).toBe(-32602);
  });
});
