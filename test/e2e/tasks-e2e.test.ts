/**
 * Long-running tools as tasks, end to end beyond the conformance suite's tasks scenarios: the tasks fixture
 * (test/fixtures/tasks) served over real HTTP on 127.0.0.1 and driven with raw 2026-07-28 requests (the SDK's
 * client has no tasks runtime). Progress as the status message, cancellation reaching the handler's signal, a task
 * bound to its caller, the cap, the time to live, and clients without the extension on both eras.
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
import { call, callerFromHeader, listen, parse, rpc, until } from '../helpers/tasks.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/tasks'), 'e2e-tasks');
const dist = path.join(project.dir, 'dist');
const TASKS = 'io.modelcontextprotocol/tasks';

type Generated = GeneratedIndex;
let g: Generated;
let log: string[];
const servers: GeneratedServer[] = [];

beforeAll(async () => {
  generateAndCompile(project.dir);
  g = await importGenerated<Generated>(dist);
  ({ log } = (await import(pathToFileURL(path.join(dist, 'handlers/log.js')).href)) as { log: string[] });
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  project.cleanup();
});

async function serve(options: Record<string, unknown> = {}): Promise<string> {
  const server = await g.serveHttp(g.handlers, { port: 0, ...options });
  servers.push(server);
  return server.url;
}

describe('a tool that runs as a task', () => {
  it('answers with a handle at once, reports progress as its status message, and ends with the result', async () => {
    const url = await serve();
    const { result: handle } = await call(url, 'export', { rows: 6, pauseMs: 40 });
    expect(handle).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    const midway = await until(url, handle!['taskId'] as string, (t) =>
      /^row [1-5] of 6$/.test(String(t['statusMessage'] ?? '')),
    );
    expect(midway['status']).toBe('working');
    const done = await until(url, handle!['taskId'] as string, (t) => t['status'] === 'completed');
    expect(done['result']).toMatchObject({ content: [{ type: 'text', text: 'exported 6 rows' }] });
    expect(done['resultType']).toBe('complete');
  });

  it('stops the handler when cancelled: its signal aborts, and the task ends cancelled', async () => {
    const url = await serve();
    const { result: handle } = await call(url, 'export', { rows: 1000, pauseMs: 20 });
    await until(url, handle!['taskId'] as string, (t) => String(t['statusMessage'] ?? '').startsWith('row'));
    expect((await rpc(url, 'tasks/cancel', { taskId: handle!['taskId'] as string })).result).toEqual(
      expect.objectContaining({ resultType: 'complete' }),
    );
    expect((await rpc(url, 'tasks/get', { taskId: handle!['taskId'] as string })).result?.['status']).toBe('cancelled');
    await expect.poll(() => log.includes('export 1000 aborted')).toBe(true);
    expect(log).not.toContain('export 1000 done');
  });

  it("belongs to its caller: another caller's tasks/get, update and cancel find no such task", async () => {
    const url = await serve({
      authenticate: callerFromHeader(),
    });
    const { result: handle } = await call(url, 'export', { rows: 3, pauseMs: 30 }, { as: 'alice' });
    const taskId = handle!['taskId'] as string as string;
    for (const method of ['tasks/get', 'tasks/cancel'])
      expect((await rpc(url, method, { taskId }, { as: 'mallory' })).error?.code).toBe(-32602);
    expect((await rpc(url, 'tasks/update', { taskId, inputResponses: {} }, { as: 'mallory' })).error?.code).toBe(
      -32602,
    );
    const done = await until(url, taskId, (t) => t['status'] === 'completed', 'alice');
    expect(done).toMatchObject({ result: { content: [{ text: 'exported 3 rows' }] } });
  });

  it('is capped: past maxTasks an optional tool answers the usual way, a required one with an error', async () => {
    const url = await serve({ tasks: { maxTasks: 1 } });
    const first = await call(url, 'export', { rows: 100, pauseMs: 20 });
    expect(first.result?.['resultType']).toBe('task');
    const second = await call(url, 'export', { rows: 1, pauseMs: 0 });
    expect(second.result).toMatchObject({ resultType: 'complete', content: [{ text: 'exported 1 rows' }] });
    const required = await call(url, 'rebuild', {});
    expect(required.error).toMatchObject({ code: -32603, message: 'Too many tasks at once; try again later' });
    await rpc(url, 'tasks/cancel', { taskId: first.result!['taskId'] as string });
  });

  it('is forgotten past its time to live, and its handler stopped', async () => {
    const url = await serve({ tasks: { ttlMs: 300 } });
    const { result: handle } = await call(url, 'export', { rows: 500, pauseMs: 20 });
    expect(handle!['ttlMs']).toBe(300);
    await new Promise((r) => setTimeout(r, 500));
    const gone = await rpc(url, 'tasks/get', { taskId: handle!['taskId'] as string });
    expect(gone.error?.code).toBe(-32602);
    expect(gone.error?.message).toMatch(/Task not found/);
    expect(log).toContain('export 500 aborted');
  });
});

describe('task status notifications on subscriptions/listen', () => {
  it("follows the caller's tasks to their end, each state once, as tasks/get shows it, then ends the stream", async () => {
    const url = await serve({
      authenticate: callerFromHeader('alice'),
      tasks: { pollIntervalMs: 50 },
    });
    const { result: handle } = await call(url, 'export', { rows: 3, pauseMs: 30 });
    const { result: theirs } = await call(url, 'export', { rows: 1, pauseMs: 10 }, { as: 'mallory' });
    const taskId = handle!['taskId'] as string;
    const events = await listen(url, { taskIds: [taskId, theirs!['taskId'], 'not-a-task', taskId] });
    const [ack, ...rest] = events;
    // Only the caller's own task is followed, once; the acknowledgement says so.
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    });
    const notes = rest.filter((e) => e['method'] === 'notifications/tasks');
    expect(notes.length).toBeGreaterThanOrEqual(2);
    for (const n of notes)
      expect(n['params']).toMatchObject({ taskId, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } });
    const last = notes.at(-1)!['params'] as Record<string, unknown>;
    expect(last).toMatchObject({ status: 'completed', result: { content: [{ text: 'exported 3 rows' }] } });
    // The task as tasks/get shows it, without the result's envelope (resultType, the server in _meta).
    const { _meta: _, ...state } = last;
    const { _meta: __, resultType, ...got } = (await rpc(url, 'tasks/get', { taskId })).result!;
    expect([resultType, got]).toEqual(['complete', state]);
    // Each state once: no two notifications alike.
    expect(new Set(notes.map((n) => JSON.stringify(n['params']))).size).toBe(notes.length);
    // The stream's end, after the tasks: the listen request's result.
    expect(rest.at(-1)).toMatchObject({ id: 'sub-1', result: { resultType: 'complete' } });
  });

  it('keeps streams open for tasks under the cap on subscription streams', async () => {
    const url = await serve({ maxSubscriptions: 1, tasks: { pollIntervalMs: 50 } });
    const { result: handle } = await call(url, 'export', { rows: 4, pauseMs: 50 });
    const taskId = handle!['taskId'] as string;
    const first = listen(url, { taskIds: [taskId] });
    await until(url, taskId, (t) => /^row [1-3] of 4$/.test(String(t['statusMessage'] ?? '')));
    expect(await listen(url, { taskIds: [taskId] })).toMatchObject([{ error: { code: -32603 } }]);
    expect((await first).at(-1)).toMatchObject({ id: 'sub-1', result: {} });
    // The first ended: room again.
    expect((await listen(url, { taskIds: [taskId] }))[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
    });
  });

  it('sends the question a task asks, and its end once answered', async () => {
    const url = await serve({ tasks: { pollIntervalMs: 50 } });
    const { result: asking } = await call(url, 'approve', { item: 'the move' });
    const taskId = asking!['taskId'] as string;
    const listening = listen(url, { taskIds: [taskId] });
    await until(url, taskId, (t) => t['status'] === 'input_required');
    await rpc(url, 'tasks/update', { taskId, inputResponses: { go: { action: 'accept', content: { go: true } } } });
    const statuses = (await listening)
      .filter((e) => e['method'] === 'notifications/tasks')
      .map((e) => (e['params'] as { status: string }).status);
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
  });

  it("refuses a client without the extension (-32021), and acknowledges no task where none is the caller's", async () => {
    const url = await serve();
    const [refused] = await listen(url, { taskIds: ['x'] }, { tasks: false });
    expect(refused).toMatchObject({ id: 'sub-1', error: { code: -32021 } });
    const [ack, end] = await listen(url, { taskIds: ['00000000-0000-4000-8000-000000000000'] });
    expect(ack).toMatchObject({ params: { notifications: { taskIds: [] } } });
    expect(end).toMatchObject({ id: 'sub-1', result: { resultType: 'complete' } });
  });
});

describe('clients without the tasks extension', () => {
  it('on 2026-07-28: an optional tool answers the usual way, a required one with -32021 naming the extension', async () => {
    const url = await serve();
    expect((await call(url, 'export', { rows: 1, pauseMs: 0 }, { tasks: false })).result).toMatchObject({
      content: [{ text: 'exported 1 rows' }],
    });
    const refused = await call(url, 'rebuild', {}, { tasks: false });
    expect(refused.error?.code).toBe(-32021);
    expect(refused.error?.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    expect((await rpc(url, 'tasks/get', { taskId: 'x' }, { tasks: false })).error?.code).toBe(-32021);
  });

  it('on 2025-11-25 (sessionful HTTP): an optional tool answers the usual way, a required one with an error', async () => {
    const url = await serve();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    const session = {
      ...headers,
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    await init.text();
    await fetch(url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const legacy = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }),
      });
      return parse(await res.text());
    };
    expect(await legacy('export', { rows: 1, pauseMs: 0 })).toMatchObject({
      result: { content: [{ text: 'exported 1 rows' }] },
    });
    expect((await legacy('rebuild', {})).error?.message).toMatch(/runs only as a task/);
  });
});
