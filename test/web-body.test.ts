/**
 * The web handler reads a JSON POST's body once and hands the SDK the parsed value (templates/runtime/web.ts,
 * readOnce). That must not change an answer: over random bodies (JSON-RPC messages of both eras, batches, any JSON,
 * text that is not JSON), protocol headers and content types, a request whose Content-Length is known (read once)
 * is answered byte for byte as the same request streamed without one (read by the SDK itself, as before). The same
 * holds for the Node server (http.ts), which reads and parses such a body before the SDK's adapter sees it.
 */
import http from 'node:http';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { serveHttp } from '../templates/runtime/http.js';
import { createWebHandler } from '../templates/runtime/web.js';

const URL_ = 'http://localhost/mcp';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'p', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const message = fc.oneof(
  fc.constantFrom(
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: META } },
    { jsonrpc: '2.0', id: 5, method: 'server/discover', params: { _meta: META } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 6,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
    },
  ),
  fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id: fc.oneof(fc.integer(), fc.string()), method: fc.string() }),
);
const body = fc.oneof(
  message.map((m) => JSON.stringify(m)),
  fc.array(message, { maxLength: 3 }).map((a) => JSON.stringify(a)),
  // A byte order mark is dropped by each decoding: two of them are read as JSON only by a second decoding.
  fc.tuple(fc.constantFrom('\uFEFF', '\uFEFF\uFEFF'), message).map(([bom, m]) => bom + JSON.stringify(m)),
  fc.json(),
  fc.string({ maxLength: 40 }),
);
const headers = fc.record({
  'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain'),
  accept: fc.constantFrom('application/json, text/event-stream', 'application/json', '*/*'),
  'mcp-protocol-version': fc.constantFrom(undefined, '2025-11-25', '2026-07-28', '1999-01-01'),
});

/** Status, the headers that say something, and the body; what differs by nature between two runs is masked. */
async function answerOf(response: Response) {
  const text = (await response.text())
    .replace(/"(createdAt|lastUpdatedAt)":"[^"]+"/g, '"$1":"…"')
    .replace(/^id: .*$/gm, 'id: …');
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    allow: response.headers.get('allow'),
    session: response.headers.has('mcp-session-id'),
    text,
  };
}

function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

type Send = (headers: Record<string, string>, text: string, sized: boolean) => Promise<Response>;

/**
 * Over random bodies and headers, a request sent with its Content-Length (`sized`: read once) is answered as the same
 * request sent without one (read by the SDK itself).
 */
async function answersAlike(send: Send, close: () => Promise<void>, numRuns: number) {
  // The SDK logs each request it refuses: two per case here, none of them news.
  const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await fc.assert(
      fc.asyncProperty(body, headers, async (text, given) => {
        const h = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Record<
          string,
          string
        >;
        expect(await answerOf(await send(h, text, true))).toEqual(await answerOf(await send(h, text, false)));
      }),
      { numRuns },
    );
  } finally {
    await close();
    quiet.mockRestore();
  }
}

describe('reading the body once', () => {
  it.each([false, true])(
    'answers as the SDK reading it itself (stateless: %s)',
    async (stateless) => {
      const endpoint = createWebHandler({} as never, { stateless });
      const send: Send = (h, text, sized) =>
        endpoint.fetch(
          sized
            ? new Request(URL_, {
                method: 'POST',
                headers: { ...h, 'content-length': String(new TextEncoder().encode(text).length) },
                body: text,
              })
            : new Request(URL_, { method: 'POST', headers: h, body: streamed(text), duplex: 'half' } as RequestInit),
        );
      await answersAlike(send, () => endpoint.close(), 150);
    },
    60_000,
  );
});

/** A POST to the Node server over a socket: with Content-Length (`sized`), or chunked; its answer as a Response. */
function post(url: string, headers: Record<string, string>, text: string, sized: boolean): Promise<Response> {
  const bytes = Buffer.from(text);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: sized ? { ...headers, 'content-length': String(bytes.length) } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
          resolve(
            new Response(res.statusCode === 202 ? null : Buffer.concat(chunks), {
              status: res.statusCode!,
              headers: out,
            }),
          );
        });
      },
    );
    req.on('error', reject);
    // Chunked: the body in two writes, so that no Content-Length is sent.
    if (sized) return void req.end(bytes);
    req.write(bytes.subarray(0, 1));
    req.end(bytes.subarray(1));
  });
}

describe('the Node server reading the body first', () => {
  it.each([false, true])(
    'answers as the SDK reading it itself (stateless: %s)',
    async (stateless) => {
      const server = await serveHttp({} as never, { port: 0, stateless });
      await answersAlike((h, text, sized) => post(server.url, h, text, sized), server.close, 100);
    },
    60_000,
  );
});

describe('the Node server writing a 2025 answer itself', () => {
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
  });
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  // With one session at most, a second initialize closes the first only once nothing of it is open: the server
  // must learn that the first one's answers have ended (bodyWatch) as the wrapping stream of the chunked path does.
  it.each([true, false])('counts a session busy until its answers end (read once: %s)', async (sized) => {
    const server = await serveHttp({} as never, { port: 0, maxSessions: 1 });
    try {
      const opened = await post(server.url, base, init, sized);
      expect(opened.status).toBe(200);
      await opened.text();
      const session = {
        ...base,
        'mcp-session-id': opened.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-11-25',
      };
      for (let id = 2; id < 5; id++) {
        const ping = await post(server.url, session, JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), sized);
        expect([ping.status, await ping.text()]).toEqual([200, expect.stringContaining(`"id":${id}`)]);
      }
      const second = await post(server.url, base, init, sized);
      expect(second.status).toBe(200);
      const gone = await post(server.url, session, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }), sized);
      expect(gone.status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
