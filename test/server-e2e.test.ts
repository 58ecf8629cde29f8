/**
 * The generated server, end to end: generate with the built CLI, compile with the real TypeScript compiler, start
 * it with node, and talk to it with the SDK's real Client over stdio and over Streamable HTTP on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from './helpers/cli.js';
import { compile, scratchCopy, tsFiles } from './helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'e2e');
const dist = path.join(project.dir, 'dist');
let manifest: { tools: unknown[] };

beforeAll(() => {
  const gen = runCli(['generate'], project.dir);
  expect(gen.stderr).toBe('');
  expect(gen.code).toBe(0);
  const errors = compile(tsFiles(path.join(project.dir, 'src')), { outDir: dist, rootDir: path.join(project.dir, 'src') });
  expect(errors).toEqual([]);
  manifest = JSON.parse(fs.readFileSync(path.join(project.dir, 'src/generated/manifest.json'), 'utf8')) as { tools: unknown[] };
}, 120_000);
afterAll(() => project.cleanup());

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The behaviour every transport must show, against a connected client. */
function protocolSuite(connect: () => Promise<Client>, { cancellation = true } = {}) {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => client?.close());

  it('lists exactly the manifest ($schema, $defs, additionalProperties intact)', async () => {
    const listed = await client.listTools();
    expect(listed.tools).toEqual(manifest.tools);
    const echo = listed.tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(echo.inputSchema['additionalProperties']).toBe(false);
    expect((listed.tools.find((t) => t.name === 'add')!.outputSchema as Record<string, unknown>)['$defs']).toEqual({
      Sum: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    });
  });

  it('returns structuredContent plus its JSON text, with defaults applied', async () => {
    const r = (await client.callTool({ name: 'add', arguments: { numbers: [1, 2, 3.5] } })) as CallToolResult;
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ sum: 6.5 });
    expect(JSON.parse(text(r))).toEqual({ sum: 6.5 });
    const scaled = (await client.callTool({ name: 'add', arguments: { numbers: [2], scale: 3 } })) as CallToolResult;
    expect(scaled.structuredContent).toEqual({ sum: 6 });
    expect(text((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult)).toBe('hi');
  });

  it('answers bad arguments with isError naming each argument path', async () => {
    const r = (await client.callTool({ name: 'add', arguments: { numbers: ['x'], scale: 11, extra: 1 } })) as CallToolResult;
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
    const missing = (await client.callTool({ name: 'echo', arguments: {} })) as CallToolResult;
    expect(text(missing)).toContain('- text: is required');
  });

  it('answers an unknown tool and non-object arguments with JSON-RPC -32602', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const raw = client.request({ method: 'tools/call', params: { name: 'echo', arguments: 'text' as never } }, CallToolResultSchema);
    await expect(raw).rejects.toBeInstanceOf(McpError);
    await expect(raw).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('turns a throwing handler and output that breaks its schema into isError, and keeps serving', async () => {
    const failed = (await client.callTool({ name: 'fail', arguments: {} })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('Tool "fail" failed: the disk is on fire');
    const bad = (await client.callTool({ name: 'bad_output', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('does not match the outputSchema: n: must be integer');
    expect(text((await client.callTool({ name: 'echo', arguments: { text: 'still here' } })) as CallToolResult)).toBe('still here');
  });

  it('answers isError for a tool whose handler module fails to load, and keeps serving the others', async () => {
    const r = (await client.callTool({ name: 'broken_module', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Tool "broken_module" failed: cannot load: MISSING_CONFIG is not set');
    expect(text((await client.callTool({ name: 'echo', arguments: { text: 'fine' } })) as CallToolResult)).toBe('fine');
  });

  it('delivers progress notifications in order', async () => {
    const seen: number[] = [];
    const r = (await client.callTool({ name: 'slow', arguments: { steps: 4, ms: 5 } }, undefined, {
      onprogress: (p) => void seen.push(p.progress),
    })) as CallToolResult;
    expect(text(r)).toBe('done after 4 steps');
    // The SDK client handles notifications a microtask later than responses, so a last progress that arrives in
    // the same read as the response is dropped on the client's side; what arrives is in order. The exact sequence
    // the server sends is checked on the raw stdio stream below.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([1, 2, 3, 4].slice(0, seen.length));
  });

  if (cancellation) it('aborts the handler\'s signal when the client cancels', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { steps: 100, ms: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('enough'),
    });
    await expect(call).rejects.toThrow();
    let cancelled = 'false';
    for (let i = 0; i < 100 && cancelled !== 'true'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      cancelled = text((await client.callTool({ name: 'last_cancel', arguments: {} })) as CallToolResult);
    }
    expect(cancelled).toBe('true');
  });
}

describe('generated server over stdio (node dist/generated/main.js)', () => {
  const stderr: string[] = [];
  protocolSuite(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(dist, 'generated/main.js')],
      cwd: project.dir,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
    return client;
  });
  it('sends every progress notification, in order, before the result (raw stdio stream)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [path.join(dist, 'generated/main.js')], { cwd: project.dir, stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    const done = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
          const msg = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
          buffer = buffer.slice(i + 1);
          lines.push(msg);
          if (msg['id'] === 2) resolve();
        }
      });
    });
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 4, ms: 5 }, _meta: { progressToken: 'p' } } });
    await done;
    child.kill();
    const progress = lines.filter((l) => l['method'] === 'notifications/progress').map((l) => (l['params'] as { progress: number }).progress);
    expect(progress).toEqual([1, 2, 3, 4]);
    const order = lines.map((l) => (l['id'] === 2 ? 'result' : l['method'] === 'notifications/progress' ? 'progress' : 'other')).filter((k) => k !== 'other');
    expect(order).toEqual(['progress', 'progress', 'progress', 'progress', 'result']);
  });

  it('logs handler failures to stderr, never stdout', () => {
    expect(stderr.join('')).toContain('the disk is on fire');
  });
});

interface GeneratedHttp {
  serveHttp: (handlers: unknown, options: Record<string, unknown>) => Promise<{ url: string; close(): Promise<void> }>;
  handlers: unknown;
}
const loadGenerated = async () => (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as GeneratedHttp;

for (const stateless of [false, true]) {
  describe(`generated server over Streamable HTTP on 127.0.0.1 (${stateless ? 'stateless' : 'stateful'})`, () => {
    let server: Awaited<ReturnType<GeneratedHttp['serveHttp']>>;
    afterAll(async () => server?.close());
    protocolSuite(async () => {
      const g = await loadGenerated();
      server = await g.serveHttp(g.handlers, {
        port: 0,
        stateless,
        onError: () => {},
        authenticate: (headers: Headers) =>
          headers.get('authorization') === 'Bearer s3cret' ? { token: 's3cret', clientId: 'tester', scopes: [] } : undefined,
      });
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: 'Bearer s3cret' } } }));
      return client;
    // Stateless mode serves each HTTP request on its own server: a later notifications/cancelled cannot reach
    // the server instance running the call (README: "Streamable HTTP").
    }, { cancellation: !stateless });

    it('passes the authentication hook\'s result to handlers as authInfo', async () => {
      const client = new Client({ name: 'who', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: 'Bearer s3cret' } } }));
      const r = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      expect(r.structuredContent).toMatchObject({ client: 'tester' });
      expect((r.structuredContent as { session: unknown }).session === null).toBe(stateless);
      await client.close();
    });

    it('refuses a request without valid credentials with 401 before any handler', async () => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('refuses a foreign Host header (DNS rebinding) and an oversized body', async () => {
      const url = new URL(server.url);
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer s3cret' };
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      const evil = await rawPost(url, { ...headers, host: `evil.example:${url.port}` }, JSON.stringify(init));
      expect(evil.status).toBe(403);
      const big = await rawPost(url, headers, JSON.stringify({ ...init, padding: 'x'.repeat(2 * 1024 * 1024) }));
      expect(big.status).toBe(413);
    });
  });
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
