/**
 * What the instances of one endpoint share through Redis: tasks (createRedisTaskStore) and 2025 sessions with their
 * streams' events (createRedisSessionStore, below).
 *
 * Tasks (a TaskStore, tasks.ts): each task's record under `<prefix>task:<id>`, with the task's time to live,
 * written by the instance that runs it at each change; the messages for it (tasks/update, tasks/cancel from another
 * instance) published on that instance's channel. Built on the official client, node-redis (`npm install redis`):
 * pass a connected client and a second connection for the subscription (`client.duplicate()`, connected), as Redis
 * requires. No Node modules here: it runs wherever the client does.
 *
 * What comes back from Redis is read as untrusted: a record that does not parse, is too large or names another task
 * is no record; a message that does not parse is dropped.
 */
import type { TaskMessage, TaskRecord, TaskStore } from './tasks.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import {
  DEFAULT_EVENT_MAX_AGE_MS,
  DEFAULT_MAX_EVENT_CHARS,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  MAX_SESSION_RECORD_CHARS,
  type SessionStore,
} from './web.js';

/** The commands of a node-redis client (v5) that the store uses. */
export interface RedisCommands {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

/** A node-redis connection in subscriber mode (client.duplicate(), connected). */
export interface RedisSubscriber {
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
}

export interface RedisTaskStoreOptions {
  client: RedisCommands;
  subscriber: RedisSubscriber;
  /** Prefix of every key and channel (default "toolspec:"), to share one Redis between endpoints. */
  prefix?: string;
}

/** A record larger than this (a tool's result, mostly) is not read back: 16 MiB. */
export const MAX_TASK_RECORD_CHARS = 16 * 1024 * 1024;

export function createRedisTaskStore({ client, subscriber, prefix = 'toolspec:' }: RedisTaskStoreOptions): TaskStore {
  /** This instance's channel: the records it saves name it as their owner. */
  const instance = crypto.randomUUID();
  const channel = (owner: string) => `${prefix}tasks:${owner}`;
  const key = (taskId: string) => `${prefix}task:${taskId}`;
  const read = async (taskId: string): Promise<{ owner: string; record: TaskRecord } | undefined> => {
    const text = await client.get(key(taskId));
    if (text === null || text.length > MAX_TASK_RECORD_CHARS) return undefined;
    try {
      const kept = JSON.parse(text) as { owner?: unknown; record?: TaskRecord };
      if (typeof kept.owner !== 'string' || kept.record?.taskId !== taskId) return undefined;
      return { owner: kept.owner, record: kept.record };
    } catch {
      return undefined;
    }
  };
  return {
    async save(record, ttlMs) {
      await client.set(key(record.taskId), JSON.stringify({ owner: instance, record }), { PX: Math.ceil(ttlMs) });
    },
    async load(taskId) {
      return (await read(taskId))?.record;
    },
    async send(taskId, message) {
      const kept = await read(taskId);
      if (kept) await client.publish(channel(kept.owner), JSON.stringify({ taskId, message }));
    },
    async listen(deliver) {
      const mine = channel(instance);
      await subscriber.subscribe(mine, (text) => {
        try {
          const { taskId, message } = JSON.parse(text) as { taskId?: unknown; message?: TaskMessage };
          if (typeof taskId === 'string' && typeof message === 'object' && message !== null) deliver(taskId, message);
        } catch {
          // not a message of ours
        }
      });
      return () => void subscriber.unsubscribe(mine).catch(() => undefined);
    },
  };
}

/** Any command of a node-redis client (v5): its words in, its reply as RESP2 decodes it. */
export interface RedisCommand {
  sendCommand(args: string[]): Promise<unknown>;
}

export interface RedisSessionStoreOptions {
  /** A connected client (node-redis: createClient({ url }).connect()); Redis 6.2 or later. */
  client: RedisCommand;
  /** Prefix of every key (default "toolspec:"), to share one Redis between endpoints. */
  prefix?: string;
  /** Events kept per stream (default 1,000); past it the oldest go, and a resumption from before them is refused. */
  maxEventsPerStream?: number;
  /** A message longer than this (characters of JSON) is not kept: its stream cannot be resumed from before it. */
  maxEventChars?: number;
  /** An event older than this is gone (default 5 minutes). */
  maxAgeMs?: number;
}

/**
 * 2025 sessions shared through Redis by the instances of one endpoint (a SessionStore, web.ts): each session's
 * record under `<prefix>{<id>}:session`, expiring when no instance has touched it for the idle time, and each of
 * its streams' events in a Redis stream `<prefix>{<id>}:events:<stream>`, capped in length and age, listed in
 * `<prefix>{<id>}:streams`. The braces keep a session's keys in one slot of a Redis Cluster. Redis's own memory
 * limit (`maxmemory`) bounds them all together.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client, prefix = 'toolspec:' } = options;
  const perStream = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM;
  const maxChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
  const maxAge = options.maxAgeMs ?? DEFAULT_EVENT_MAX_AGE_MS;
  const run = (...args: (string | number)[]) => client.sendCommand(args.map(String));
  const session = (id: string) => `${prefix}{${id}}:session`;
  const streams = (id: string) => `${prefix}{${id}}:streams`;
  const events = (id: string, stream: string) => `${prefix}{${id}}:events:${stream}`;
  /** The events of `stream` after `after` (exclusive), a page at a time; [] for anything Redis should not answer. */
  const page = async (id: string, stream: string, from: string): Promise<[string, string][]> => {
    const reply = await run('XRANGE', events(id, stream), from, '+', 'COUNT', 100);
    return Array.isArray(reply) ? reply.map(entry).filter((e) => e !== undefined) : [];
  };
  const find = async (id: string, eventId: string): Promise<{ stream: string; at: string } | undefined> => {
    const m = REDIS_EVENT_ID.exec(eventId);
    if (!m) return undefined;
    const [, stream, at] = m as unknown as [string, string, string];
    // The client has seen `at`: it needs every event after it, and they are all kept while `at` is (the oldest go
    // first).
    const kept = await run('XRANGE', events(id, stream), at, at);
    return Array.isArray(kept) && kept.length === 1 ? { stream, at } : undefined;
  };
  return {
    async open(id, record, idleMs) {
      await run('SET', session(id), record, 'PX', Math.ceil(idleMs));
    },
    async touch(id, idleMs) {
      const text = await run('GETEX', session(id), 'PX', Math.ceil(idleMs));
      return typeof text === 'string' && text.length <= MAX_SESSION_RECORD_CHARS ? text : undefined;
    },
    async end(id) {
      await run('DEL', session(id));
    },
    events: {
      async append(id, stream, message) {
        const json = JSON.stringify(message);
        const tooLarge = json.length > maxChars;
        const at = await run(
          'EVAL',
          APPEND,
          2,
          events(id, stream),
          streams(id),
          perStream,
          tooLarge ? '' : json,
          maxAge,
          stream,
          tooLarge ? 1 : 0,
        );
        return `${stream}/${String(at)}`;
      },
      async streamOf(id, eventId) {
        return (await find(id, eventId))?.stream;
      },
      async replayAfter(id, eventId, send) {
        const found = await find(id, eventId);
        if (!found) return undefined;
        // Live: events appended while this sends are sent too, so none falls between the replay and the stream.
        for (let from = `(${found.at}`, batch = await page(id, found.stream, from); batch.length;) {
          for (const [at, json] of batch) {
            const message = json ? readMessage(json) : undefined;
            if (message === null) return found.stream; // not a message of ours: the rest is not sent
            if (message) await send(`${found.stream}/${at}`, message);
            from = `(${at}`;
          }
          batch = await page(id, found.stream, from);
        }
        return found.stream;
      },
      async forget(id) {
        const names = await run('SMEMBERS', streams(id));
        const kept = Array.isArray(names) ? names.filter((n) => typeof n === 'string' && STREAM.test(n)) : [];
        await run('DEL', streams(id), ...kept.map((n: string) => events(id, n)));
      },
    },
  };
}

/** The SDK's stream names: a random UUID per POST, `_GET_stream` for the standalone one. */
const STREAM = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|_GET_stream)$/;
/** `<stream>/<Redis stream entry id>`: what a client sends back as Last-Event-ID (untrusted). */
const REDIS_EVENT_ID =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|_GET_stream)\/([0-9]{1,15}-[0-9]{1,15})$/;

/**
 * Appends one event (an empty one, the stream emptied first, for a message too large to keep), caps the stream's
 * length and age (by the new entry's time, Redis's clock), and lists the stream under its session; one round trip.
 */
const APPEND = `local at = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'm', ARGV[2])
if ARGV[5] == '1' then redis.call('XTRIM', KEYS[1], 'MINID', at) end
local ms = tonumber(string.match(at, '^%d+'))
redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d', ms - tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return at`;

/** One XRANGE entry, `[id, ['m', json]]` as RESP2 decodes it; undefined for any other shape. */
function entry(raw: unknown): [string, string] | undefined {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) return undefined;
  const [field, value] = raw[1] as unknown[];
  return field === 'm' && typeof value === 'string' ? [raw[0], value] : undefined;
}

/** A kept message: undefined for the priming event (`{}`, nothing to deliver), null for what is not one. */
function readMessage(json: string): JSONRPCMessage | undefined | null {
  try {
    const message = JSON.parse(json) as unknown;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
    return 'jsonrpc' in message ? (message as JSONRPCMessage) : Object.keys(message).length ? null : undefined;
  } catch {
    return null;
  }
}
