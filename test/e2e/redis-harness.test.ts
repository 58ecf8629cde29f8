/**
 * The Redis harness (test/helpers/redis.ts), proven: a real redis-server comes up on a port of its own, node-redis
 * stores with a time to live that really runs out, keeps lists, delivers a publish to a subscriber on a duplicate
 * connection, and stop() ends the server (and the clients still open on it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installRedisClient,
  ping,
  redisClient,
  startRedis,
  type RedisClient,
  type RedisServer,
} from '../helpers/redis.js';

let redis: RedisServer;
let client: RedisClient;

beforeAll(async () => {
  installRedisClient();
  redis = await startRedis();
  client = await redisClient(redis.url);
});

afterAll(async () => {
  await redis?.stop();
});

/** Polls `ok` every 10 ms for up to `limitMs`. */
async function eventually(ok: () => Promise<boolean>, limitMs = 2_000): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return ok();
}

describe('the Redis harness', () => {
  it('starts a server on 127.0.0.1 that answers PING, persisting nothing', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await ping(redis.port)).toBe(true);
    expect(await client.sendCommand(['CONFIG', 'GET', 'save'])).toEqual(['save', '']);
    expect(await client.sendCommand(['CONFIG', 'GET', 'appendonly'])).toEqual(['appendonly', 'no']);
  });

  it('sets with PX: the value is there, then gone once its time to live ran out', async () => {
    expect(await client.set('task:1', 'working', { PX: 150 })).toBe('OK');
    expect(await client.get('task:1')).toBe('working');
    const ttl = await client.pTTL('task:1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(150);
    expect(await eventually(async () => (await client.get('task:1')) === null)).toBe(true);
    expect(await client.exists('task:1')).toBe(0);

    // node-redis 5's preferred spelling of the same, and NX refusing to overwrite.
    expect(await client.set('task:2', 'a', { expiration: { type: 'PX', value: 60_000 } })).toBe('OK');
    expect(await client.set('task:2', 'b', { condition: 'NX' })).toBeNull();
    expect(await client.get('task:2')).toBe('a');
  });

  it('incr, pExpire and del', async () => {
    expect(await client.incr('seq')).toBe(1);
    expect(await client.incr('seq')).toBe(2);
    expect(await client.pExpire('seq', 60_000)).toBe(1);
    expect(await client.pExpire('no-such-key', 60_000)).toBe(0);
    expect(await client.del(['seq', 'task:2', 'no-such-key'])).toBe(2);
    expect(await client.get('seq')).toBeNull();
  });

  it('rPush, lRange, lTrim and lLen keep a list of stream events in order', async () => {
    expect(await client.rPush('events', ['e1', 'e2'])).toBe(2);
    expect(await client.rPush('events', 'e3')).toBe(3);
    expect(await client.lRange('events', 0, -1)).toEqual(['e1', 'e2', 'e3']);
    expect(await client.lRange('events', 1, 1)).toEqual(['e2']);
    expect(await client.lTrim('events', -2, -1)).toBe('OK');
    expect(await client.lLen('events')).toBe(2);
    expect(await client.lRange('events', 0, -1)).toEqual(['e2', 'e3']);
    expect(await client.lRange('no-such-list', 0, -1)).toEqual([]);
  });

  it('a publish reaches a subscriber on a duplicate connection, and no longer after unsubscribe', async () => {
    const subscriber = client.duplicate();
    await subscriber.connect();
    const received: [string, string][] = [];
    await subscriber.subscribe('task:1:events', (message, channel) => received.push([message, channel]));
    expect(await client.publish('task:1:events', '{"seq":1}')).toBe(1);
    expect(await eventually(async () => received.length === 1)).toBe(true);
    expect(received).toEqual([['{"seq":1}', 'task:1:events']]);

    await subscriber.unsubscribe();
    expect(await client.publish('task:1:events', '{"seq":2}')).toBe(0);
    await subscriber.close();
    expect(subscriber.isOpen).toBe(false);
  });

  it('stop() ends the server and the clients still open on it; again is a no-op', async () => {
    const other = await startRedis();
    const open = await redisClient(other.url);
    const idle = open.duplicate();
    await idle.connect();
    expect(other.port).not.toBe(redis.port);
    expect(await open.set('k', 'v')).toBe('OK');

    await other.stop();
    expect(() => process.kill(other.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(await ping(other.port)).toBe(false);
    expect(open.isOpen).toBe(false);
    expect(idle.isOpen).toBe(false);
    await expect(open.get('k')).rejects.toThrow();
    await other.stop();

    // The first server is untouched.
    expect(await client.get('k')).toBeNull();
    expect(await ping(redis.port)).toBe(true);
  });
});
