/**
 * The generated server, end to end: generate with the built CLI, compile with the real TypeScript compiler, start
 * it with node, and talk to it with the SDK's real v2 Client over stdio and over Streamable HTTP on 127.0.0.1, on
 * both protocol eras: pinned to 2026-07-28, and in legacy mode (the 2025 initialize handshake).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'e2e');
const dist = path.join(project.dir, 'dist');
const main = path.join(dist, 'generated/main.js');
let manifest: { tools: Record<string, unknown>[] };
let manifestText: string;

beforeAll(() => {
  generateAndCompile(project.dir);
  manifestText = fs.readFileSync(path.join(project.dir, 'src/generated/manifest.json'), 'utf8');
  manifest = JSON.parse(manifestText) as typeof manifest;
}, 120_000);
afterAll(() => project.cleanup());

type Era = 'modern' | 'legacy';
const MODERN = '2026-07-28';
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A v2 client on one era that answers the server's questions as a user and a model would. */
function newClient(era: Era): Client {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    {
      capabilities: { elicitation: {}, sampling: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request): Promise<ElicitResult> => {
    const message = request.params.message;
    if (message.startsWith('Delete')) return { action: 'accept', content: { sure: true } };
    if (message === 'Why?') return { action: 'accept', content: { reason: 'outdated' } };
    return { action: 'decline' };
  });
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'short and sweet' },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  return client;
}

interface Leg {
  /** Whether the server can send a 2025 client requests mid-call (it cannot over stateless HTTP). */
  asks: boolean;
  /** Whether a cancelled call reaches the handler's signal. */
  cancels: boolean;
}

/** The behaviour every transport must show on both eras, against a connected client. */
function protocolSuite(era: Era, connect: () => Promise<Client>, leg: Leg) {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => client?.close());

  it(`speaks the ${era} era`, async () => {
    const r = await client.callTool({ name: 'era', arguments: {} });
    expect(r.structuredContent).toEqual(
      era === 'modern' ? { era: 'modern', protocolVersion: MODERN } : { era: 'legacy', protocolVersion: '2025-11-25' },
    );
  });

  it('lists exactly the manifest ($schema, $defs, additionalProperties intact)', async () => {
    const listed = await client.listTools();
    const expected = manifest.tools.map((t) =>
      // 2025 clients see an output schema that is not an object wrapped as {result}, as the SDK's codec says; one
      // whose root is an object by its $ref is told so (type: object), and goes out otherwise as written.
      era === 'legacy' && t['name'] === 'primes'
        ? { ...t, outputSchema: { type: 'object', properties: { result: t['outputSchema'] }, required: ['result'] } }
        : era === 'legacy' && t['name'] === 'double'
          ? { ...t, outputSchema: { ...(t['outputSchema'] as object), type: 'object' } }
          : t,
    );
    expect(listed.tools).toEqual(expected);
    const echo = listed.tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(echo.inputSchema['additionalProperties']).toBe(false);
  });

  it('returns structuredContent plus its JSON text, with defaults applied', async () => {
    const r = await client.callTool({ name: 'add', arguments: { numbers: [1, 2, 3.5] } });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ sum: 6.5 });
    expect(JSON.parse(text(r))).toEqual({ sum: 6.5 });
    const scaled = await client.callTool({ name: 'add', arguments: { numbers: [2], scale: 3 } });
    expect(scaled.structuredContent).toEqual({ sum: 6 });
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
  });

  it('sends an output whose schema is a $ref to an object as the object itself, on both eras', async () => {
    const r = await client.callTool({ name: 'double', arguments: { n: 21 } });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ sum: 42 });
    expect(JSON.parse(text(r))).toEqual({ sum: 42 });
  });

  it('round-trips an array output: as it is on 2026-07-28, wrapped as {result} for 2025 clients', async () => {
    const r = await client.callTool({ name: 'primes', arguments: { n: 4 } });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual(era === 'modern' ? [2, 3, 5, 7] : { result: [2, 3, 5, 7] });
    expect(JSON.parse(text(r))).toEqual([2, 3, 5, 7]);
  });

  it('answers bad arguments with isError naming each argument path', async () => {
    const r = await client.callTool({ name: 'add', arguments: { numbers: ['x'], scale: 11, extra: 1 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(
      [
        'Invalid arguments for tool "add":',
        '- extra: is not an accepted argument',
        '- numbers[0]: must be number',
        '- scale: must be <= 10',
        'Fix these and call the tool again.',
      ].join('\n'),
    );
    expect(text(await client.callTool({ name: 'echo', arguments: {} }))).toContain('- text: is required');
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    const call = client.callTool({ name: 'nope', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toMatchObject({ code: ProtocolErrorCode.InvalidParams });
  });

  it('turns a throwing handler and output that breaks its schema into isError, and keeps serving', async () => {
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('Tool "fail" failed: the disk is on fire');
    const bad = await client.callTool({ name: 'bad_output', arguments: {} });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('does not match the outputSchema: n: must be integer');
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('answers isError for a tool whose handler module fails to load, and keeps serving the others', async () => {
    const r = await client.callTool({ name: 'broken_module', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Tool "broken_module" failed: cannot load: MISSING_CONFIG is not set');
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'fine' } }))).toBe('fine');
  });

  it('delivers progress notifications in order', async () => {
    const seen: number[] = [];
    const r = await client.callTool(
      { name: 'slow', arguments: { steps: 4, ms: 30 } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(text(r)).toBe('done after 4 steps');
    // A last progress that arrives in the same read as the response may be handled after it on the client's
    // side; what arrives is in order. The exact sequence the server sends is checked on the raw stdio stream.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([1, 2, 3, 4].slice(0, seen.length));
  });

  if (leg.asks) {
    it('asks the user twice (elicitation), and the same handler completes in its third round', async () => {
      const r = await client.callTool({ name: 'confirm', arguments: { note: 'todo.md' } });
      expect(r.isError).toBeUndefined();
      expect(text(r)).toBe('deleted todo.md (outdated) in round 3');
    });

    it("asks the client's model (sampling), and completes with its answer", async () => {
      const r = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
      expect(text(r)).toBe('summary: short and sweet');
    });
  } else {
    it('cannot ask a 2025 client without a session, and says why in an error result', async () => {
      const why = (what: string, method: string) =>
        `${what} needs an answer from the client (${method}), but this server serves 2025 clients without sessions ` +
        '(--stateless), so it cannot ask the client mid-call. A client on protocol 2026-07-28, or this server ' +
        'without --stateless, can.';
      const r = await client.callTool({ name: 'confirm', arguments: { note: 'todo.md' } });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(why('Tool "confirm"', 'elicitation/create'));
      // The client declared sampling: the reason is the missing channel, not a missing capability.
      const sampled = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
      expect(sampled.isError).toBe(true);
      expect(text(sampled)).toBe(why('Tool "summarize"', 'sampling/createMessage'));
    });
  }

  if (leg.cancels) {
    it("aborts the handler's signal when the client cancels", async () => {
      const controller = new AbortController();
      const call = client.callTool(
        { name: 'slow', arguments: { steps: 100, ms: 20 } },
        { signal: controller.signal, onprogress: () => controller.abort('enough') },
      );
      await expect(call).rejects.toThrow();
      let cancelled = 'false';
      for (let i = 0; i < 100 && cancelled !== 'true'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        cancelled = text(await client.callTool({ name: 'last_cancel', arguments: {} }));
      }
      expect(cancelled).toBe('true');
    });
  }
}

describe('generated server over stdio (node dist/generated/main.js)', () => {
  const stderr: string[] = [];
  for (const era of ['modern', 'legacy'] as const) {
    describe(era, () => {
      protocolSuite(
        era,
        async () => {
          const transport = new StdioClientTransport({
            command: process.execPath,
            args: [main],
            cwd: project.dir,
            stderr: 'pipe',
          });
          transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
          const client = newClient(era);
          await client.connect(transport);
          return client;
        },
        { asks: true, cancels: true },
      );
    });
  }

  it('sends every progress notification, in order, before the result (raw stdio stream, both eras)', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const child = stdioChild();
      const lines = child.collect((m) => m['id'] === 2);
      if (era === 'legacy') {
        child.send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        });
        child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      const meta = era === 'modern' ? modernMeta() : {};
      child.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow', arguments: { steps: 4, ms: 5 }, _meta: { ...meta, progressToken: 'p' } },
      });
      const got = await lines;
      child.kill();
      const progress = got
        .filter((l) => l['method'] === 'notifications/progress')
        .map((l) => (l['params'] as { progress: number }).progress);
      expect(progress).toEqual([1, 2, 3, 4]);
      const order = got
        .map((l) => (l['id'] === 2 ? 'result' : l['method'] === 'notifications/progress' ? 'progress' : 'other'))
        .filter((k) => k !== 'other');
      expect(order).toEqual(['progress', 'progress', 'progress', 'progress', 'result']);
    }
  });

  it('sends tools/list schemas byte for byte on both eras (raw stdio stream)', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const child = stdioChild();
      const reply = child.collect((m) => m['id'] === 2, true);
      if (era === 'legacy') {
        child.send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        });
        child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      child.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        ...(era === 'modern' ? { params: { _meta: modernMeta() } } : {}),
      });
      const { raw } = await reply;
      child.kill();
      const tools = (JSON.parse(raw) as { result: { tools: Record<string, unknown>[] } }).result.tools;
      expect(tools.map((t) => t['name'])).toEqual(manifest.tools.map((t) => t['name']));
      for (const [i, tool] of tools.entries()) {
        const want = manifest.tools[i]!;
        // Key order included: what the spec says is what the client reads.
        expect(JSON.stringify(tool['inputSchema']), `${era}: ${String(tool['name'])}`).toBe(
          JSON.stringify(want['inputSchema']),
        );
        // For 2025 clients: primes's array root is wrapped by the SDK; double's $ref root is told type: object, last.
        if (era === 'modern' || tool['name'] !== 'primes') {
          expect(JSON.stringify(tool['outputSchema']), `${era}: ${String(tool['name'])}`).toBe(
            JSON.stringify(
              era === 'legacy' && tool['name'] === 'double'
                ? { ...(want['outputSchema'] as object), type: 'object' }
                : want['outputSchema'],
            ),
          );
        }
      }
    }
  });

  it('answers the calls in flight before it stops on SIGTERM, then exits 0', async () => {
    const child = stdioChild();
    const answered = child.collect((m) => m['id'] === 2);
    const running = child.collect((m) => m['method'] === 'notifications/progress');
    const meta = { ...modernMeta(), progressToken: 'p' };
    child.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'slow', arguments: { steps: 3, ms: 100 }, _meta: meta },
    });
    await running; // the call is in flight
    const exited = new Promise<number | null>((r) => child.process.once('exit', r));
    child.process.kill('SIGTERM');
    const got = await answered;
    expect(JSON.stringify(got.at(-1))).toContain('done after 3 steps');
    expect(await exited).toBe(0);
  });

  it('logs handler failures to stderr, never stdout', () => {
    expect(stderr.join('')).toContain('the disk is on fire');
  });
});

interface GeneratedHttp {
  serveHttp: (
    handlers: unknown,
    options: Record<string, unknown>,
  ) => Promise<{ url: string; server: import('node:http').Server; close(): Promise<void> }>;
  createWebHandler: (
    handlers: unknown,
    options: Record<string, unknown>,
  ) => { fetch(r: Request): Promise<Response>; close(): Promise<void> };
  handlers: unknown;
}
const loadGenerated = async () =>
  (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as GeneratedHttp;
const AUTH = { authorization: 'Bearer s3cret' };

for (const stateless of [false, true]) {
  describe(`generated server over Streamable HTTP on 127.0.0.1 (${stateless ? 'stateless' : 'stateful'})`, () => {
    let server: Awaited<ReturnType<GeneratedHttp['serveHttp']>>;
    beforeAll(async () => {
      const g = await loadGenerated();
      server = await g.serveHttp(g.handlers, {
        port: 0,
        stateless,
        onError: () => {},
        authenticate: (headers: Headers) =>
          headers.get('authorization') === 'Bearer s3cret'
            ? { token: 's3cret', clientId: 'tester', scopes: [] }
            : undefined,
      });
    });
    afterAll(async () => server?.close());
    const connect = async (era: Era) => {
      const client = newClient(era);
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: AUTH } }));
      return client;
    };

    describe('modern', () => protocolSuite('modern', () => connect('modern'), { asks: true, cancels: true }));
    // Without sessions a 2025 client cannot be asked anything, and its notifications/cancelled reaches another
    // server instance than the one running the call (README: "Streamable HTTP").
    describe('legacy', () =>
      protocolSuite('legacy', () => connect('legacy'), { asks: !stateless, cancels: !stateless }));

    it("passes the authentication hook's result to handlers as authInfo, and the request's headers", async () => {
      for (const era of ['modern', 'legacy'] as const) {
        const client = newClient(era);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: { ...AUTH, 'x-agent': `probe-${era}` } },
          }),
        );
        const r = await client.callTool({ name: 'whoami', arguments: {} });
        expect(r.structuredContent).toMatchObject({ client: 'tester', agent: `probe-${era}` });
        // 2026-07-28 has no sessions; a 2025 client has one unless the server is stateless.
        expect((r.structuredContent as { session: unknown }).session === null).toBe(stateless || era === 'modern');
        await client.close();
      }
    });

    if (!stateless) {
      it("ends a cancelled 2025 call's stream: no connection is left open after the client has gone", async () => {
        const connections = () => new Promise<number>((resolve) => server.server.getConnections((_e, n) => resolve(n)));
        const before = await connections();
        const client = await connect('legacy');
        for (let i = 0; i < 20; i++) {
          const controller = new AbortController();
          const call = client.callTool(
            { name: 'slow', arguments: { steps: 100, ms: 20 } },
            { signal: controller.signal, onprogress: () => controller.abort('enough') },
          );
          await expect(call).rejects.toThrow();
        }
        // Each cancelled call's stream is ended, not kept alive: the client holds a few pooled connections, not 20.
        await expect.poll(connections, { timeout: 10_000 }).toBeLessThan(before + 10);
        await client.close();
        await expect.poll(connections, { timeout: 10_000 }).toBeLessThanOrEqual(before);
      });
    }

    it('refuses a tampered requestState with -32602 before the handler runs, and keeps the sealed one', async () => {
      const first = await modernPost(server.url, 'tools/call', { name: 'confirm', arguments: { note: 'a' } });
      expect(first.result?.['resultType']).toBe('input_required');
      const state = first.result!['requestState'] as string;
      const answers = { sure: { action: 'accept', content: { sure: true } } };
      const tampered = state.slice(0, 10) + (state[10] === 'A' ? 'B' : 'A') + state.slice(11);
      const refused = await modernPost(server.url, 'tools/call', {
        name: 'confirm',
        arguments: { note: 'a' },
        inputResponses: answers,
        requestState: tampered,
      });
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toMatch(/^Invalid requestState: /);
      const otherCall = await modernPost(server.url, 'tools/call', {
        name: 'confirm',
        arguments: { note: 'b' },
        inputResponses: answers,
        requestState: state,
      });
      expect(otherCall.error?.message).toContain('issued for another call');
      const next = await modernPost(server.url, 'tools/call', {
        name: 'confirm',
        arguments: { note: 'a' },
        inputResponses: answers,
        requestState: state,
      });
      expect(next.result?.['resultType']).toBe('input_required');
      expect(Object.keys(next.result!['inputRequests'] as object)).toEqual(['why']);
    });

    it('refuses a request without valid credentials with 401 before any handler, on both legs', async () => {
      for (const body of [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } },
      ]) {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/list',
          },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        const answer = (await res.json()) as { error: { code: number } };
        expect(answer.error.code < -32019 || answer.error.code > -32000).toBe(true);
      }
    });

    it('sends log messages on 2026-07-28 only at the level the request asks for', async () => {
      const logged = async (level?: string) => {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/call',
            'mcp-name': 'slow',
            ...AUTH,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'slow',
              arguments: { steps: 1, ms: 1 },
              _meta: { ...modernMeta(), ...(level ? { 'io.modelcontextprotocol/logLevel': level } : {}) },
            },
          }),
        });
        const body = await res.text();
        return body
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as { method?: string; params?: { data?: unknown } })
          .concat(body.startsWith('{') ? [JSON.parse(body) as never] : [])
          .filter((m) => m.method === 'notifications/message')
          .map((m) => m.params?.data);
      };
      expect(await logged('info')).toEqual([{ done: 1 }]);
      expect(await logged('error')).toEqual([]);
      expect(await logged()).toEqual([]);
    });

    it(
      stateless
        ? 'offers a 2025 client served per request no logging: logging/setLevel is unknown, and no message is sent'
        : "offers a 2025 client logging, and keeps the level logging/setLevel sets for the session's calls",
      async () => {
        const client = await connect('legacy');
        try {
          const messages: unknown[] = [];
          client.setNotificationHandler('notifications/message', (n) => void messages.push(n.params.data));
          // slow logs { done: 1 } at info; a notification a call sends arrives before its result.
          const call = () => client.callTool({ name: 'slow', arguments: { steps: 1, ms: 1 } });
          if (stateless) {
            expect(client.getServerCapabilities()).not.toHaveProperty('logging');
            await expect(client.setLoggingLevel('error')).rejects.toMatchObject({
              code: ProtocolErrorCode.MethodNotFound,
            });
            await call();
            expect(messages).toEqual([]);
          } else {
            expect(client.getServerCapabilities()).toHaveProperty('logging');
            await client.setLoggingLevel('error');
            await call();
            expect(messages).toEqual([]);
            await client.setLoggingLevel('info');
            await call();
            expect(messages).toEqual([{ done: 1 }]);
          }
        } finally {
          await client.close();
        }
      },
    );

    it('sends tools/list on 2026-07-28 with the cache hints of options.cache, in the spec order', async () => {
      const listed = await modernPost(server.url, 'tools/list', {});
      expect(listed.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
      expect((listed.result!['tools'] as { name: string }[]).map((t) => t.name)).toEqual(
        manifest.tools.map((t) => t['name']),
      );
    });

    it('refuses a foreign Host header (DNS rebinding) and an oversized body, on both legs', async () => {
      const url = new URL(server.url);
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...AUTH };
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } };
      const elsewhere = await fetch(new URL('/other', url), { method: 'POST', headers, body: JSON.stringify(list) });
      expect(elsewhere.status).toBe(404);
      expect(((await elsewhere.json()) as { error: { code: number } }).error.code).toBe(-32600);
      for (const body of [init, list]) {
        const evil = await rawPost(url, { ...headers, host: `evil.example:${url.port}` }, JSON.stringify(body));
        expect(evil.status).toBe(403);
        // A Host that would make a URL with credentials: refused, not a 500.
        const credentials = await rawPost(url, { ...headers, host: `localhost:${url.port}@evil.example` }, '{}');
        expect(credentials.status).toBe(400);
        const big = await rawPost(url, headers, JSON.stringify({ ...body, padding: 'x'.repeat(2 * 1024 * 1024) }));
        expect(big.status).toBe(413);
      }
    });
  });
}

describe('stdio: stdin closing', () => {
  it('answers the calls in flight before the server ends, as SIGTERM does', async () => {
    const child = spawn(process.execPath, [main], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await expect.poll(() => out, { timeout: 20_000 }).toContain('"id":1');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 5, ms: 60 } } });
    child.stdin.end();
    expect(await exited).toBe(0);
    const answer = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: number; result?: { isError?: boolean } })
      .find((m) => m.id === 2);
    expect(answer?.result).toBeDefined();
    expect(answer?.result?.isError).toBeUndefined();
  });
});

describe('main.js flags', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [main, ...args], { cwd: project.dir, encoding: 'utf8', timeout: 20_000 });

  /** Starts main.js and resolves with its first line on stderr (the ready line), and what stdout had by then. */
  const firstLine = (args: string[]) => {
    const child = spawn(process.execPath, [main, ...args], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const line = new Promise<{ line: string; stdout: string }>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('\n')) resolve({ line: err, stdout: out });
      });
      child.once('exit', (code) => reject(new Error(`main.js exited (${code}) before a line: ${err}`)));
    });
    return { child, line };
  };

  it('says on stderr, in one line, that it is ready: name, version, transport and address; stdout stays clean', async () => {
    const stdio = firstLine([]);
    try {
      const { line, stdout } = await stdio.line;
      expect(line).toBe('e2e-server 0.1.0 ready on stdio\n');
      expect(stdout).toBe('');
    } finally {
      stdio.child.kill();
    }
    const http = firstLine(['--http', '--port', '0']);
    try {
      expect((await http.line).line).toMatch(/^e2e-server 0\.1\.0 listening on http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
    } finally {
      http.child.kill();
    }
  });

  it('ends with one line and exit 2 when the port is in use, or the address is not on this machine', async () => {
    const net = await import('node:net');
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as import('node:net').AddressInfo).port;
    try {
      const r = run(['--http', '--port', String(port)]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `error: 127.0.0.1:${port} is in use: stop what uses it, or pick another port with --port (0 picks a free one)\n`,
      );
    } finally {
      busy.close();
    }
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it.
    const away = run(['--http', '--host', '192.0.2.1', '--port', '0']);
    expect(away.status, away.stderr).toBe(2);
    expect(away.stderr).toBe(
      'error: cannot listen on 192.0.2.1: no such address on this machine (--host 127.0.0.1 serves it alone)\n',
    );
  });

  it('prints --help, and ends a mistake with one line on stderr and exit 2', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toContain('Usage: node main.js [--http');
    expect(help.stdout).toContain('Serves the MCP server e2e-server 0.1.0');
    expect(help.stdout).toMatch(/^ {2}--port <n> +HTTP port/m);
    expect(help.stdout).toMatch(/^ {2}TOOLSPEC_REQUEST_STATE_KEY /m);
    expect(help.stdout).toContain('Exit status: 0 after SIGINT or SIGTERM');
    expect(run(['-h']).stdout).toBe(help.stdout);
    for (const [args, message] of [
      [['--prot', '80'], "error: Unknown option '--prot' (did you mean --port?). See --help."],
      [['--stateles'], "error: Unknown option '--stateles' (did you mean --stateless?). See --help."],
      [['--allowed'], "error: Unknown option '--allowed' (did you mean --allowed-hosts?). See --help."],
      [['--verbose'], "error: Unknown option '--verbose'. See --help."],
      [['serve'], "error: Unexpected argument 'serve'. See --help."],
      [['--http', '--port'], "error: Option '--port <value>' argument missing. See --help."],
      [['--http', '--port', '70000'], 'error: --port must be a number from 0 to 65535, not "70000"'],
      [['--http', '--port', '1e3'], 'error: --port must be a number from 0 to 65535, not "1e3"'],
      [['--http', '--host', ''], 'error: --host needs an address, such as 127.0.0.1'],
      [['--htp'], "error: Unknown option '--htp' (did you mean --http?). See --help."],
      [['--http', '--port', 'abc'], 'error: --port must be a number from 0 to 65535, not "abc"'],
      [
        ['--port', '3000'],
        'error: --host, --port, --path, --allowed-hosts, --stateless and --server-card are HTTP options: add --http. See --help.',
      ],
      [
        ['--http', '--host', '0.0.0.0', '--port', '0'],
        'error: listening on every address (0.0.0.0), the server cannot tell which Host names are its own',
      ],
    ] as const) {
      const r = run([...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.startsWith(message), r.stderr).toBe(true);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });

  it('listens on every address with --allowed-hosts, and takes requests for those names only', async () => {
    const child = spawn(
      process.execPath,
      [main, '--http', '--host', '0.0.0.0', '--port', '0', '--allowed-hosts', 'mcp.test,localhost'],
      {
        cwd: project.dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      let err = '';
      const url = await new Promise<URL>((resolve) =>
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(err);
          if (m) resolve(new URL(`http://127.0.0.1:${m[1]}/mcp`));
        }),
      );
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      expect((await rawPost(url, { ...headers, host: `mcp.test:${url.port}` }, body)).status).toBe(200);
      expect((await rawPost(url, { ...headers, host: `other.test:${url.port}` }, body)).status).toBe(403);
    } finally {
      child.kill();
    }
  });
});

describe('HTTP connections: bounded in number, and in how long a request may take to arrive', () => {
  it('closes a request whose body arrives too slowly, and answers 503 to connections past maxConnections', async () => {
    const net = await import('node:net');
    const g = await loadGenerated();
    const server = await g.serveHttp(g.handlers, { port: 0, requestTimeoutMs: 1000, maxConnections: 3 });
    const url = new URL(server.url);
    const open = () =>
      new Promise<import('node:net').Socket>((resolve) => {
        const socket = net.connect(Number(url.port), '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
      });
    const closed = (socket: import('node:net').Socket) =>
      new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
    try {
      const slow = await open();
      slow.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json`,
      );
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        let got = '';
        slow.on('data', (d: Buffer) => (got += d.toString()));
        slow.once('close', () => resolve(got));
      });
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
      expect(Date.now() - started).toBeLessThan(20_000);

      const held = [await open(), await open(), await open()];
      // Past maxConnections: a request is answered 503 with Retry-After, and the connection closed.
      const extra = await open();
      extra.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\n\r\n`);
      const refused = await new Promise<string>((resolve) => {
        let got = '';
        extra.on('data', (d: Buffer) => (got += d.toString()));
        extra.once('close', () => resolve(got));
      });
      expect(refused.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
      expect(refused.toLowerCase()).toContain('retry-after: 1');
      expect(refused).toContain('Too many open connections (3)');
      // Past twice as many: closed at once, without reading a byte.
      const band = [await open(), await open(), await open()];
      const flood = await open();
      await closed(flood);
      for (const s of held) expect(s.closed).toBe(false);
      [...held, ...band].forEach((s) => s.destroy());
    } finally {
      await server.close();
    }
  }, 30_000);
});

/** The built server as a process on HTTP, on a free port: its URL once it says it is listening. */
async function httpProcess(...flags: string[]) {
  const child = spawn(process.execPath, [main, '--http', '--port', '0', ...flags], {
    cwd: project.dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve) =>
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    }),
  );
  return { url, child, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

describe('the server card (experimental, --server-card)', () => {
  it('serves who the server is and what it offers at <mcp url>/server-card, and nothing without the flag', async () => {
    const server = await httpProcess('--server-card');
    try {
      const res = await fetch(`${server.url}/server-card`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const card = (await res.json()) as Record<string, unknown>;
      const client = newClient('modern');
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const listed = await client.listTools();
      await client.close();
      expect(card).toMatchObject({
        $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
        name: 'e2e-server',
        version: '0.1.0',
        remotes: [{ type: 'streamable-http', url: server.url }],
        capabilities: { tools: {} },
      });
      expect((card['remotes'] as { supportedProtocolVersions: string[] }[])[0]!.supportedProtocolVersions).toContain(
        MODERN,
      );
      // The same tools as tools/list, each as a client gets it.
      expect(card['tools']).toEqual(listed.tools);
      expect((await fetch(`${server.url}/server-card`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.stop();
    }
    const plain = await httpProcess();
    try {
      expect((await fetch(`${plain.url}/server-card`)).status).toBe(404);
    } finally {
      await plain.stop();
    }
  }, 30_000);
});

describe('the HTTP server process on SIGTERM', () => {
  it('answers the calls in flight, refuses new ones, then exits 0', async () => {
    const { url, child } = await httpProcess();
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const call = fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'slow',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow', arguments: { steps: 4, ms: 100 }, _meta: modernMeta() },
      }),
    }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    const late = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    expect(await call).toContain('done after 4 steps');
    expect(await exited).toBe(0);
  });
});

describe('2025 sessions over HTTP: capped, and closed when idle', () => {
  const initialize = (endpoint: { fetch(r: Request): Promise<Response> }) =>
    endpoint.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
      }),
    );
  type Endpoint = { fetch(r: Request): Promise<Response> };
  /** A JSON-RPC message posted on a 2025 session (`signal`: the runtime's view of the client's connection). */
  const inSession = (endpoint: Endpoint, session: string, message: unknown, signal?: AbortSignal) =>
    endpoint.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        ...(signal ? { signal } : {}),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(message),
      }),
    );
  /** A 2026-07-28 tools/call without arguments. */
  const modernCall = (endpoint: Endpoint, id: number, name: string) =>
    endpoint.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: {}, _meta: modernMeta() },
        }),
      }),
    );
  const slowCall = (id: number, steps: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'slow', arguments: { steps, ms: 20 } },
  });
  /** A ping on the session, its answer read to the end (a response still being read keeps its session busy). */
  const ping = async (endpoint: Endpoint, session: string) => {
    const res = await inSession(endpoint, session, { jsonrpc: '2.0', id: 2, method: 'ping' });
    await res.text();
    return res;
  };
  const open = async (endpoint: { fetch(r: Request): Promise<Response> }) => {
    const res = await initialize(endpoint);
    await res.text();
    return res;
  };

  it('closes the longest-idle session past maxSessions, and answers 503 when every one is busy', async () => {
    const g = await loadGenerated();
    const endpoint = g.createWebHandler(g.handlers, { maxSessions: 2 });
    try {
      // The clock stands still (as it seems to when requests come within one millisecond): the order of use decides.
      vi.useFakeTimers({ toFake: ['Date'] });
      const first = (await open(endpoint)).headers.get('mcp-session-id')!;
      const second = (await open(endpoint)).headers.get('mcp-session-id')!;
      expect((await ping(endpoint, first)).status).toBe(200);
      const third = await open(endpoint);
      expect(third.status).toBe(200);
      // The second was idle longest (the first answered a ping since): it is gone, the others stay.
      expect((await ping(endpoint, second)).status).toBe(404);
      vi.useRealTimers();
      expect((await ping(endpoint, first)).status).toBe(200);
      // Two sessions, each with a call in flight (a stream still open): no room, and none to close.
      const busy = await Promise.all(
        [first, third.headers.get('mcp-session-id')!].map((sid) => inSession(endpoint, sid, slowCall(3, 50))),
      );
      const refused = await initialize(endpoint);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      for (const r of busy) await r.body?.cancel();
    } finally {
      vi.useRealTimers();
      await endpoint.close();
    }
  });

  it('holds at most maxSessions (default 1000) however many initializes arrive', async () => {
    const g = await loadGenerated();
    const endpoint = g.createWebHandler(g.handlers, {});
    try {
      const first = (await open(endpoint)).headers.get('mcp-session-id')!;
      let last = '';
      for (let i = 0; i < 1200; i++) last = (await open(endpoint)).headers.get('mcp-session-id')!;
      expect((await ping(endpoint, first)).status).toBe(404); // closed to make room
      expect((await ping(endpoint, last)).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  }, 60_000);

  it('keeps a session to the caller who opened it: another one cannot use it or end it', async () => {
    const g = await loadGenerated();
    const endpoint = g.createWebHandler(g.handlers, {
      authenticate: (headers: Headers) => {
        const who = /^Bearer (alice|bob)$/.exec(headers.get('authorization') ?? '')?.[1];
        return who ? { token: who, clientId: who, scopes: [] } : undefined;
      },
    });
    const as = (who: string, init: RequestInit) =>
      endpoint.fetch(
        new Request('http://127.0.0.1/mcp', {
          ...init,
          headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${who}` },
        }),
      );
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    try {
      const opened = await as('alice', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
      });
      await opened.text();
      const session = opened.headers.get('mcp-session-id')!;
      const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
      const pingBody = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect((await as('bob', { method: 'POST', headers: inSession, body: pingBody })).status).toBe(404);
      expect((await as('bob', { method: 'DELETE', headers: inSession })).status).toBe(404);
      const alice = await as('alice', { method: 'POST', headers: inSession, body: pingBody });
      await alice.text();
      expect(alice.status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });

  it("ends a session's calls when the session goes: a client that left holds nothing after the idle time", async () => {
    const g = await loadGenerated();
    const endpoint = g.createWebHandler(g.handlers, { sessionIdleMs: 300 });
    try {
      const session = (await open(endpoint)).headers.get('mcp-session-id')!;
      const call = await inSession(endpoint, session, slowCall(5, 1000));
      await call.body!.cancel(); // the client goes away without a word
      await new Promise((r) => setTimeout(r, 2500));
      expect((await ping(endpoint, session)).status).toBe(404);
      expect(await (await modernCall(endpoint, 6, 'last_cancel')).text()).toContain('"text":"true"');
    } finally {
      await endpoint.close();
    }
  });

  it.each([
    ['its response stream is cancelled', 'body'],
    ['its request is aborted (the runtime saw the connection close)', 'signal'],
  ] as const)('cancels a call at once when its client leaves (resumption off): %s', async (_what, how) => {
    const g = await loadGenerated();
    // Resumable streams (the default) wait resumeWindowMs for the client first: test/e2e/resume-e2e.test.ts.
    const endpoint = g.createWebHandler(g.handlers, { resumption: false });
    const modern = (id: number, name: string) => modernCall(endpoint, id, name);
    try {
      const session = (await open(endpoint)).headers.get('mcp-session-id')!;
      const gone = new AbortController();
      const call = await inSession(endpoint, session, slowCall(5, 1000), gone.signal);
      expect(await (await modern(6, 'last_cancel')).text()).toContain('"text":"false"');
      if (how === 'body') await call.body!.cancel();
      else gone.abort();
      // The session stays open (its idle time is 30 minutes): only the closed request ends the call.
      await expect
        .poll(async () => (await (await modern(7, 'last_cancel')).text()).includes('"text":"true"'), {
          timeout: 5000,
        })
        .toBe(true);
      expect((await ping(endpoint, session)).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });

  it('closes a session that sees no request for sessionIdleMs', async () => {
    const g = await loadGenerated();
    const endpoint = g.createWebHandler(g.handlers, { sessionIdleMs: 300 });
    try {
      const session = (await open(endpoint)).headers.get('mcp-session-id')!;
      expect((await ping(endpoint, session)).status).toBe(200);
      // A sweep runs every second (at most): after 2.5 s without a request the session is gone. (Pinging meanwhile
      // would keep it open.)
      await new Promise((r) => setTimeout(r, 2500));
      expect((await ping(endpoint, session)).status).toBe(404);
    } finally {
      await endpoint.close();
    }
  });
});

function modernMeta() {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
}

/** One JSON-RPC request on the 2026-07-28 wire over HTTP, with the headers that revision requires. */
async function modernPost(url: string, method: string, params: Record<string, unknown>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof params['name'] === 'string' ? { 'mcp-name': params['name'] } : {}),
      ...AUTH,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta() } }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** The built server on stdio, spoken to line by line. */
function stdioChild() {
  const child = spawn(process.execPath, [main], { cwd: project.dir, stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = '';
  const seen: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const raw = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      seen.push({ ...(JSON.parse(raw) as Record<string, unknown>), __raw: raw });
      waiters.forEach((w) => w());
    }
  });
  return {
    process: child,
    send: (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`),
    kill: () => child.kill(),
    /** Every message up to the first that `until` accepts; with `one`, that message and its raw line. */
    collect<One extends boolean = false>(until: (m: Record<string, unknown>) => boolean, one?: One) {
      return new Promise<One extends true ? { raw: string } : Record<string, unknown>[]>((resolve) => {
        const check = () => {
          const hit = seen.find(until);
          if (hit) resolve((one ? { raw: hit['__raw'] } : seen.slice(0, seen.indexOf(hit) + 1)) as never);
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** fetch() will not send a custom Host header; node:http will. */
async function rawPost(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number }> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
    req.end(body);
  });
}
