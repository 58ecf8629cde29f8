/**
 * Resumable 2025 streams, end to end: the generated server over real HTTP on 127.0.0.1, the SDK's real v2 client
 * (2025 handshake) with its own reconnection, and a TCP relay between them that cuts the connection mid-call as a
 * network would. Then what a hostile or unlucky Last-Event-ID gets: forged, another session's, past each cap.
 */
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'e2e-resume');
const dist = path.join(project.dir, 'dist');

beforeAll(() => {
  generateAndCompile(project.dir);
}, 120_000);
afterAll(() => project.cleanup());

interface Server {
  url: string;
  close(): Promise<void>;
}
interface Generated {
  serveHttp(handlers: unknown, options: Record<string, unknown>): Promise<Server>;
  createMemoryEventStore(options: Record<string, number>): unknown;
  handlers: unknown;
}
const load = async () => (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as Generated;

async function serve(options: Record<string, unknown> = {}): Promise<Server> {
  const g = await load();
  return g.serveHttp(g.handlers, { port: 0, ...options });
}
/** A server whose memory store has these caps. */
async function serveWithStore(caps: Record<string, number>): Promise<Server> {
  const g = await load();
  return g.serveHttp(g.handlers, { port: 0, resumption: { store: g.createMemoryEventStore(caps) } });
}

/**
 * A TCP relay to `target` that cuts the first connection whose server-to-client bytes have carried `after`
 * progress notifications: both sockets destroyed, as a broken network leaves them. It counts what crosses it.
 */
async function relay(target: URL, after: number) {
  const seen = { cuts: 0, resumes: 0 };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    let progress = 0;
    client.on('data', (d: Buffer) => {
      if (/^GET /.test(d.toString('latin1')) && /\r\nlast-event-id: /i.test(d.toString('latin1'))) seen.resumes++;
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      client.write(d);
      progress += d.toString('latin1').split('notifications/progress').length - 1;
      if (seen.cuts === 0 && progress >= after) {
        seen.cuts++;
        client.destroy();
        upstream.destroy();
      }
    });
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target.pathname, `http://127.0.0.1:${port}`);
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('a 2025 client whose stream breaks mid-call', () => {
  it('gets the rest after reconnecting with Last-Event-ID: every progress once, in order, and the result', async () => {
    const server = await serve();
    const cut = await relay(new URL(server.url), 3);
    const client = new Client({ name: 'resume', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(cut.url, {
          reconnectionOptions: {
            initialReconnectionDelay: 100,
            maxReconnectionDelay: 2000,
            reconnectionDelayGrowFactor: 1.5,
            maxRetries: 5,
          },
        }),
      );
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'slow', arguments: { steps: 12, ms: 60 } },
        { onprogress: (p) => void progress.push(p.progress), timeout: 15_000 },
      );
      expect(cut.seen.cuts).toBe(1);
      expect(cut.seen.resumes).toBeGreaterThanOrEqual(1);
      expect(text(result as CallToolResult)).toBe('done after 12 steps');
      expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      // The broken connection did not cancel the call: the handler ran to its end.
      expect(text((await client.callTool({ name: 'last_cancel', arguments: {} })) as CallToolResult)).toBe('false');
    } finally {
      await client.close();
      await cut.close();
      await server.close();
    }
  });

  it('has the call cancelled when it does not come back within resumeWindowMs', async () => {
    const server = await serve({ resumption: { resumeWindowMs: 300 } });
    try {
      const session = await initialize(server.url);
      const gone = new AbortController();
      const call = await post(server.url, session, slowCall(50, 40, 300), gone.signal);
      expect(call.status).toBe(200);
      await readEvents(call, 1); // the priming event: now it could resume
      gone.abort();
      await sleep(150);
      expect(await lastCancel(server.url, session)).toBe('false'); // still running, waiting for its client
      await sleep(800);
      expect(await lastCancel(server.url, session)).toBe('true');
    } finally {
      await server.close();
    }
  });
});

describe('Last-Event-ID is hostile input', () => {
  it('replays only the events of the stream it names, in its own session; anything else gets 400 and nothing', async () => {
    const server = await serve();
    try {
      const a = await initialize(server.url);
      const events = await sseEvents(await post(server.url, a, slowCall(3, 5, 2)));
      const ids = events.map((e) => e.id);
      expect(ids).toHaveLength(6); // the priming event, three progress notifications, a log message, the result
      expect(events[0]!.data).toBe('');

      // Its own session, from the second progress: the third and the result, once each.
      const resumed = await resume(server.url, a, ids[2]!);
      expect(resumed.status).toBe(200);
      const replayed = await sseEvents(resumed);
      expect(replayed.map((e) => e.id)).toEqual(ids.slice(3));
      expect(replayed.at(-1)!.data).toContain('done after 3 steps');

      const b = await initialize(server.url);
      const forged = ids[0]!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
      for (const [session, id] of [
        [b, ids[0]!], // another session's event
        [b, ids[2]!],
        [a, forged], // the right shape, a stream nobody has
        [a, ids[0]!.replace(/\.0$/, '.99')], // past the stream's end
        [a, ids[0]!.replace(/\.0$/, '.00')],
        [a, '../../etc/passwd'],
        [a, `${ids[0]!}\u00e9`],
        [a, 'x'.repeat(8000)],
      ] as const) {
        const res = await resume(server.url, session, id);
        const body = await res.text();
        expect([res.status, res.headers.get('content-type')]).toEqual([400, 'application/json']);
        expect(body).toContain('Cannot resume');
        expect(body).not.toContain('progress');
        expect(body).not.toContain('done after');
      }
    } finally {
      await server.close();
    }
  });
});

describe('the event store is bounded', () => {
  it('keeps maxEventsPerStream events a stream: resuming from before them is refused, from within them works', async () => {
    const server = await serveWithStore({ maxEventsPerStream: 4 });
    try {
      const s = await initialize(server.url);
      const ids = (await sseEvents(await post(server.url, s, slowCall(6, 2, 2)))).map((e) => e.id!);
      expect(ids).toHaveLength(9); // kept: the last four, 5 … 8
      expect((await resume(server.url, s, ids[3]!)).status).toBe(400); // event 4 is gone
      const ok = await resume(server.url, s, ids[4]!);
      expect(ok.status).toBe(200);
      expect((await sseEvents(ok)).map((e) => e.id)).toEqual(ids.slice(5));
    } finally {
      await server.close();
    }
  });

  it('keeps maxEvents events in all: the oldest go, whoever they belong to', async () => {
    const server = await serveWithStore({ maxEvents: 8 });
    try {
      const a = await initialize(server.url);
      const b = await initialize(server.url);
      const first = (await sseEvents(await post(server.url, a, slowCall(3, 2, 2)))).map((e) => e.id!);
      expect((await resume(server.url, a, first[0]!)).status).toBe(200); // all six kept
      const second = (await sseEvents(await post(server.url, b, slowCall(3, 2, 2)))).map((e) => e.id!);
      // Twelve events, eight kept: a's first four are gone.
      expect((await resume(server.url, a, first[2]!)).status).toBe(400);
      expect((await resume(server.url, a, first[3]!)).status).toBe(200);
      expect((await resume(server.url, b, second[0]!)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('keeps maxChars characters of JSON in all, and no single event larger than that', async () => {
    const server = await serveWithStore({ maxChars: 300 });
    try {
      const s = await initialize(server.url);
      // No progress asked for: the priming event and the result, about 90 characters.
      const small = (await sseEvents(await post(server.url, s, slowCall(1, 2)))).map((e) => e.id!);
      expect((await resume(server.url, s, small[0]!)).status).toBe(200);
      // An echo longer than the whole budget is sent live but not kept: the stream cannot be resumed before it.
      const big = await sseEvents(
        await post(server.url, s, {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'x'.repeat(400) } },
        }),
      );
      expect(big.at(-1)!.data).toContain('x'.repeat(400));
      expect((await resume(server.url, s, big[0]!.id!)).status).toBe(400);
      // Three more small calls (about 270 characters): the first small one's events are pushed out.
      for (let i = 0; i < 3; i++) await sseEvents(await post(server.url, s, slowCall(1, 2)));
      expect((await resume(server.url, s, small[0]!)).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('keeps an event maxAgeMs at most', async () => {
    const server = await serveWithStore({ maxAgeMs: 300 });
    try {
      const s = await initialize(server.url);
      const ids = (await sseEvents(await post(server.url, s, slowCall(1, 2, 2)))).map((e) => e.id!);
      expect((await resume(server.url, s, ids[0]!)).status).toBe(200);
      await sleep(500);
      expect((await resume(server.url, s, ids[0]!)).status).toBe(400);
    } finally {
      await server.close();
    }
  });
});

describe('resumption: false', () => {
  it('turns it off: the same call has a priming event and event ids by default, none without', async () => {
    for (const resumption of [undefined, false]) {
      const server = await serve(resumption === false ? { resumption } : {});
      try {
        const s = await initialize(server.url);
        const events = await sseEvents(await post(server.url, s, slowCall(1, 2, 2)));
        // The progress notification, the log message, the result; first the priming event, when resumable.
        expect(events.map((e) => e.id === undefined)).toEqual(
          resumption === false ? [true, true, true] : [false, false, false, false],
        );
        expect(events.at(-1)!.data).toContain('done after 1 steps');
      } finally {
        await server.close();
      }
    }
  });
});

describe('a stream its client left', () => {
  // One session at most: a new initialize closes the first only if nothing of it is open, so the server must have
  // counted the left stream's response as ended (the Node server tells it so itself: bodyWatch's left).
  it('no longer holds its session busy once the server has noticed', async () => {
    const server = await serve({ maxSessions: 1 });
    try {
      const session = await initialize(server.url);
      const gone = new AbortController();
      const call = await post(server.url, session, slowCall(50, 20, 1), gone.signal);
      await readEvents(call, 2); // the priming event and a progress notification
      gone.abort();
      await sleep(200); // more progress: the next chunk tells the server that nobody reads it
      const second = await initializeRequest(server.url);
      await second.text();
      expect(second.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function slowCall(steps: number, ms: number, progressToken?: number) {
  return {
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: {
      name: 'slow',
      arguments: { steps, ms },
      ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    },
  };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw 2025-11-25 client's initialize request. */
function initializeRequest(url: string) {
  return fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/** A 2025-11-25 session, initialized. */
async function initialize(url: string): Promise<string> {
  const res = await initializeRequest(url);
  await res.text();
  const session = res.headers.get('mcp-session-id')!;
  await (await post(url, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return session;
}

function post(url: string, session: string, message: object, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

function resume(url: string, session: string, lastEventId: string) {
  return fetch(url, {
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
  });
}

async function lastCancel(url: string, session: string): Promise<string> {
  const events = await sseEvents(
    await post(url, session, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'last_cancel' } }),
  );
  const result = JSON.parse(events.at(-1)!.data) as { result: CallToolResult };
  return text(result.result);
}

/** A whole SSE body's events (a stream the server ends), comments left out. */
async function sseEvents(res: Response): Promise<{ id?: string; data: string }[]> {
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  return parse(await res.text());
}

/** The first `n` events of a stream still open. */
async function readEvents(res: Response, n: number) {
  const reader = res.body!.getReader();
  let buffer = '';
  while (parse(buffer).length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return parse(buffer);
}

function parse(body: string): { id?: string; data: string }[] {
  return body
    .split('\n\n')
    .filter((block) => block.split('\n').some((l) => l.startsWith('data:')))
    .map((block) => {
      const event: { id?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data:')) event.data = line.slice(5).trim();
      }
      return event;
    });
}
