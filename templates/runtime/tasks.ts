/**
 * Long-running tools as tasks: the tasks extension of protocol 2026-07-28 (`io.modelcontextprotocol/tasks`,
 * SEP-2663). A call of a tool whose spec says `task:`, from a client that declares the extension on the request,
 * is answered at once with a task handle (`resultType: "task"`); the handler goes on running here, and the client
 * polls `tasks/get` for its status and, once it is done, its result (or, for a JSON-RPC error, `failed` with the
 * error). A question the handler asks (ctx.elicit, ctx.sample, ctx.listRoots) puts the task in `input_required`
 * with the question in `inputRequests`; the client answers with `tasks/update` and the handler's await resolves,
 * in the same run: no round is replayed. `tasks/cancel` aborts the handler's signal and ends the task `cancelled`.
 *
 * A task belongs to the caller that created it (the same client and user, as sessions and requestState are bound):
 * another caller's `tasks/get` finds nothing. Tasks are bounded: at most `maxTasks` at once (a tool that may run
 * either way then answers the usual way; one that must be a task gets an error), each kept `ttlMs` from its
 * creation, result included, then forgotten (and its handler aborted if it still runs). A task runs in the process
 * that created it. With a TaskStore shared by several instances (createRedisTaskStore, redis.ts), every instance
 * answers tasks/get from the record the running one saves at each change, and passes tasks/update and tasks/cancel
 * on to it; without one, the instance that runs a task answers for it alone (the client's Mcp-Name header, the task
 * id, lets a load balancer route its requests there).
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequest,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { TaskQuestions } from './input.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const DEFAULT_TASK_TTL_MS = 60 * 60_000;
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_MAX_TASKS = 1000;

export interface TaskOptions {
  /** How long a task, and its result, is kept from its creation (default 1 hour). */
  ttlMs?: number;
  /** How often clients are asked to poll (default 1 s). */
  pollIntervalMs?: number;
  /** Tasks kept at once by this instance, running or done (default 1000). */
  maxTasks?: number;
  /** Where tasks are shared with the other instances of one endpoint (createRedisTaskStore); default: none. */
  store?: TaskStore;
}

/** A task as tasks/get shows it, and whose it is: what a TaskStore keeps. */
export interface TaskRecord {
  taskId: string;
  principal: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, InputRequest>;
}

/** What one instance asks of the instance that runs a task. */
export type TaskMessage = { update: Record<string, unknown> } | { cancel: true };

/** Tasks shared by the instances of one endpoint. */
export interface TaskStore {
  /** Keeps the task's record (replacing the last one) for `ttlMs` from now. */
  save(record: TaskRecord, ttlMs: number): Promise<void>;
  /** The record kept for `taskId` (any string: untrusted input), or undefined. */
  load(taskId: string): Promise<TaskRecord | undefined>;
  /** Passes a message to the instance that saved the task. */
  send(taskId: string, message: TaskMessage): Promise<void>;
  /** This instance receives the messages for the tasks it saved; resolves with a function that stops it. */
  listen(deliver: (taskId: string, message: TaskMessage) => void): Promise<() => void>;
}

/** Task ids are UUIDs: anything else is unknown before any store is asked. */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task this instance runs: its record's fields, and what only this process holds. */
interface Entry extends Pick<
  TaskRecord,
  'taskId' | 'principal' | 'status' | 'statusMessage' | 'createdAt' | 'lastUpdatedAt' | 'result' | 'error'
> {
  /** Questions without an answer yet, by key, with what to do with the answer. */
  asked: Map<string, { request: InputRequest; answer: (response: unknown) => void }>;
  /** Keys answered already: a key is never asked twice in a task's life. */
  answers: Map<string, unknown>;
  controller: AbortController;
  timer: ReturnType<typeof setTimeout>;
  /** The saves of its record to the store, in order. */
  saved: Promise<void>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether this request's client declared the tasks extension (per request, on 2026-07-28). */
export function declaresTasks(sdk: ServerContext): boolean {
  const envelope = sdk.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.['io.modelcontextprotocol/clientCapabilities'] as
    { extensions?: Record<string, unknown> } | undefined;
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** The error for a client that did not declare the extension, where only a task can serve it. */
export function tasksRequired(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} runs only as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities (protocol 2026-07-28)`,
  );
}

export class Tasks {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Told the id of each task of this instance whose status changes (task notifications, followTasks). */
  private readonly changes = new Set<(taskId: string) => void>();
  private readonly max: number;
  private reserved = 0;

  private readonly store: TaskStore | undefined;
  private stopListening: Promise<() => void> | undefined;

  constructor(options: TaskOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TASK_TTL_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.max = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.store = options.store;
    this.stopListening = this.store?.listen((taskId, message) => {
      const entry = this.entries.get(taskId);
      if (!entry) return;
      if ('cancel' in message) this.cancelHere(entry);
      else if (isObject(message.update)) this.answerHere(entry, message.update);
    });
    this.stopListening?.catch((error: unknown) =>
      console.error('[toolspec] tasks: cannot listen to the store:', error),
    );
  }

  /** Room for one more task: false when maxTasks are kept (or promised) already. A reservation ends with adopt or release. */
  reserve(): boolean {
    if (this.entries.size + this.reserved >= this.max) return false;
    this.reserved++;
    return true;
  }

  release(): void {
    this.reserved--;
  }

  /**
   * Makes a call that is running already a task of `principal` (taking the reservation): `running` settles it (a
   * result: completed; a JSON-RPC error: failed), `controller` is what tasks/cancel and the time to live abort.
   * The task exists before the handle is returned: a tasks/get right after finds it. The hooks take the call's
   * questions (Round.attach) and its progress, as the status message.
   */
  adopt(
    principal: string,
    controller: AbortController,
    running: Promise<CallToolResult>,
  ): { handle: Result; questions: TaskQuestions; status: (message: string) => void; saved: Promise<void> } {
    this.reserved--;
    const now = new Date().toISOString();
    const entry: Entry = {
      taskId: crypto.randomUUID(),
      principal,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      asked: new Map(),
      answers: new Map(),
      controller,
      timer: setTimeout(() => this.expire(entry), this.ttlMs),
      saved: Promise.resolve(),
    };
    (entry.timer as { unref?: () => void }).unref?.();
    this.entries.set(entry.taskId, entry);
    this.save(entry);
    running.then(
      (result) => {
        if (!this.active(entry)) return;
        entry.result = result;
        this.touch(entry, 'completed');
      },
      (error: unknown) => {
        if (!this.active(entry)) return;
        const e =
          error instanceof ProtocolError
            ? error
            : new ProtocolError(ProtocolErrorCode.InternalError, 'The task failed');
        entry.error = { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
        entry.statusMessage = e.message;
        this.touch(entry, 'failed');
      },
    );
    const questions: TaskQuestions = {
      ask: (key, read, ask) => {
        const check = (response: unknown) => {
          const value = read({ [key]: response });
          if (value === undefined)
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              `The answer to "${key}" does not fit what was asked`,
            );
          return value;
        };
        if (entry.answers.has(key)) return Promise.resolve().then(() => check(entry.answers.get(key)));
        return new Promise((resolve, reject) => {
          const settle = (response: unknown) => {
            try {
              resolve(check(response));
            } catch (error) {
              reject(error);
            }
          };
          const pending = entry.asked.get(key);
          if (pending) {
            // The same question awaited twice: both get its answer.
            const first = pending.answer;
            pending.answer = (response) => (first(response), settle(response));
            return;
          }
          entry.asked.set(key, { request: ask(), answer: settle });
          if (this.active(entry)) this.touch(entry, 'input_required');
        });
      },
    };
    const status = (message: string) => {
      if (!this.active(entry)) return;
      entry.statusMessage = message;
      entry.lastUpdatedAt = new Date().toISOString();
      this.save(entry);
    };
    // Durably created (the extension): the handle goes out once the store has the record.
    const saved = entry.saved;
    return { handle: { resultType: 'task', ...this.view(entry) }, questions, status, saved };
  }

  /** tasks/get: the task as it is now, with its result, error or questions. */
  async get(taskId: unknown, principal: string): Promise<Result> {
    const entry = this.local(taskId, principal, 'retrieve');
    if (entry) {
      const { principal: _, ...detail } = this.record(entry);
      return detail;
    }
    const { principal: _, ...detail } = await this.remote(taskId, principal, 'retrieve');
    return detail;
  }

  /** tasks/update: answers to questions the task asks now; any other key is ignored, as the extension says. */
  async update(taskId: unknown, responses: unknown, principal: string): Promise<Result> {
    if (!isObject(responses))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
    const entry = this.local(taskId, principal, 'update');
    if (entry) this.answerHere(entry, responses);
    else await this.store!.send((await this.remote(taskId, principal, 'update')).taskId, { update: responses });
    return {};
  }

  /** tasks/cancel: the handler's signal aborts and the task ends cancelled (unless it had ended already). */
  async cancel(taskId: unknown, principal: string): Promise<Result> {
    const entry = this.local(taskId, principal, 'cancel');
    if (entry) this.cancelHere(entry);
    else {
      const record = await this.remote(taskId, principal, 'cancel');
      if (record.status === 'working' || record.status === 'input_required')
        await this.store!.send(record.taskId, { cancel: true });
    }
    return {};
  }

  private answerHere(entry: Entry, responses: Record<string, unknown>): void {
    for (const [key, response] of Object.entries(responses)) {
      const pending = entry.asked.get(key);
      if (!pending) continue;
      entry.asked.delete(key);
      entry.answers.set(key, response);
      pending.answer(response);
    }
    if (entry.status === 'input_required' && !entry.asked.size) this.touch(entry, 'working');
  }

  private cancelHere(entry: Entry): void {
    if (!this.active(entry)) return;
    entry.asked.clear();
    this.touch(entry, 'cancelled');
    entry.controller.abort(new Error('the task was cancelled'));
  }

  /**
   * Ends every task (the server is shutting down): one still running ends failed, so that the other instances of
   * a shared store say so rather than "working" until its time to live.
   */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) {
      if (this.active(entry)) {
        entry.error = { code: ProtocolErrorCode.InternalError, message: 'The server running the task stopped' };
        entry.statusMessage = entry.error.message;
        this.touch(entry, 'failed');
      }
      clearTimeout(entry.timer);
      entry.controller.abort(new Error('the server stopped'));
    }
    await Promise.all([...this.entries.values()].map((e) => e.saved));
    this.entries.clear();
    (await this.stopListening?.catch(() => undefined))?.();
  }

  /** This instance's own task, when it is the caller's. */
  private local(taskId: unknown, principal: string, verb: string): Entry | undefined {
    const entry = typeof taskId === 'string' ? this.entries.get(taskId) : undefined;
    if (entry && entry.principal === principal) return entry;
    if (entry || !this.store) throw this.notFound(verb);
    return undefined;
  }

  /** Another instance's task, from the store, when it is the caller's. */
  private async remote(taskId: unknown, principal: string, verb: string): Promise<TaskRecord> {
    const record = typeof taskId === 'string' && TASK_ID.test(taskId) ? await this.store!.load(taskId) : undefined;
    // Another caller's task is answered as if it did not exist.
    if (!record || record.principal !== principal || record.taskId !== taskId) throw this.notFound(verb);
    return record;
  }

  private notFound(verb: string): ProtocolError {
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Failed to ${verb} task: Task not found (unknown, another caller's, or past its ${this.ttlMs / 1000} s)`,
    );
  }

  /** The record of a task of this instance, as tasks/get shows it and the store keeps it. */
  private record(entry: Entry): TaskRecord {
    const record = { ...this.view(entry), principal: entry.principal } as TaskRecord;
    if (entry.status === 'completed') record.result = entry.result!;
    if (entry.status === 'failed') record.error = entry.error!;
    if (entry.status === 'input_required')
      record.inputRequests = Object.fromEntries([...entry.asked].map(([k, q]) => [k, q.request]));
    return record;
  }

  /** Saves the task's record to the store, after the saves before it; a failure is logged, not thrown. */
  private save(entry: Entry): void {
    const store = this.store;
    if (!store) return;
    const record = this.record(entry);
    const left = Math.max(1, Date.parse(entry.createdAt) + this.ttlMs - Date.now());
    entry.saved = entry.saved.then(() =>
      store.save(record, left).catch((error: unknown) => console.error('[toolspec] tasks: cannot save a task:', error)),
    );
  }

  private view(entry: Entry): Record<string, unknown> {
    return {
      taskId: entry.taskId,
      status: entry.status,
      ...(entry.statusMessage === undefined ? {} : { statusMessage: entry.statusMessage }),
      createdAt: entry.createdAt,
      lastUpdatedAt: entry.lastUpdatedAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
  }

  private active(entry: Entry): boolean {
    return (
      this.entries.get(entry.taskId) === entry && (entry.status === 'working' || entry.status === 'input_required')
    );
  }

  private touch(entry: Entry, status: Status): void {
    entry.status = status;
    entry.lastUpdatedAt = new Date().toISOString();
    this.save(entry);
    for (const changed of this.changes) changed(entry.taskId);
  }

  /** Calls `changed` with the id of every task of this instance whose status changes, until the function returned. */
  onChange(changed: (taskId: string) => void): () => void {
    this.changes.add(changed);
    return () => void this.changes.delete(changed);
  }

  private expire(entry: Entry): void {
    clearTimeout(entry.timer);
    this.entries.delete(entry.taskId);
    entry.controller.abort(new Error('the task expired'));
  }
}

/** Most task ids one subscriptions/listen follows; past them the rest are not honored. */
export const MAX_LISTEN_TASKS = 100;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Task status notifications for one subscriptions/listen stream (followTasks). */
export interface TaskFollow {
  /** The ids followed: those asked for that are the caller's tasks now, as the acknowledgement lists them. */
  honored: string[];
  /** Sends each task's state now and at each change after; resolves once each has ended (or stop). */
  start(send: (task: Result) => void): Promise<void>;
  stop(): void;
}

/**
 * notifications/tasks on a subscriptions/listen stream (SEP-2663): of `taskIds`, the caller's tasks are followed,
 * each until it ends (a terminal status, or gone). A task of this instance is sent at each change, another
 * instance's (a shared store) as often as clients are told to poll; a state is sent once, as tasks/get shows it.
 */
export async function followTasks(tasks: Tasks, taskIds: readonly unknown[], principal: string): Promise<TaskFollow> {
  const asked = [...new Set(taskIds.filter((id): id is string => typeof id === 'string'))].slice(0, MAX_LISTEN_TASKS);
  const get = (id: string) => tasks.get(id, principal).catch(() => undefined);
  const honored = (await Promise.all(asked.map(async (id) => ((await get(id)) ? id : undefined)))).filter(
    (id) => id !== undefined,
  );
  const live = new Set(honored);
  const sent = new Map<string, string>();
  /** One check of a task at a time, in order: a state never overtakes a later one. */
  const checks = new Map<string, Promise<void>>();
  let stopped = false;
  let finish = () => {};
  const stop = () => {
    stopped = true;
    live.clear();
    finish();
  };
  return {
    honored,
    stop,
    start(send) {
      if (!live.size) return Promise.resolve();
      const check = (id: string) => {
        const next = (checks.get(id) ?? Promise.resolve()).then(async () => {
          if (stopped || !live.has(id)) return;
          const task = await get(id);
          const json = task && JSON.stringify(task);
          if (json && sent.get(id) !== json) {
            sent.set(id, json);
            send(task);
          }
          if (!task || TERMINAL.has(task['status'] as string)) live.delete(id);
          if (!live.size) finish();
        });
        checks.set(id, next);
      };
      const off = tasks.onChange((id) => check(id));
      const poll = setInterval(() => live.forEach(check), tasks.pollIntervalMs);
      (poll as { unref?: () => void }).unref?.();
      const ended = new Promise<void>((resolve) => (finish = resolve)).finally(() => {
        off();
        clearInterval(poll);
      });
      honored.forEach(check);
      return ended;
    },
  };
}
