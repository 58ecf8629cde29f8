/**
 * Tasks shared through Redis by the instances of one endpoint (a TaskStore, tasks.ts): each task's record under
 * `<prefix>task:<id>`, with the task's time to live, written by the instance that runs it at each change; the
 * messages for it (tasks/update, tasks/cancel from another instance) published on that instance's channel. Built on
 * the official client, node-redis (`npm install redis`): pass a connected client and a second connection for the
 * subscription (`client.duplicate()`, connected), as Redis requires. No Node modules here: it runs wherever the
 * client does.
 *
 * What comes back from Redis is read as untrusted: a record that does not parse, is too large or names another task
 * is no record; a message that does not parse is dropped.
 */
import type { TaskMessage, TaskRecord, TaskStore } from './tasks.js';

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
