// The generated server at run time, beside the same tools on the SDK's high-level McpServer (zod schemas from
// z.fromJSONSchema of the same JSON Schemas, bench/mcp-server.mjs), for seeded synthetic specs (bench/synth.mjs)
// of 100 and 500 tools. Every figure is measured for both in the same run, alternating, pair by pair:
// 1. start-up: process start to the first tools/list answer, over stdio with the SDK's Client (fresh process each
//    run); 2. RSS of that process right after the answer (VmRSS from /proc); 3. warm tools/list latency in process
//    over InMemoryTransport; 4. tools/call throughput over InMemoryTransport (valid and invalid arguments, one call
//    at a time and 64 in flight), with a third server that calls the handler without validating: the limit of the
//    SDK's request path; 5. the generated dispatcher alone beside a minimal hand-written loop around ajv.
// `node bench/server.mjs` prints the tables (RUNS=5 by default).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import AjvModule from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { pairRatio, stats } from './lib.mjs';
import { buildMcpServer, makeHandler } from './mcp-server.mjs';
import { handlerSource, synthSpec, writeProject } from './synth.mjs';

const Ajv2020 = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/toolspec.js');
const work = path.join(root, 'bench/.work');

/** Calls per throughput figure (in BLOCKS interleaved blocks), per list-latency figure, per dispatcher figure. */
const CALLS = 4000;
const BLOCKS = 5;
const LIST_CALLS = { toolspec: 200, mcp: 10 };
const DISPATCH_CALLS = 20000;
const INFLIGHT = 64;

// ---------------------------------------------------------------------------------------------------------------
// Projects: the generated toolspec server, compiled; the McpServer entry.

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
    .readdirSync(src, { recursive: true })
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
      throw new Error(`${rel}: ${js.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`);
    }
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, js.outputText);
  }
  fs.writeFileSync(stampFile, JSON.stringify(next));
}

/** Generates and compiles the n-tool toolspec project; writes the McpServer entry. Returns paths and the spec. */
function prepare(n) {
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
  const helper = path.relative(mcpDir, path.join(root, 'bench/mcp-server.mjs')).split(path.sep).join('/');
  const entry = path.join(mcpDir, 'main.mjs');
  const entrySource = `// McpServer entry for bench/server.mjs: ${n} tools, zod schemas from z.fromJSONSchema, stdio.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildMcpServer } from '${helper}';

const tools = JSON.parse(${JSON.stringify(JSON.stringify(tools))});
const { server, convertMs } = buildMcpServer(tools, { name: 'bench-${n}', version: '1.0.0' });
process.stderr.write(\`convert-ms=\${convertMs}\\n\`);
await server.connect(new StdioServerTransport());
`;
  if (!fs.existsSync(entry) || fs.readFileSync(entry, 'utf8') !== entrySource) fs.writeFileSync(entry, entrySource);
  return { n, spec, tools, main: path.join(dist, 'generated/main.js'), index: path.join(dist, 'generated/index.js'), entry, cwd: base };
}

async function importGenerated(file) {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    throw new Error(`cannot import the compiled generated server ${file}: ${error.message}`);
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

function makeAjv() {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true });
  addFormats(ajv);
  return ajv;
}

// ---------------------------------------------------------------------------------------------------------------
// Servers and a raw JSON-RPC driver over InMemoryTransport (no SDK Client: its own zod parsing of results, and the
// ajv validators it compiles for every output schema on tools/list, would be measured with the server).

/** The SDK's low-level Server calling the handler on the raw arguments: no validation at all. */
function buildPlainServer(tools) {
  const server = new Server({ name: 'bench-plain', version: '1.0.0' }, { capabilities: { tools: {} } });
  const handlers = new Map(tools.map((t) => [t.name, makeHandler(t)]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    handlers.get(request.params.name)(request.params.arguments ?? {}),
  );
  return server;
}

async function connectRaw(server) {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map();
  let id = 0;
  client.onmessage = (m) => {
    const p = m.id === undefined ? undefined : pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else p.resolve(m.result);
  };
  await server.connect(serverSide);
  await client.start();
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const rid = ++id;
      pending.set(rid, { resolve, reject });
      client.send(params === undefined ? { jsonrpc: '2.0', id: rid, method } : { jsonrpc: '2.0', id: rid, method, params }).catch(reject);
    });
  await request('initialize', {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench', version: '1.0.0' },
  });
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, close: () => client.close() };
}

/** Seconds for `count` tools/call requests (params parsed fresh from JSON each time, cycling through `calls` from
 * `start`), `inflight` at a time; checks that each result's isError is as expected. */
async function callBlock(conn, calls, start, count, inflight, expectError) {
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
async function interleave(blocks, fns, flip = 0) {
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
// Start-up and memory: a fresh process, spawned by the SDK's StdioClientTransport.

function vmRssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startup(entry, cwd, n) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const t0 = performance.now();
  await client.connect(transport);
  let answered;
  let rss;
  const onmessage = transport.onmessage;
  transport.onmessage = (m) => {
    if (answered === undefined && Array.isArray(m.result?.tools)) {
      answered = performance.now();
      rss = vmRssMiB(transport.pid);
    }
    onmessage.call(transport, m);
  };
  const r = await client.request({ method: 'tools/list' }, ListToolsResultSchema);
  if (r.tools.length !== n) throw new Error(`${entry}: tools/list gave ${r.tools.length} tools, not ${n}`);
  await client.close();
  const convert = /convert-ms=([\d.]+)/.exec(stderr);
  return { ms: answered - t0, rss, convertMs: convert ? Number(convert[1]) : undefined };
}

// ---------------------------------------------------------------------------------------------------------------
// The dispatcher alone, and a minimal hand-written loop: request string in, response string out.

function minimalContext() {
  const signal = new AbortController().signal;
  const none = async () => {
    throw new Error('not available in the benchmark');
  };
  return {
    toolName: '',
    signal,
    requestId: 1,
    sessionId: undefined,
    authInfo: undefined,
    headers: undefined,
    progress: async () => {},
    log: async () => {},
    sample: none,
    elicit: none,
    extra: {},
  };
}

async function makeLoops(gen, tools, ajv) {
  const ctx = minimalContext();
  const dispatcher = gen.createDispatcher({ tools: gen.tools, bindings: await gen.loadBindings(), handlers: gen.handlers, onError: () => {} });
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
      const result = await dispatcher.callTool(req.params.name, req.params.arguments, ctx);
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
        const value = await e.handler(args, ctx);
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

const MODES = [
  { args: 'valid', inflight: 1 },
  { args: 'valid', inflight: INFLIGHT },
  { args: 'invalid', inflight: 1 },
  { args: 'invalid', inflight: INFLIGHT },
];

/** Runs `fns` (an object of name → async fn) in an order that alternates with the run, returns name → result. */
async function alternate(i, fns) {
  const names = Object.keys(fns);
  const order = i % 2 ? [...names].reverse() : names;
  const out = {};
  for (const name of order) out[name] = await fns[name]();
  return out;
}

async function benchSize(n, runs, log) {
  const t0 = performance.now();
  const p = prepare(n);
  log(`server ${n}: project ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const gen = await importGenerated(p.index);
  if (gen.tools.length !== n) throw new Error(`generated server has ${gen.tools.length} tools, not ${n}`);

  // Arguments, checked against ajv before use.
  const ajv = makeAjv();
  const calls = { valid: [], invalid: [] };
  const reqs = { valid: [], invalid: [] };
  for (const tool of p.tools) {
    const { valid, invalid } = argumentsFor(tool);
    const check = ajv.compile(tool.inputSchema);
    if (!check(structuredClone(valid))) throw new Error(`${tool.name}: sample arguments fail: ${ajv.errorsText(check.errors)}`);
    if (check(structuredClone(invalid))) throw new Error(`${tool.name}: invalid sample arguments pass`);
    for (const [kind, args] of [['valid', valid], ['invalid', invalid]]) {
      calls[kind].push(JSON.stringify({ name: tool.name, arguments: args }));
      reqs[kind].push(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } }));
    }
  }
  const loops = await makeLoops(gen, p.tools, ajv);

  const servers = {
    toolspec: await connectRaw(gen.createServer(gen.handlers, { onError: () => {} })),
    mcp: await connectRaw(buildMcpServer(p.tools).server),
    plain: await connectRaw(buildPlainServer(p.tools)),
  };
  const expectError = (server, kind) => kind === 'invalid' && server !== 'plain';
  // Every tool, every server: valid arguments succeed, invalid ones give isError (zod agrees with ajv); then warm up.
  for (const [name, conn] of Object.entries(servers)) {
    for (const kind of ['valid', 'invalid']) {
      await callBlock(conn, calls[kind], 0, calls[kind].length, 1, expectError(name, kind));
      await callBlock(conn, calls[kind], 0, 2000, INFLIGHT, expectError(name, kind));
    }
    for (let j = 0; j < 3; j++) await listOnce(conn, n);
  }
  for (const kind of ['valid', 'invalid']) {
    await loops.dispatch(reqs[kind], 0, 5000, kind === 'invalid');
    await loops.loop(reqs[kind], 0, 5000, kind === 'invalid');
  }
  log(`server ${n}: servers ready and warm at ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const m = {
    startToolspec: [], startMcp: [], startMcpNoConvert: [], rssToolspec: [], rssMcp: [],
    listToolspec: [], listMcp: [],
    dispatch: { valid: [], invalid: [] }, loop: { valid: [], invalid: [] },
    calls: MODES.map(() => ({ toolspec: [], mcp: [], plain: [] })),
  };
  for (let i = 0; i < runs; i++) {
    // Fresh processes, the pair in alternating order.
    const s = await alternate(i, {
      toolspec: () => startup(p.main, p.cwd, n),
      mcp: () => startup(p.entry, p.cwd, n),
    });
    m.startToolspec.push(s.toolspec.ms);
    m.startMcp.push(s.mcp.ms);
    m.startMcpNoConvert.push(s.mcp.ms - (s.mcp.convertMs ?? NaN));
    m.rssToolspec.push(s.toolspec.rss);
    m.rssMcp.push(s.mcp.rss);

    // tools/list: one McpServer call, then as many toolspec calls, interleaved; the median of each.
    const lists = { toolspec: [], mcp: [] };
    const perBlock = LIST_CALLS.toolspec / LIST_CALLS.mcp;
    await interleave(LIST_CALLS.mcp, {
      toolspec: async () => {
        for (let j = 0; j < perBlock; j++) lists.toolspec.push(await listOnce(servers.toolspec, n));
        return 0;
      },
      mcp: async () => {
        lists.mcp.push(await listOnce(servers.mcp, n));
        return 0;
      },
    }, i);
    m.listToolspec.push(stats(lists.toolspec).median);
    m.listMcp.push(stats(lists.mcp).median);

    for (const [k, mode] of MODES.entries()) {
      const per = CALLS / BLOCKS;
      const secs = await interleave(BLOCKS, Object.fromEntries(
        Object.entries(servers).map(([name, conn]) => [
          name,
          (b) => callBlock(conn, calls[mode.args], b * per, per, mode.inflight, expectError(name, mode.args)),
        ]),
      ), i + k);
      for (const name of Object.keys(servers)) m.calls[k][name].push(CALLS / secs[name]);
    }

    for (const kind of ['valid', 'invalid']) {
      const per = DISPATCH_CALLS / BLOCKS;
      const secs = await interleave(BLOCKS, {
        dispatch: (b) => loops.dispatch(reqs[kind], b * per, per, kind === 'invalid'),
        loop: (b) => loops.loop(reqs[kind], b * per, per, kind === 'invalid'),
      }, i);
      m.dispatch[kind].push(DISPATCH_CALLS / secs.dispatch);
      m.loop[kind].push(DISPATCH_CALLS / secs.loop);
    }
    log(`server ${n}: run ${i + 1}/${runs} done at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  for (const conn of Object.values(servers)) await conn.close();
  loops.check();

  const rows = [
    { n, table: 'startup', metric: 'first tools/list (ms)', toolspec: stats(m.startToolspec), mcp: stats(m.startMcp), ratioMcp: pairRatio(m.startToolspec, m.startMcp) },
    { n, table: 'startup', metric: 'first tools/list, McpServer without its z.fromJSONSchema time (ms)', toolspec: stats(m.startToolspec), mcp: stats(m.startMcpNoConvert), ratioMcp: pairRatio(m.startToolspec, m.startMcpNoConvert) },
    { n, table: 'startup', metric: 'RSS after first tools/list (MiB)', toolspec: stats(m.rssToolspec), mcp: stats(m.rssMcp), ratioMcp: pairRatio(m.rssToolspec, m.rssMcp) },
    { n, table: 'list', metric: 'warm tools/list latency (ms)', toolspec: stats(m.listToolspec), mcp: stats(m.listMcp), ratioMcp: pairRatio(m.listToolspec, m.listMcp) },
  ];
  for (const [k, mode] of MODES.entries()) {
    const c = m.calls[k];
    rows.push({
      n, table: 'calls', metric: 'tools/call (calls/s)', args: mode.args, inflight: mode.inflight,
      toolspec: stats(c.toolspec), mcp: stats(c.mcp), plain: stats(c.plain),
      ratioMcp: pairRatio(c.toolspec, c.mcp), ratioPlain: pairRatio(c.toolspec, c.plain),
    });
  }
  for (const kind of ['valid', 'invalid']) {
    rows.push({
      n, table: 'dispatch', metric: 'dispatcher alone (calls/s)', args: kind,
      toolspec: stats(m.dispatch[kind]), loop: stats(m.loop[kind]), ratioLoop: pairRatio(m.dispatch[kind], m.loop[kind]),
    });
  }
  return rows;
}

/**
 * Measures the generated server beside McpServer (and the SDK's path without validation, and a hand-written loop),
 * for each size. Returns rows: { n, table: 'startup'|'list'|'calls'|'dispatch', metric, args?, inflight?,
 * toolspec, mcp?, plain?, loop? (stats: median, min, max, runs), ratioMcp?, ratioPlain?, ratioLoop? (pairRatio) }.
 */
export async function benchServer({ sizes = [100, 500], runs = 5, log = (s) => console.error(s) } = {}) {
  const rows = [];
  for (const n of sizes) rows.push(...(await benchSize(n, runs, log)));
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// Tables.

const fmtMsFine = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 10 ? `${ms.toFixed(2)} ms` : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const fmtRate = (r) => (r >= 1e5 ? `${(r / 1000).toFixed(0)} k/s` : `${(r / 1000).toFixed(1)} k/s`);
const fmtMiB = (m) => `${m.toFixed(0)} MiB`;
const withRange = (f) => (s) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
const ratio = (r) => (r ? `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : '');
const unitOf = (metric) => (metric.includes('MiB') ? withRange(fmtMiB) : withRange(fmtMsFine));
const plainMetric = (metric) => metric.replace(/ \((ms|MiB|calls\/s)\)$/, '');

/** Markdown tables of benchServer's rows: start-up and memory, tools/list latency, tools/call throughput, dispatcher. */
export function serverTables(rows) {
  const out = [];
  const startup = rows.filter((r) => r.table === 'startup' || r.table === 'list');
  out.push(
    'Start-up (process start to the first tools/list answer, over stdio with the SDK Client, a fresh process each run), ' +
      'resident memory of that process just after it answered, and warm tools/list latency in process ' +
      '(InMemoryTransport, which hands the result over without serialising it; stdio adds a JSON.stringify of the ' +
      'payload to both). "without its z.fromJSONSchema time": the McpServer figure less the time its entry spent ' +
      'converting JSON Schemas to zod, which a server written in zod would spend otherwise. Lower is better; ratio ' +
      '< 1 means toolspec is lower.',
    '',
    '| tools | figure | toolspec | McpServer (zod) | toolspec / McpServer |',
    '|---|---|---|---|---|',
  );
  for (const r of startup) {
    const f = unitOf(r.metric);
    out.push(`| ${r.n} | ${plainMetric(r.metric)} | ${f(r.toolspec)} | ${f(r.mcp)} | ${ratio(r.ratioMcp)} |`);
  }
  const f = withRange(fmtRate);
  out.push(
    '',
    `tools/call throughput over InMemoryTransport, ${CALLS} calls per figure cycling through every tool, one at a time ` +
      `or ${INFLIGHT} in flight. Invalid arguments: field_0 of the wrong type. "no validation": the SDK's low-level ` +
      'Server calling the handler on the raw arguments (for invalid ones too), the limit of the SDK path. Higher is ' +
      'better; ratio > 1 means toolspec is faster.',
    '',
    '| tools | arguments | in flight | toolspec | McpServer (zod) | no validation | toolspec / McpServer | toolspec / no validation |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'calls')) {
    out.push(`| ${r.n} | ${r.args} | ${r.inflight} | ${f(r.toolspec)} | ${f(r.mcp)} | ${f(r.plain)} | ${ratio(r.ratioMcp)} | ${ratio(r.ratioPlain)} |`);
  }
  out.push(
    '',
    `The dispatcher alone, no transport: ${DISPATCH_CALLS} calls per figure, each a request string parsed, dispatched ` +
      'and its response serialised; the generated createDispatcher beside a hand-written loop (Map lookup, ajv ' +
      'Ajv2020 validator compiled at start-up with allErrors and useDefaults, the handler, output validated by ajv, ' +
      'ajv.errorsText for invalid arguments). Higher is better.',
    '',
    '| tools | arguments | toolspec dispatcher | hand-written loop | dispatcher / loop |',
    '|---|---|---|---|---|',
  );
  for (const r of rows.filter((x) => x.table === 'dispatch')) {
    out.push(`| ${r.n} | ${r.args} | ${f(r.toolspec)} | ${f(r.loop)} | ${ratio(r.ratioLoop)} |`);
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
