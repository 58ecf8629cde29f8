// The generated server at run time, on SDK v2, beside the same tools on the SDK's high-level McpServer in two
// flavours (bench/mcp-server.mjs: zod schemas from z.fromJSONSchema of the same JSON Schemas, and the SDK's own
// fromJsonSchema wrapper, ajv at run time), for seeded synthetic specs (bench/synth.mjs) of 100 and 500 tools, on
// both protocol eras: 2025 ("legacy": initialize, then requests) and 2026-07-28 ("modern": every request carries
// its own envelope, and the SDK's serving entries build a server instance per HTTP request). Every figure is
// measured for all contestants in the same run, alternating, pair by pair:
// 1. start-up: process start to the first tools/list answer, over stdio with the SDK's v2 Client (a 2025 client,
//    and one pinned to 2026-07-28), a fresh process each run; every entry serves both eras through the SDK's
//    serveStdio (the generated main.js; serveStdio(factory) for McpServer);
// 2. RSS of that process right after the answer (VmRSS from /proc);
// 3. warm tools/list latency in process: 2025 over InMemoryTransport, 2026-07-28 through createMcpHandler's fetch;
// 4. tools/call throughput in process (valid and invalid arguments, one call at a time and 64 in flight): 2025 over
//    InMemoryTransport (a server from factory({ era: 'legacy' })), 2026-07-28 as raw JSON-RPC requests through each
//    contestant's createMcpHandler(factory).fetch, responses parsed; with a third server that calls the handler
//    without validating: the limit of the SDK's request path;
// 5. the generated dispatcher alone beside a minimal hand-written loop around ajv;
// 6. HTTP serving throughput over real sockets on 127.0.0.1: the generated main.js --http (its own serveHttp) beside
//    McpServer behind createMcpHandler + toNodeHandler on node:http, each server its own process, 2026-07-28
//    tools/call requests, each a separate POST, one at a time and HTTP_INFLIGHT in flight. The same on the 2025
//    wire (sessionful and stateless, beside McpServer on the SDK's Node Streamable HTTP transport) is
//    bench/legacy-http.mjs, which bench/run.mjs runs with this section (SERVER_ROWS=2025-http: those rows alone).
// `node bench/server.mjs` prints the tables (RUNS=5 by default; SIZES=100,500).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import AjvModule from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { pairRatio, startServer, stats } from './lib.mjs';
import { FLAVOURS, mcpServerFactory, plainServerFactory } from './mcp-server.mjs';
import { handlerSource, synthSpec, writeProject } from './synth.mjs';

// The .d.ts files type these CJS modules' default import as the module object; at run time it is module.exports,
// which is also the class (plugin), and carries .default too.
const Ajv2020 = /** @type {typeof AjvModule.default} */ (AjvModule.default ?? AjvModule);
const addFormats = /** @type {typeof addFormatsModule.default} */ (addFormatsModule.default ?? addFormatsModule);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/toolspec.js');
const work = path.join(root, 'bench/.work');

/**
 * Calls per throughput figure (in BLOCKS interleaved blocks) by era, per list-latency figure, per dispatcher figure.
 * Fewer on 2026-07-28, where McpServer registers every tool again for each request (~100 calls/s at 500 tools).
 */
const CALLS = { legacy: 4000, modern: 1000 };
const BLOCKS = 5;
const LIST_CALLS = { toolspec: 200, mcp: 10 };
const DISPATCH_CALLS = 20000;
const INFLIGHT = 64;
/** HTTP: requests per figure (in BLOCKS blocks) and the concurrency of the second figure. */
const HTTP_CALLS = 1000;
const HTTP_INFLIGHT = 16;

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
const ERAS = ['legacy', 'modern'];
const ERA_NAME = { legacy: `2025 (${LEGACY})`, modern: MODERN };
/** The contestants with validation, in table order: the generated server and the two McpServer flavours. */
const PEERS = ['toolspec', ...FLAVOURS];

// ---------------------------------------------------------------------------------------------------------------
// Projects: the generated toolspec server, compiled; the McpServer entries.

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { ok: r.status === 0, out: `${r.stdout}\n${r.stderr}` };
}

/** `toolspec generate` in dir; if it fails once (dist/ being rebuilt meanwhile), rebuild toolspec and retry. */
function generate(dir) {
  let r = run(process.execPath, [bin, 'generate'], dir);
  if (!r.ok) {
    const build = run('npm', ['run', 'build'], root);
    if (!build.ok) throw new Error(`npm run build failed:\n${build.out}`);
    r = run(process.execPath, [bin, 'generate'], dir);
    if (!r.ok) throw new Error(`toolspec generate failed in ${dir}:\n${r.out}`);
  }
}

/**
 * Compiles every .ts file below src to JavaScript in outDir, one file at a time (ts.transpileModule: the generated
 * code uses verbatimModuleSyntax, so this emits byte for byte what the compile() of test/helpers/project.ts emits,
 * without its minutes of type checking on a 500-tool project). Unchanged files (by content hash) are skipped.
 */
function compileProject(src, outDir) {
  const stampFile = path.join(outDir, '.stamps.json');
  let stamps = {};
  try {
    stamps = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    // first compile
  }
  const files = fs
    .readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
  const next = {};
  for (const rel of files) {
    const source = fs.readFileSync(path.join(src, rel), 'utf8');
    const hash = crypto.createHash('sha1').update(source).digest('hex');
    const out = path.join(outDir, rel.replace(/\.ts$/, '.js'));
    next[rel] = hash;
    if (stamps[rel] === hash && fs.existsSync(out)) continue;
    const js = ts.transpileModule(source, {
      fileName: path.join(src, rel),
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true },
      reportDiagnostics: true,
    });
    if (js.diagnostics?.length) {
      throw new Error(
        `${rel}: ${js.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`,
      );
    }
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, js.outputText);
  }
  fs.writeFileSync(stampFile, JSON.stringify(next));
}

function writeIfChanged(file, text) {
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
}

/**
 * Generates and compiles the n-tool toolspec project; writes the McpServer entries (stdio for each flavour, and one
 * HTTP entry taking the flavour as its argument). Returns paths and the spec.
 */
export function prepare(n) {
  const base = path.join(work, `server-${n}`);
  const project = path.join(base, 'project');
  const spec = synthSpec(n);
  let same = false;
  try {
    const read = (f) => fs.readFileSync(path.join(project, f), 'utf8');
    same =
      read('toolspec.yaml') === JSON.stringify(spec, null, 1) &&
      spec.tools.every((t) => read(`src/handlers/${t.name}.ts`) === handlerSource(t));
  } catch {
    // no project yet
  }
  if (!same) writeProject(project, n);
  generate(project);
  const dist = path.join(base, 'dist'); // dist/generated, dist/handlers: the layout of the project's src
  compileProject(path.join(project, 'src'), dist);

  const tools = JSON.parse(fs.readFileSync(path.join(project, 'src/generated/manifest.json'), 'utf8')).tools;
  const mcpDir = path.join(base, 'mcpserver');
  fs.mkdirSync(mcpDir, { recursive: true });
  fs.writeFileSync(path.join(mcpDir, 'tools.json'), JSON.stringify(tools));
  const helper = path.relative(mcpDir, path.join(root, 'bench/mcp-server.mjs')).split(path.sep).join('/');
  const stdio = {};
  for (const flavour of FLAVOURS) {
    stdio[flavour] = path.join(mcpDir, `stdio-${flavour}.mjs`);
    writeIfChanged(
      stdio[flavour],
      `// McpServer entry for bench/server.mjs: ${n} tools, ${flavour} schemas, both eras over stdio (serveStdio).
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { mcpServerFactory } from '${helper}';

const tools = JSON.parse(${JSON.stringify(JSON.stringify(tools))});
const { factory, convertMs } = mcpServerFactory(tools, '${flavour}', { name: 'bench-${n}', version: '1.0.0' });
process.stderr.write(\`convert-ms=\${convertMs}\\n\`);
serveStdio(factory);
`,
    );
  }
  const httpEntry = path.join(mcpDir, 'http.mjs');
  writeIfChanged(
    httpEntry,
    `// McpServer HTTP entry for bench/server.mjs: ${n} tools, the flavour in argv[2], createMcpHandler behind the SDK's
// toNodeHandler on node:http, 127.0.0.1, a free port, Host and Origin held to the loopback names as the generated
// server holds it; prints the URL on stderr.
import fs from 'node:fs';
import http from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { mcpServerFactory } from '${helper}';

const tools = JSON.parse(fs.readFileSync(new URL('./tools.json', import.meta.url), 'utf8'));
const { factory } = mcpServerFactory(tools, process.argv[2], { name: 'bench-${n}', version: '1.0.0' });
const handler = toNodeHandler(createMcpHandler(factory));
const hostOk = localhostHostValidation();
const originOk = localhostOriginValidation();
const server = http.createServer((req, res) => {
  if (hostOk(req, res) && originOk(req, res)) void handler(req, res);
});
server.listen(0, '127.0.0.1', () => process.stderr.write(\`listening on http://127.0.0.1:\${server.address().port}/mcp\\n\`));
`,
  );
  return {
    n,
    spec,
    tools,
    cwd: base,
    stdio,
    httpEntry,
    toolsFile: path.join(mcpDir, 'tools.json'),
    main: path.join(dist, 'generated/main.js'),
    index: path.join(dist, 'generated/index.js'),
    context: path.join(dist, 'generated/context.js'),
  };
}

export async function importGenerated(file) {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    throw new Error(`cannot import the compiled generated server ${file}: ${error.message}`, { cause: error });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Arguments: valid ones from each tool's input schema, invalid ones with field_0 of the wrong type.

const FORMAT_VALUES = {
  email: 'dev@example.com',
  uri: 'https://example.com/a/b',
  date: '2024-05-06',
  'date-time': '2024-05-06T07:08:09Z',
  uuid: '3f0e8a2c-5b7d-4e1a-9c3b-2d4f6a8b0c1e',
};

function validValue(s) {
  if (s.enum) return s.enum[s.enum.length - 1];
  switch (s.type) {
    case 'string':
      if (s.format) {
        if (!(s.format in FORMAT_VALUES)) throw new Error(`no sample value for format ${s.format}`);
        return FORMAT_VALUES[s.format];
      }
      return 'abcdefgh'.slice(0, Math.max(s.minLength ?? 0, Math.min(3, s.maxLength ?? 3)));
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 7, 7));
    case 'boolean':
      return !s.default;
    case 'array':
      return ['a', 'b'].slice(0, s.maxItems ?? 2).map(() => validValue(s.items ?? { type: 'string' }));
    case 'object':
      return validObject(s, Infinity);
    default:
      throw new Error(`no sample value for ${JSON.stringify(s)}`);
  }
}

/** The required properties, then others in order up to `max` in all. */
function validObject(s, max) {
  const out = {};
  const required = s.required ?? [];
  for (const k of required) out[k] = validValue(s.properties[k]);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (Object.keys(out).length >= max) break;
    if (!(k in out)) out[k] = validValue(p);
  }
  return out;
}

/** field_0 and two others (fewer when the tool has fewer), each valid; and the same with field_0 of a wrong type. */
export function argumentsFor(tool) {
  const valid = validObject(tool.inputSchema, 3);
  const f0 = tool.inputSchema.properties.field_0;
  const invalid = { ...valid, field_0: f0.type === 'string' ? 42 : 'not-a-' + f0.type };
  return { valid, invalid };
}

export function makeAjv() {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true });
  addFormats(ajv);
  return ajv;
}

// ---------------------------------------------------------------------------------------------------------------
// Raw JSON-RPC drivers, one per era (no SDK Client: its own parsing of results, and the validators it compiles for
// every output schema on tools/list, would be measured with the server).

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The headers every 2026-07-28 POST carries (Mcp-Name for tools/call). */
function modernHeaders(method, name) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

/** The JSON-RPC message of a response body: JSON, or the SSE event carrying the response. */
function parseResponseBody(contentType, text) {
  if (/json/.test(contentType ?? '')) return JSON.parse(text);
  if (/event-stream/.test(contentType ?? '')) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const m = JSON.parse(line.slice(5));
      if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) return m;
    }
  }
  throw new Error(`no JSON-RPC response in a ${contentType} body: ${text.slice(0, 200)}`);
}

function settle(m) {
  if (m.error) throw Object.assign(new Error(m.error.message), { code: m.error.code });
  return m.result;
}

/** 2025: a server instance from factory({ era: 'legacy' }) over InMemoryTransport, after the initialize handshake. */
export async function connectLegacy(factory) {
  const server = await factory({ era: 'legacy' });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map();
  let id = 0;
  client.onmessage = (m) => {
    if (!('id' in m) || m.id === undefined) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ('error' in m && m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else p.resolve('result' in m ? m.result : undefined);
  };
  await server.connect(serverSide);
  await client.start();
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const rid = ++id;
      pending.set(rid, { resolve, reject });
      client
        .send(params === undefined ? { jsonrpc: '2.0', id: rid, method } : { jsonrpc: '2.0', id: rid, method, params })
        .catch(reject);
    });
  const init = await request('initialize', {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: 'bench', version: '1.0.0' },
  });
  if (init.protocolVersion !== LEGACY) throw new Error(`initialize negotiated ${init.protocolVersion}, not ${LEGACY}`);
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, close: () => client.close() };
}

/** 2026-07-28: raw requests through createMcpHandler(factory).fetch in process, each a web Request, parsed back. */
export function connectModern(factory) {
  const handler = createMcpHandler(factory, {
    onerror: (error) => console.error('[bench] createMcpHandler:', error.message),
  });
  let id = 0;
  const request = async (method, params = {}) => {
    const res = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: modernHeaders(method, typeof params.name === 'string' ? params.name : undefined),
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: MODERN_META } }),
      }),
    );
    return settle(parseResponseBody(res.headers.get('content-type'), await res.text()));
  };
  return { request, close: () => handler.close() };
}

/** Seconds for `count` tools/call requests (params parsed fresh from JSON each time, cycling through `calls` from
 * `start`), `inflight` at a time; checks that each result's isError is as expected. */
export async function callBlock(conn, calls, start, count, inflight, expectError) {
  let next = 0;
  let wrong = 0;
  const worker = async () => {
    while (next < count) {
      const params = JSON.parse(calls[(start + next++) % calls.length]);
      const r = await conn.request('tools/call', params);
      if (Boolean(r.isError) !== expectError) wrong++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inflight }, worker));
  const s = (performance.now() - t0) / 1000;
  if (wrong) throw new Error(`${wrong} calls had isError ${!expectError}`);
  return s;
}

async function listOnce(conn, n) {
  const t0 = performance.now();
  const r = await conn.request('tools/list');
  const ms = performance.now() - t0;
  if (r.tools.length !== n) throw new Error(`tools/list gave ${r.tools.length} tools, not ${n}`);
  return ms;
}

/** A full garbage collection, so that one contestant's garbage is not collected in another's time. */
let gcFn;
function gc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  gcFn();
}

/**
 * Runs each contestant `blocks` times, interleaved (the order alternating block by block, a GC before each block),
 * so that a load change on the machine falls on all of them; `fns` maps a name to (block index) => seconds.
 * Returns name → total seconds.
 */
export async function interleave(blocks, fns, flip = 0) {
  const names = Object.keys(fns);
  const total = Object.fromEntries(names.map((n) => [n, 0]));
  for (let b = 0; b < blocks; b++) {
    for (const name of (b + flip) % 2 ? [...names].reverse() : names) {
      gc();
      total[name] += await fns[name](b);
    }
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Start-up and memory: a fresh process, spawned by the SDK's StdioClientTransport, a 2025 client or one pinned to
// 2026-07-28.

function vmRssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startup(entry, cwd, n, era) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  // From the spawn of the process that answers: a client pinned to 2026-07-28 first sends server/discover to a
  // disposable sibling process of its own, then starts this one, whose first request is tools/list.
  /** @type {number | undefined} */
  let t0;
  const start = transport.start.bind(transport);
  transport.start = () => {
    t0 = performance.now();
    return start();
  };
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion?.();
  if (version !== (era === 'modern' ? MODERN : LEGACY))
    throw new Error(`${entry}: the ${era} client negotiated ${version}`);
  /** @type {number | undefined} */
  let answered;
  let rss;
  const onmessage = transport.onmessage;
  transport.onmessage = (m) => {
    if (answered === undefined && 'result' in m && Array.isArray(m.result?.tools)) {
      answered = performance.now();
      rss = vmRssMiB(transport.pid);
    }
    onmessage.call(transport, m);
  };
  const r = await client.listTools();
  if (r.tools.length !== n) throw new Error(`${entry}: tools/list gave ${r.tools.length} tools, not ${n}`);
  await client.close();
  const convert = /convert-ms=([\d.]+)/.exec(stderr);
  return { ms: answered - t0, rss, convertMs: convert ? Number(convert[1]) : undefined };
}

// ---------------------------------------------------------------------------------------------------------------
// The dispatcher alone, and a minimal hand-written loop: request string in, response string out.

export async function makeLoops(gen, context, tools, ajv) {
  // The SDK's request context of an in-process call (2026-07-28), as the generated contract tests make it.
  const { sdk, connection } = context.localRequest();
  const handlerCtx = { signal: sdk.mcpReq.signal };
  const dispatcher = gen.createDispatcher({
    tools: gen.tools,
    bindings: await gen.loadBindings(),
    handlers: gen.handlers,
    onError: () => {},
  });
  const entries = new Map(
    tools.map((t) => [
      t.name,
      {
        validate: ajv.compile(t.inputSchema),
        output: t.outputSchema ? ajv.compile(t.outputSchema) : undefined,
        handler: gen.handlers[t.name],
      },
    ]),
  );
  let sink = 0;
  let wrong = 0;
  // Each: seconds for `count` requests of `reqs` from `start`; counts results whose isError is not as expected.
  const dispatch = async (reqs, start, count, expectError) => {
    const t0 = performance.now();
    for (let i = start; i < start + count; i++) {
      const req = JSON.parse(reqs[i % reqs.length]);
      const result = await dispatcher.callTool(req.params.name, req.params.arguments, sdk, connection);
      if (Boolean(result.isError) !== expectError) wrong++;
      sink += JSON.stringify({ jsonrpc: '2.0', id: req.id, result }).length;
    }
    return (performance.now() - t0) / 1000;
  };
  // The least a correct server does: look up, validate (defaults filled in), call, validate structured output.
  const loop = async (reqs, start, count, expectError) => {
    const t0 = performance.now();
    for (let i = start; i < start + count; i++) {
      const req = JSON.parse(reqs[i % reqs.length]);
      const e = entries.get(req.params.name);
      const args = req.params.arguments ?? {};
      let result;
      if (!e.validate(args)) {
        result = { content: [{ type: 'text', text: ajv.errorsText(e.validate.errors) }], isError: true };
      } else {
        const value = await e.handler(args, handlerCtx);
        if (e.output) {
          result = e.output(value)
            ? { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }
            : { content: [{ type: 'text', text: ajv.errorsText(e.output.errors) }], isError: true };
        } else {
          result = { content: [{ type: 'text', text: value }] };
        }
      }
      if (Boolean(result.isError) !== expectError) wrong++;
      sink += JSON.stringify({ jsonrpc: '2.0', id: req.id, result }).length;
    }
    return (performance.now() - t0) / 1000;
  };
  const check = () => {
    if (wrong) throw new Error(`${wrong} dispatched calls had an unexpected isError`);
    if (!sink) throw new Error('nothing was serialised');
  };
  return { dispatch, loop, check };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP serving: each server in its own process on 127.0.0.1, driven over real sockets (keep-alive) from here.

/** One POST over `agent`; resolves with the JSON-RPC result. */
function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(settle(parseResponseBody(res.headers['content-type'], Buffer.concat(chunks).toString('utf8'))));
          } catch (error) {
            reject(new Error(`HTTP ${res.statusCode}: ${error.message}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Seconds for `count` tools/call POSTs (cycling through `posts` from `start`), `inflight` at a time, over
 * keep-alive connections of the block's own (a server closes idle ones between blocks), opened before the clock
 * starts by one untimed request on each.
 */
async function httpBlock(url, posts, start, count, inflight) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inflight });
  let next = 0;
  let wrong = 0;
  const call = async (i) => {
    const p = posts[i % posts.length];
    const r = await post(agent, url, p.body, p.headers);
    if (r.isError) wrong++;
  };
  const worker = async () => {
    while (next < count) await call(start + next++);
  };
  try {
    await Promise.all(Array.from({ length: inflight }, (_, i) => call(start + i)));
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inflight }, worker));
    const s = (performance.now() - t0) / 1000;
    if (wrong) throw new Error(`${wrong} HTTP calls had isError`);
    return s;
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------------

const MODES = [
  { args: 'valid', inflight: 1 },
  { args: 'valid', inflight: INFLIGHT },
  { args: 'invalid', inflight: 1 },
  { args: 'invalid', inflight: INFLIGHT },
];
const HTTP_MODES = [1, HTTP_INFLIGHT];

/** Runs `fns` (an object of name → async fn) in an order that alternates with the run, returns name → result. */
async function alternate(i, fns) {
  const names = Object.keys(fns);
  const order = i % 2 ? [...names].reverse() : names;
  const out = {};
  for (const name of order) out[name] = await fns[name]();
  return out;
}

const byName = (names, f) => Object.fromEntries(names.map((name) => [name, f(name)]));

async function benchSize(n, runs, log) {
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const p = prepare(n);
  log(`server ${n}: project ready in ${elapsed()}`);
  const gen = await importGenerated(p.index);
  const context = await importGenerated(p.context);
  if (gen.tools.length !== n) throw new Error(`generated server has ${gen.tools.length} tools, not ${n}`);

  // Arguments, checked against ajv before use.
  const ajv = makeAjv();
  const calls = { valid: [], invalid: [] };
  const reqs = { valid: [], invalid: [] };
  const posts = [];
  for (const tool of p.tools) {
    const { valid, invalid } = argumentsFor(tool);
    const check = ajv.compile(tool.inputSchema);
    if (!check(structuredClone(valid)))
      throw new Error(`${tool.name}: sample arguments fail: ${ajv.errorsText(check.errors)}`);
    if (check(structuredClone(invalid))) throw new Error(`${tool.name}: invalid sample arguments pass`);
    for (const [kind, args] of [
      ['valid', valid],
      ['invalid', invalid],
    ]) {
      calls[kind].push(JSON.stringify({ name: tool.name, arguments: args }));
      reqs[kind].push(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } }),
      );
    }
    posts.push({
      headers: modernHeaders('tools/call', tool.name),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool.name, arguments: valid, _meta: MODERN_META },
      }),
    });
  }
  const loops = await makeLoops(gen, context, p.tools, ajv);

  // One factory per contestant, shared by both eras (as serveStdio shares it).
  const factories = {
    toolspec: gen.createServerFactory(gen.handlers, { onError: () => {} }),
    ...byName(FLAVOURS, (flavour) => mcpServerFactory(p.tools, flavour).factory),
    plain: plainServerFactory(p.tools),
  };
  const names = Object.keys(factories);
  const conns = {
    legacy: {},
    modern: byName(names, (name) => connectModern(factories[name])),
  };
  for (const name of names) conns.legacy[name] = await connectLegacy(factories[name]);
  const expectError = (server, kind) => kind === 'invalid' && server !== 'plain';
  // Every tool, every server, both eras: valid arguments succeed, invalid ones give isError (zod and the SDK's ajv
  // agree with toolspec's validators); then warm up.
  for (const era of ERAS) {
    for (const [name, conn] of Object.entries(conns[era])) {
      for (const kind of ['valid', 'invalid']) {
        await callBlock(conn, calls[kind], 0, calls[kind].length, 1, expectError(name, kind));
        await callBlock(conn, calls[kind], 0, CALLS[era] / 4, INFLIGHT, expectError(name, kind));
      }
      for (let j = 0; j < 3; j++) await listOnce(conn, n);
    }
  }
  for (const kind of ['valid', 'invalid']) {
    await loops.dispatch(reqs[kind], 0, 5000, kind === 'invalid');
    await loops.loop(reqs[kind], 0, 5000, kind === 'invalid');
  }
  log(`server ${n}: in-process servers ready and warm at ${elapsed()}`);

  // HTTP servers: the generated entry (serveHttp), McpServer behind createMcpHandler + toNodeHandler.
  const httpServers = {
    toolspec: await startServer([p.main, '--http', '--port', '0'], p.cwd),
    ...Object.fromEntries(
      await Promise.all(FLAVOURS.map(async (f) => [f, await startServer([p.httpEntry, f], p.cwd)])),
    ),
  };
  for (const s of Object.values(httpServers)) {
    await httpBlock(s.url, posts, 0, posts.length, 1);
    await httpBlock(s.url, posts, 0, HTTP_CALLS / 4, HTTP_INFLIGHT);
  }
  log(`server ${n}: HTTP servers ready and warm at ${elapsed()}`);

  const series = () => byName(PEERS, () => []);
  const m = {
    start: byName(ERAS, series),
    startNoConvert: byName(ERAS, () => byName(FLAVOURS, () => [])),
    rss: byName(ERAS, series),
    list: byName(ERAS, series),
    dispatch: { valid: [], invalid: [] },
    loop: { valid: [], invalid: [] },
    calls: byName(ERAS, () => MODES.map(() => byName(names, () => []))),
    http: HTTP_MODES.map(series),
  };
  const entries = { toolspec: p.main, ...p.stdio };
  for (let i = 0; i < runs; i++) {
    // Fresh processes, in alternating order.
    for (const era of ERAS) {
      const s = await alternate(
        i,
        byName(PEERS, (name) => () => startup(entries[name], p.cwd, n, era)),
      );
      for (const name of PEERS) {
        m.start[era][name].push(s[name].ms);
        m.rss[era][name].push(s[name].rss);
      }
      for (const f of FLAVOURS) m.startNoConvert[era][f].push(s[f].ms - (s[f].convertMs ?? NaN));
    }

    // tools/list: one McpServer call of each flavour, then as many toolspec calls, interleaved; the median of each.
    for (const era of ERAS) {
      const lists = series();
      const perBlock = LIST_CALLS.toolspec / LIST_CALLS.mcp;
      await interleave(
        LIST_CALLS.mcp,
        byName(PEERS, (name) => async () => {
          for (let j = 0; j < (name === 'toolspec' ? perBlock : 1); j++)
            lists[name].push(await listOnce(conns[era][name], n));
          return 0;
        }),
        i,
      );
      for (const name of PEERS) m.list[era][name].push(stats(lists[name]).median);
    }

    for (const era of ERAS) {
      for (const [k, mode] of MODES.entries()) {
        const per = CALLS[era] / BLOCKS;
        const secs = await interleave(
          BLOCKS,
          byName(
            names,
            (name) => (b) =>
              callBlock(conns[era][name], calls[mode.args], b * per, per, mode.inflight, expectError(name, mode.args)),
          ),
          i + k,
        );
        for (const name of names) m.calls[era][k][name].push(CALLS[era] / secs[name]);
      }
    }

    for (const kind of ['valid', 'invalid']) {
      const per = DISPATCH_CALLS / BLOCKS;
      const secs = await interleave(
        BLOCKS,
        {
          dispatch: (b) => loops.dispatch(reqs[kind], b * per, per, kind === 'invalid'),
          loop: (b) => loops.loop(reqs[kind], b * per, per, kind === 'invalid'),
        },
        i,
      );
      m.dispatch[kind].push(DISPATCH_CALLS / secs.dispatch);
      m.loop[kind].push(DISPATCH_CALLS / secs.loop);
    }

    for (const [k, inflight] of HTTP_MODES.entries()) {
      const per = HTTP_CALLS / BLOCKS;
      const secs = await interleave(
        BLOCKS,
        byName(
          PEERS,
          (name) => (b) =>
            httpBlock(httpServers[name].url, posts, b * per, per, inflight).catch((error) => {
              throw new Error(
                `HTTP ${name}: ${error.message}; the server's stderr:\n${httpServers[name].stderr().slice(-2000)}`,
              );
            }),
        ),
        i + k,
      );
      for (const name of PEERS) m.http[k][name].push(HTTP_CALLS / secs[name]);
    }
    log(`server ${n}: run ${i + 1}/${runs} done at ${elapsed()}`);
  }
  for (const era of ERAS) for (const conn of Object.values(conns[era])) await conn.close();
  for (const s of Object.values(httpServers)) await s.close();
  loops.check();

  // Rows: values (stats) and ratios of toolspec to each other contestant (pairRatio).
  const row = (fields, series, others = FLAVOURS) => ({
    n,
    ...fields,
    values: byName(Object.keys(series), (name) => stats(series[name])),
    ratios: byName(others, (name) => pairRatio(series.toolspec, series[name])),
  });
  const rows = [];
  for (const era of ERAS) {
    rows.push(
      row({ era, table: 'startup', metric: 'first tools/list (ms)' }, m.start[era]),
      row(
        { era, table: 'startup', metric: 'first tools/list, McpServer without its schema conversion time (ms)' },
        { toolspec: m.start[era].toolspec, ...m.startNoConvert[era] },
      ),
      row({ era, table: 'startup', metric: 'RSS after first tools/list (MiB)' }, m.rss[era]),
      row({ era, table: 'list', metric: 'warm tools/list latency (ms)' }, m.list[era]),
    );
  }
  for (const era of ERAS) {
    for (const [k, mode] of MODES.entries()) {
      rows.push(
        row(
          { era, table: 'calls', metric: 'tools/call (calls/s)', args: mode.args, inflight: mode.inflight },
          m.calls[era][k],
          [...FLAVOURS, 'plain'],
        ),
      );
    }
  }
  for (const kind of ['valid', 'invalid']) {
    rows.push(
      row(
        { table: 'dispatch', metric: 'dispatcher alone (calls/s)', args: kind },
        { toolspec: m.dispatch[kind], loop: m.loop[kind] },
        ['loop'],
      ),
    );
  }
  for (const [k, inflight] of HTTP_MODES.entries()) {
    rows.push(
      row({ era: 'modern', table: 'http', metric: 'HTTP tools/call (requests/s)', args: 'valid', inflight }, m.http[k]),
    );
  }
  return rows;
}

/**
 * Measures the generated server beside McpServer in both flavours (and the SDK's path without validation, and a
 * hand-written loop), for each size, on both eras. Returns rows: { n, era?: 'legacy'|'modern', table:
 * 'startup'|'list'|'calls'|'dispatch'|'http', metric, args?, inflight?, values: { toolspec, zod?, fromJsonSchema?,
 * plain?, loop? } (stats: median, min, max, runs), ratios: { zod?, fromJsonSchema?, plain?, loop? } (pairRatio of
 * toolspec to each) }.
 */
export async function benchServer({ sizes = [100, 500], runs = 5, log = (s) => console.error(s) } = {}) {
  const rows = [];
  for (const n of sizes) rows.push(...(await benchSize(n, runs, log)));
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// Tables.

const fmtMsFine = (ms) =>
  ms < 1
    ? `${(ms * 1000).toFixed(0)} µs`
    : ms < 10
      ? `${ms.toFixed(2)} ms`
      : ms < 1000
        ? `${ms.toFixed(0)} ms`
        : `${(ms / 1000).toFixed(2)} s`;
const fmtRate = (r) =>
  r >= 1e5 ? `${(r / 1000).toFixed(0)} k/s` : r >= 1000 ? `${(r / 1000).toFixed(1)} k/s` : `${r.toFixed(0)}/s`;
const fmtMiB = (m) => `${m.toFixed(0)} MiB`;
const withRange = (f) => (s) => (s ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : '');
const ratio = (r) => (r ? `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : '');
const unitOf = (metric) => (metric.includes('MiB') ? withRange(fmtMiB) : withRange(fmtMsFine));
const plainMetric = (metric) => metric.replace(/ \((ms|MiB|calls\/s|requests\/s)\)$/, '');

/** Markdown tables of benchServer's rows: start-up and memory, tools/list latency, tools/call throughput,
 * dispatcher, HTTP serving; `afterHttp` (bench/legacy-http.mjs's 2025 HTTP table) goes right after the HTTP one. */
export function serverTables(rows, afterHttp = '') {
  const out = [];
  out.push(
    "Start-up (process start to the first tools/list answer, over stdio with the SDK's v2 Client, a fresh process " +
      `each run; "2025": a default Client, which initializes with ${LEGACY}; "${MODERN}": a Client pinned to that ` +
      'revision, which probes with server/discover on a disposable sibling process of its own and then starts the ' +
      'measured one with tools/list as its first request), resident memory of that process just after it answered, and warm tools/list latency ' +
      'in process (2025: InMemoryTransport, which hands the result over without serialising it; 2026-07-28: ' +
      "createMcpHandler's fetch, a server instance built for the request and the response serialised). Every " +
      'entry serves both eras through the SDK\'s serveStdio. "without its schema conversion time": the McpServer ' +
      "figure less the time its entry spent making the schemas (z.fromJSONSchema; fromJsonSchema's ajv compiles), " +
      'which a server written in zod would spend otherwise. Lower is better; ratio < 1 means toolspec is lower.',
    '',
    '| tools | era | figure | toolspec | McpServer (zod) | McpServer (fromJsonSchema) | toolspec / zod | toolspec / fromJsonSchema |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'startup' || x.table === 'list')) {
    const f = unitOf(r.metric);
    out.push(
      `| ${r.n} | ${ERA_NAME[r.era]} | ${plainMetric(r.metric)} | ${f(r.values.toolspec)} | ${f(r.values.zod)} | ${f(r.values.fromJsonSchema)} | ${ratio(r.ratios.zod)} | ${ratio(r.ratios.fromJsonSchema)} |`,
    );
  }
  const f = withRange(fmtRate);
  out.push(
    '',
    `tools/call throughput in process, ${CALLS.legacy} calls per figure on 2025 and ${CALLS.modern} on ${MODERN}, ` +
      `cycling through every tool, one at a time or ` +
      `${INFLIGHT} in flight. 2025: over InMemoryTransport to a server instance from the contestant's factory ` +
      `({ era: 'legacy' }), after initialize. ${MODERN}: raw JSON-RPC requests (the revision's headers and _meta ` +
      "envelope) through the contestant's createMcpHandler(factory).fetch, each a web Request, its response parsed; " +
      'the SDK builds a server instance per request (for McpServer: every tool registered again). Invalid arguments: ' +
      'field_0 of the wrong type. "no validation": the SDK\'s low-level Server calling the handler on the raw ' +
      'arguments (for invalid ones too), the limit of the SDK path. Higher is better; ratio > 1 means toolspec is ' +
      'faster.',
    '',
    '| tools | era | arguments | in flight | toolspec | McpServer (zod) | McpServer (fromJsonSchema) | no validation | toolspec / zod | toolspec / fromJsonSchema | toolspec / no validation |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'calls')) {
    out.push(
      `| ${r.n} | ${ERA_NAME[r.era]} | ${r.args} | ${r.inflight} | ${f(r.values.toolspec)} | ${f(r.values.zod)} | ${f(r.values.fromJsonSchema)} | ${f(r.values.plain)} | ${ratio(r.ratios.zod)} | ${ratio(r.ratios.fromJsonSchema)} | ${ratio(r.ratios.plain)} |`,
    );
  }
  out.push(
    '',
    `HTTP serving throughput over real sockets: each server its own process on 127.0.0.1, the load from the ` +
      `benchmark's process over keep-alive connections (node:http), ${HTTP_CALLS} ${MODERN} tools/call requests per ` +
      `figure with valid arguments, each a separate POST with the revision's headers, one at a time or ` +
      `${HTTP_INFLIGHT} in flight. toolspec: the generated main.js --http (serveHttp: Host and Origin checks, the ` +
      '2025 leg routed off with isLegacyRequest, createMcpHandler). McpServer: createMcpHandler(factory) behind ' +
      "@modelcontextprotocol/node's toNodeHandler on node:http, with its localhostHostValidation and " +
      'localhostOriginValidation guards. Higher is better.',
    '',
    '| tools | in flight | toolspec (serveHttp) | McpServer (zod) | McpServer (fromJsonSchema) | toolspec / zod | toolspec / fromJsonSchema |',
    '|---|---|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'http')) {
    out.push(
      `| ${r.n} | ${r.inflight} | ${f(r.values.toolspec)} | ${f(r.values.zod)} | ${f(r.values.fromJsonSchema)} | ${ratio(r.ratios.zod)} | ${ratio(r.ratios.fromJsonSchema)} |`,
    );
  }
  if (afterHttp) out.push('', afterHttp);
  out.push(
    '',
    `The dispatcher alone, no transport: ${DISPATCH_CALLS} calls per figure, each a request string parsed, dispatched ` +
      '(with the request context of localRequest(), an in-process 2026-07-28 call) and its response serialised; the ' +
      'generated createDispatcher beside a hand-written loop (Map lookup, ajv Ajv2020 validator compiled at start-up ' +
      'with allErrors and useDefaults, the handler, output validated by ajv, ajv.errorsText for invalid arguments). ' +
      'Higher is better.',
    '',
    '| tools | arguments | toolspec dispatcher | hand-written loop | dispatcher / loop |',
    '|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'dispatch')) {
    out.push(`| ${r.n} | ${r.args} | ${f(r.values.toolspec)} | ${f(r.values.loop)} | ${ratio(r.ratios.loop)} |`);
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const sizes = process.env.SIZES ? process.env.SIZES.split(',').map(Number) : undefined;
  const rows = await benchServer({ runs: Number(process.env.RUNS ?? 5), ...(sizes ? { sizes } : {}) });
  console.log(serverTables(rows));
  console.error(`took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
