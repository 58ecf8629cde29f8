// The 2025 HTTP rows of the server section: the generated server on the 2025-11-25 wire over Streamable HTTP beside
// the SDK v2's McpServer behind the SDK's Node Streamable HTTP transport, over real sockets on 127.0.0.1.
// - The project: the server section's seeded synthetic spec (bench/server.mjs prepare, 500 tools), generated and
//   compiled; served as a user serves it, its main.js --http (serveHttp), and main.js --http --stateless.
// - The peers: McpServer with the same tools in both flavours of bench/mcp-server.mjs (zod schemas from
//   z.fromJSONSchema, and the SDK's fromJsonSchema), behind NodeStreamableHTTPServerTransport on node:http
//   (bench/mcp-http-legacy.mjs): sessionful, a transport and a server per session (sessionIdGenerator); stateless, a
//   server and a transport per request (sessionIdGenerator: undefined).
// - The load: raw JSON-RPC from this process (no SDK client). A client is a keep-alive connection of its own that
//   sends initialize (2025-11-25) and notifications/initialized once, untimed, then tools/call requests with valid
//   arguments, each a separate POST carrying MCP-Protocol-Version and, sessionful, its Mcp-Session-Id; 1, 16 or 64
//   clients at once, one request in flight each, cycling through every tool. After a block each sessionful client
//   ends its session with DELETE, untimed.
// - Each server its own process; per figure BLOCKS blocks with the three sides in rotation (a full GC of this
//   process before each block), RUNS iterations; calls/s, and p50/p99 of each call's latency as the client saw it;
//   the ratio generated / McpServer pair by pair within each iteration.
//
//   npm run build && node bench/legacy-http.mjs         (the table alone; RUNS=5 by default)
//   SERVER_ROWS=2025-http node bench/run.mjs server      (these rows into RESULTS.md, the server section's other rows
//                                                         kept from bench/results.json)
//   node bench/legacy-http.mjs profile [sessionful|stateless] [in flight, default 16] [calls, default 20000] [side]
//                                   (one server alone under node --cpu-prof, then where its time went; side:
//                                   toolspec, the default, or zod or fromJsonSchema for an McpServer peer, or the
//                                   folder of another build of the project)
//   node bench/legacy-http.mjs ab <sessionful|stateless> <in flight> <blocks> <calls> <side>...
//                                  (an A/B: the sides in interleaved blocks, each block's server CPU per call from
//                                   /proc beside calls/s, and the ratios to the first side block by block; a side
//                                   is toolspec, zod, fromJsonSchema or the folder of another build, a copy of
//                                   .work/server-500/dist with a changed runtime; AB_GC=1 adds each server's GC)
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

import { fileURLToPath, pathToFileURL } from 'node:url';
import { regionOf, summarizeProfile } from './cpuprofile.mjs';
import { pairRatio, startServer, stats } from './lib.mjs';
import { FLAVOURS } from './mcp-server.mjs';
import { argumentsFor, LEGACY, prepare } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const work = path.join(here, '.work');
const peerEntry = path.join(here, 'mcp-http-legacy.mjs');

export const MODES = ['sessionful', 'stateless'];
export const INFLIGHTS = [1, 16, 64];
/**
 * Calls per figure and side (in BLOCKS blocks), by mode: fewer stateless, where McpServer builds a server and
 * registers every tool for each request (~150 calls/s at 500 tools).
 */
const CALLS = { sessionful: 1500, stateless: 500 };
const BLOCKS = 5;
const SIDES = ['toolspec', ...FLAVOURS];
export const SIDE_NAME = {
  toolspec: 'toolspec (serveHttp)',
  zod: 'McpServer (zod)',
  fromJsonSchema: 'McpServer (fromJsonSchema)',
};
/** The issue's target for every 2025 HTTP calls/s ratio, and what it is done at. */
export const LEGACY_HTTP_TARGET = 1.1;
export const LEGACY_HTTP_DONE = 1.0;

// ---------------------------------------------------------------------------------------------------------------
// Servers.

/** The command line of each side's server in `mode`. */
function serverArgs(p, side, mode) {
  if (side === 'toolspec') return [p.main, '--http', '--port', '0', ...(mode === 'stateless' ? ['--stateless'] : [])];
  return [peerEntry, p.toolsFile, side, mode];
}

// ---------------------------------------------------------------------------------------------------------------
// The load: 2025 clients as raw JSON-RPC over keep-alive connections.

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** One request over `agent`: { status, headers, text }. */
function send(agent, url, method, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC response a body carries: JSON, or the SSE event with it (a priming event's empty data skipped). */
function responseOf(r) {
  const type = String(r.headers['content-type'] ?? '');
  try {
    if (type.includes('json')) return JSON.parse(r.text);
    if (type.includes('event-stream')) {
      for (const line of r.text.split('\n')) {
        if (!line.startsWith('data:') || !line.slice(5).trim()) continue;
        const m = JSON.parse(line.slice(5));
        if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) return m;
      }
    }
  } catch {
    // not JSON: the caller reports the status and body
  }
  return undefined;
}

const failure = (what, r) => new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);

/**
 * A 2025 client on a keep-alive connection of its own: initialize and notifications/initialized (untimed), a
 * session id kept when `mode` is sessionful (and none expected stateless). call(params) posts a tools/call and
 * checks that it succeeded; close() ends the session (DELETE) and the connection.
 */
async function openClient(url, mode) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const init = await send(agent, url, 'POST', INITIALIZE, BASE_HEADERS);
  const version = responseOf(init)?.result?.protocolVersion;
  if (init.status !== 200 || version !== LEGACY) throw failure(`initialize (negotiated ${version})`, init);
  const sid = init.headers['mcp-session-id'];
  if ((mode === 'sessionful') !== (typeof sid === 'string'))
    throw new Error(`initialize, ${mode}: the answer had ${sid === undefined ? 'no' : 'a'} Mcp-Session-Id`);
  const headers = { ...BASE_HEADERS, 'mcp-protocol-version': LEGACY, ...(sid ? { 'mcp-session-id': sid } : {}) };
  const note = await send(agent, url, 'POST', INITIALIZED, headers);
  if (note.status !== 202) throw failure('notifications/initialized', note);
  let id = 0;
  return {
    async call(params) {
      const r = await send(
        agent,
        url,
        'POST',
        `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":${params}}`,
        headers,
      );
      const result = responseOf(r)?.result;
      if (r.status !== 200 || !result || result.isError) throw failure(`tools/call ${params.slice(0, 80)}`, r);
    },
    async close() {
      try {
        if (sid) {
          const r = await send(agent, url, 'DELETE', undefined, headers);
          if (r.status !== 200) throw failure('DELETE of the session', r);
        }
      } finally {
        agent.destroy();
      }
    },
  };
}

/**
 * Seconds for `count` tools/call requests (cycling through `calls`, the params JSON of each tool, from `start`) by
 * `inflight` clients, each opened before the clock starts with one untimed call; each call's latency (ms) is pushed
 * to `latencies`. The clients' sessions are ended after the clock stops.
 */
async function block(url, mode, calls, start, count, inflight, latencies) {
  const opened = await Promise.allSettled(Array.from({ length: inflight }, () => openClient(url, mode)));
  const clients = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const timed = async () => {
    const refused = opened.find((o) => o.status === 'rejected');
    if (refused) throw refused.reason;
    await Promise.all(clients.map((c, i) => c.call(calls[(start + i) % calls.length])));
    let next = 0;
    const worker = async (client) => {
      while (next < count) {
        const params = calls[(start + next++) % calls.length];
        const t0 = performance.now();
        await client.call(params);
        latencies.push(performance.now() - t0);
      }
    };
    const t0 = performance.now();
    await Promise.all(clients.map(worker));
    return (performance.now() - t0) / 1000;
  };
  // Every client is closed after the block, whatever happened; the block's own failure first, then a close's.
  const [secs] = await Promise.allSettled([timed()]);
  const closed = await Promise.allSettled(clients.map((c) => c.close()));
  const failed = [secs, ...closed].find((c) => c.status === 'rejected');
  if (failed) throw failed.reason;
  return /** @type {PromiseFulfilledResult<number>} */ (secs).value;
}

/** A full garbage collection of this process, so that one side's garbage is not collected in another's time. */
let gcFn;
function gc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  gcFn();
}

/**
 * Runs each side `blocks` times, the order rotating block by block (so that each side runs first, second and third
 * as often), a GC before each block; `fns` maps a side to (block index) => seconds. Returns side → total seconds.
 */
async function rotate(blocks, fns, shift = 0) {
  const names = Object.keys(fns);
  const total = Object.fromEntries(names.map((n) => [n, 0]));
  for (let b = 0; b < blocks; b++) {
    const k = (b + shift) % names.length;
    for (const name of [...names.slice(k), ...names.slice(0, k)]) {
      gc();
      total[name] += await fns[name](b);
    }
  }
  return total;
}

/** The nearest-rank percentile p (0–1) of `values`. */
function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)];
}

/** The params JSON of a tools/call with valid arguments for every tool. */
function callsOf(tools) {
  return tools.map((tool) => JSON.stringify({ name: tool.name, arguments: argumentsFor(tool).valid }));
}

/** Every tool once through one client (each must answer without isError), then a block at each concurrency. */
async function warm(url, mode, calls) {
  const client = await openClient(url, mode);
  try {
    for (const params of calls) await client.call(params);
  } finally {
    await client.close();
  }
  for (const inflight of INFLIGHTS)
    await block(url, mode, calls, 0, Math.max(2 * inflight, CALLS[mode] / 10), inflight, []);
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Measures the 2025 HTTP rows. Returns rows: { n, era: 'legacy', table: 'http-2025', mode: 'sessionful'|'stateless',
 * inflight, metric: 'calls/s'|'p50 (ms)'|'p99 (ms)', values: { toolspec, zod, fromJsonSchema } (stats: median, min,
 * max, runs), ratios: { zod, fromJsonSchema } (pairRatio of toolspec to each) }.
 */
export async function benchLegacyHttp({ n = 500, runs = 5, log = (s) => console.error(s) } = {}) {
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const p = prepare(n);
  const calls = callsOf(p.tools);
  log(`2025 HTTP ${n}: project ready in ${elapsed()}`);
  const servers = Object.fromEntries(MODES.map((mode) => [mode, {}]));
  try {
    // All six at once; every one that started is closed below, whichever failed.
    const started = await Promise.allSettled(
      MODES.flatMap((mode) =>
        SIDES.map(async (side) => (servers[mode][side] = await startServer(serverArgs(p, side, mode), p.cwd))),
      ),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    for (const mode of MODES) for (const side of SIDES) await warm(servers[mode][side].url, mode, calls);
    log(`2025 HTTP ${n}: servers ready and warm at ${elapsed()}`);
    const series = () => Object.fromEntries(SIDES.map((s) => [s, []]));
    const m = Object.fromEntries(
      MODES.map((mode) => [mode, INFLIGHTS.map(() => ({ rate: series(), p50: series(), p99: series() }))]),
    );
    for (let i = 0; i < runs; i++) {
      for (const mode of MODES) {
        for (const [k, inflight] of INFLIGHTS.entries()) {
          const per = CALLS[mode] / BLOCKS;
          const latencies = series();
          const fns = Object.fromEntries(
            SIDES.map((side) => [
              side,
              (b) =>
                block(servers[mode][side].url, mode, calls, b * per, per, inflight, latencies[side]).catch((e) => {
                  throw new Error(
                    `2025 HTTP ${mode} ${side}: ${e.message}; the server's stderr:\n${servers[mode][side].stderr().slice(-2000)}`,
                  );
                }),
            ]),
          );
          const secs = await rotate(BLOCKS, fns, i + k);
          for (const side of SIDES) {
            m[mode][k].rate[side].push(CALLS[mode] / secs[side]);
            m[mode][k].p50[side].push(percentile(latencies[side], 0.5));
            m[mode][k].p99[side].push(percentile(latencies[side], 0.99));
          }
        }
      }
      log(`2025 HTTP ${n}: run ${i + 1}/${runs} done at ${elapsed()}`);
    }
    const rows = [];
    for (const mode of MODES) {
      for (const [k, inflight] of INFLIGHTS.entries()) {
        for (const [key, metric] of [
          ['rate', 'calls/s'],
          ['p50', 'p50 (ms)'],
          ['p99', 'p99 (ms)'],
        ]) {
          const s = m[mode][k][key];
          rows.push({
            n,
            era: 'legacy',
            table: 'http-2025',
            mode,
            inflight,
            metric,
            values: Object.fromEntries(SIDES.map((side) => [side, stats(s[side])])),
            ratios: Object.fromEntries(FLAVOURS.map((f) => [f, pairRatio(s.toolspec, s[f])])),
          });
        }
      }
    }
    return rows;
  } finally {
    for (const mode of MODES) for (const s of Object.values(servers[mode])) await s.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The table.

const fmtRate = (r) =>
  r >= 1e5 ? `${(r / 1000).toFixed(0)} k/s` : r >= 1000 ? `${(r / 1000).toFixed(1)} k/s` : `${r.toFixed(0)}/s`;
const fmtMs = (ms) =>
  ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 100 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
const withRange = (f) => (s) => (s ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : '');
const ratio = (r) => (r ? `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : '');

/** The Markdown table of benchLegacyHttp's rows (those of table 'http-2025' among `rows`); '' when there are none. */
export function legacyHttpTables(rows) {
  const mine = rows.filter((r) => r.table === 'http-2025');
  if (!mine.length) return '';
  const out = [
    `The same over the 2025 wire (${LEGACY}): HTTP serving throughput over real sockets, each server its own ` +
      `process on 127.0.0.1, the load from the benchmark's process. A client is a keep-alive connection (node:http) ` +
      'of its own that sends initialize and notifications/initialized once, untimed, then tools/call requests with ' +
      'valid arguments cycling through every tool, each a separate POST with MCP-Protocol-Version and (sessionful) ' +
      `its Mcp-Session-Id; 1, 16 or 64 clients at once, one request in flight each; sessionful clients end their ` +
      `session with DELETE after each block, untimed. ${CALLS.sessionful} calls per figure sessionful, ` +
      `${CALLS.stateless} stateless, in ${BLOCKS} blocks with the sides in rotation. toolspec: the generated ` +
      "main.js --http (serveHttp; sessionful by default: a session per initialize on the SDK's web-standard " +
      "transport, with the resumable-stream event store on; --stateless: the SDK's per-request legacy fallback " +
      "of createMcpHandler). McpServer: the SDK's NodeStreamableHTTPServerTransport on node:http " +
      '(bench/mcp-http-legacy.mjs), sessionful a transport and a server per session (sessionIdGenerator), stateless ' +
      'a server and a transport per request (sessionIdGenerator: undefined), with the localhostHostValidation and ' +
      "localhostOriginValidation guards. p50/p99: each call's latency as its client saw it, over the figure's calls " +
      'of an iteration. Higher calls/s is better (ratio > 1: toolspec faster), lower latency (ratio < 1: toolspec ' +
      `answers sooner); the target: toolspec / McpServer ≥ ${LEGACY_HTTP_TARGET} in calls/s on every row (done at ` +
      `≥ ${LEGACY_HTTP_DONE.toFixed(1)}). Only these rows: \`SERVER_ROWS=2025-http node bench/run.mjs server\` ` +
      '(~4 minutes).',
    '',
    `| tools | 2025 mode | in flight | figure | ${SIDE_NAME.toolspec} | ${SIDE_NAME.zod} | ${SIDE_NAME.fromJsonSchema} | toolspec / zod | toolspec / fromJsonSchema |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of mine) {
    const f = withRange(r.metric === 'calls/s' ? fmtRate : fmtMs);
    out.push(
      `| ${r.n} | ${r.mode} | ${r.inflight} | ${r.metric.replace(' (ms)', '')} | ${f(r.values.toolspec)} | ${f(r.values.zod)} | ${f(r.values.fromJsonSchema)} | ${ratio(r.ratios.zod)} | ${ratio(r.ratios.fromJsonSchema)} |`,
    );
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Profile: the generated server alone under node --cpu-prof, driven at one concurrency, then summarised.

/**
 * Synchronous stretches of the 2025 path by inclusive time (a sample counts for a group when a frame of the group
 * is on its stack). Async functions lose their callers after an await, so these undercount; the layers below do not.
 * @type {[string, (frame: { name: string, url: string, line: number }) => boolean][]}
 */
export const PROFILE_GROUPS = [
  [
    'Host/Origin checks (validateHostHeader, validateOriginHeader)',
    (f) => /^validate(Host|Origin)Header$/.test(f.name),
  ],
  ["Node request → web Request (toNodeHandler's toWebRequest)", (f) => f.name === 'toWebRequest'],
  ['era routing, synchronous part (classifyInboundRequest)', (f) => f.name === 'classifyInboundRequest'],
  ["SDK transport's POST handling, synchronous part (handlePostRequest)", (f) => f.name === 'handlePostRequest'],
  ['the dispatcher, synchronous part (callTool)', (f) => f.name === 'callTool'],
  ['the generated validators', (f) => /\/dist\/generated\/validators\.js$/.test(f.url)],
  ['the event store (append)', (f) => f.name === 'append' && /\/dist\/generated\/web\.js$/.test(f.url)],
];

/** Line ranges of the compiled web.js: the response stream wrapper (track), the session leg, the event store. */
function webRanges(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = (re) => {
    const i = lines.findIndex((l) => re.test(l));
    if (i < 0) throw new Error(`${file}: no line matches ${re}`);
    return i + 1;
  };
  return {
    sessions: [at(/^class LegacySessions/), at(/^export function createMemoryEventStore/)],
    track: [at(/^ {4}async track\(/), at(/^ {4}evictIdle\(/)],
    store: [at(/^export function createMemoryEventStore/), at(/^async function headerMismatch/)],
  };
}

/**
 * The layer a frame of the generated server's 2025 HTTP path belongs to (undefined: its caller's), for
 * summarizeProfile's exclusive attribution: toolspec's runtime by file and, in web.js, by part; the SDK by the
 * source file its bundle names (//#region); Node's internals by subsystem, weakly: a Request, a stream or a signal
 * that toolspec or the SDK made is charged to the layer that made it, and only what no such layer is above (the
 * HTTP parser, a stream's pull run from the microtask queue) stays Node's. The socket write syscall, GC and idle
 * are their own.
 */
function legacyLayerOf(ranges) {
  const inside = (line, [a, b]) => line >= a && line < b;
  return (f) => {
    if (f.name === '(garbage collector)') return 'garbage collection';
    if (f.name === '(idle)') return 'idle (waiting for the client)';
    if (f.name === '(program)') return 'V8 and native code outside JS (program)';
    if (!f.url) {
      if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(f.name))
        return 'socket writes (the syscall: loopback delivery)';
      if (f.name === 'runMicrotasks') return { weak: 'Node: microtask and tick queues' };
      return undefined;
    }
    const gen = /\/dist\/generated\/([\w-]+)\.js$/.exec(f.url);
    if (gen) {
      if (gen[1] === 'validators') return 'toolspec: the generated validators';
      if (gen[1] === 'dispatcher') return 'toolspec: the dispatcher (dispatcher.ts)';
      if (gen[1] === 'web') {
        if (inside(f.line, ranges.track)) return 'toolspec web.ts: LegacySessions.track (the response stream wrapper)';
        if (inside(f.line, ranges.store)) return 'toolspec web.ts: the event store (resumable streams)';
        if (inside(f.line, ranges.sessions)) return 'toolspec web.ts: LegacySessions.handle (the session map)';
        return 'toolspec web.ts: createWebHandler fetch (guards, routing)';
      }
      if (gen[1] === 'http') return "toolspec http.ts: serveHttp's request listener";
      return `toolspec: the rest of the runtime (server.ts, tools.ts, …)`;
    }
    if (/\/dist\/handlers\//.test(f.url)) return 'the handlers';
    if (f.url.includes('/@modelcontextprotocol/server/')) {
      const region = regionOf(f) ?? '';
      if (/streamableHttp\.ts$/.test(region)) return 'SDK: WebStandardStreamableHTTPServerTransport';
      if (/requestBody\.ts$/.test(region)) return 'SDK: readRequestBody (the body read, twice)';
      if (/createMcpHandler\.ts$|inboundClassification\.ts$/.test(region))
        return 'SDK: era routing (isLegacyRequest → classifyEntryRequest)';
      if (/(hostHeader|origin)Validation\.ts$/.test(region)) return 'SDK: Host/Origin checks';
      if (/schemas|buildSchemas|specTypeSchema|guards/.test(region)) return 'SDK: message schemas and guards';
      if (/protocol\.ts$|server\/server\.ts$|legacy|codec|wire|envelope/.test(region))
        return 'SDK: Protocol and Server (request, context, result)';
      return `SDK: ${region || 'other'}`;
    }
    if (f.url.includes('/node_modules/zod/')) return 'zod (the SDK parsing JSON-RPC messages)';
    if (f.url.includes('/@modelcontextprotocol/node/')) return 'SDK Node adapter (toWebRequest, toNodeHandler)';
    if (f.url.startsWith('node:internal/deps/undici')) return { weak: 'Node: undici (Request, Response, Headers)' };
    if (/^node:internal\/(webstreams|worker\/js_transferable)/.test(f.url)) return { weak: 'Node: web streams' };
    if (/^node:internal\/(abort_controller|event_target)/.test(f.url))
      return { weak: 'Node: AbortSignal and EventTarget' };
    if (f.url.startsWith('node:internal/crypto')) return { weak: 'Node: crypto (randomUUID, getRandomValues)' };
    if (/^node:internal\/(modules|vm)|^node:internal\/process\/(pre_execution|execution)/.test(f.url))
      return { weak: 'Node: module loading (start-up)' };
    if (/^node:internal\/process\/task_queues|^node:internal\/timers|^node:timers/.test(f.url))
      return { weak: 'Node: microtask and tick queues' };
    if (f.url.startsWith('node:')) return { weak: 'Node: http, net, streams, events' };
    return undefined;
  };
}

/**
 * A preload for the count pass: counts JSON.parse calls on text holding a tools/call, and reads of request bodies
 * (readRequestBody has no hook; TextDecoder.decode of a tools/call chunk stands for a read), printed at exit.
 */
const COUNT_PRELOAD = `data:text/javascript,${encodeURIComponent(`
const counts = { parse: 0, decode: 0, stringify: 0 };
const parse = JSON.parse;
JSON.parse = function (text, reviver) {
  if (typeof text === 'string' && text.includes('"tools/call"')) counts.parse++;
  return parse.call(this, text, reviver);
};
const stringify = JSON.stringify;
JSON.stringify = function (value, replacer, space) {
  const out = stringify.call(this, value, replacer, space);
  if (typeof out === 'string' && out.includes('"content":[{"type":"text"')) counts.stringify++;
  return out;
};
const decode = TextDecoder.prototype.decode;
TextDecoder.prototype.decode = function (input, options) {
  const out = decode.call(this, input, options);
  if (out.includes('"tools/call"')) counts.decode++;
  return out;
};
process.on('exit', () => process.stderr.write('counts=' + stringify(counts) + '\\n'));
`)}`;

async function profile(mode = 'sessionful', inflight = 16, count = 20000, side = 'toolspec') {
  let p = prepare(500);
  // Another build of the project (a folder like its dist): profiled as toolspec.
  if (!SIDES.includes(side)) [p, side] = [{ ...p, main: path.resolve(side, 'generated/main.js') }, 'toolspec'];
  const calls = callsOf(p.tools);
  const dir = path.join(work, 'prof');
  fs.mkdirSync(dir, { recursive: true });

  // The count pass, without the profiler: how often each tools/call's body is decoded and parsed, and its result
  // serialised, over COUNTED calls (the warm-up's calls and the initialize handshakes excluded by difference).
  const COUNTED = 1000;
  const counting = await startServer(serverArgs(p, side, mode), p.cwd, ['--import', COUNT_PRELOAD]);
  try {
    await block(counting.url, mode, calls, 0, COUNTED, 1, []);
  } finally {
    await counting.close();
  }
  // COUNTED calls and the block's one untimed call; initialize, notifications/initialized and DELETE hold none.
  const m = /counts=(\{.*\})/.exec(counting.stderr());
  const perCall = m
    ? Object.fromEntries(Object.entries(JSON.parse(m[1])).map(([k, v]) => [k, (v / (COUNTED + 1)).toFixed(2)]))
    : undefined;

  const name = `legacy-http-${side}-${mode}-${inflight}.cpuprofile`;
  fs.rmSync(path.join(dir, name), { force: true });
  const server = await startServer(serverArgs(p, side, mode), p.cwd, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-name=${name}`,
  ]);
  let secs;
  try {
    await warm(server.url, mode, calls);
    secs = await block(server.url, mode, calls, 0, count, inflight, []);
  } finally {
    await server.close();
  }
  console.log(
    `${SIDE_NAME[side]}: ${count} calls, ${mode}, ${inflight} in flight: ${fmtRate(count / secs)} under the profiler`,
  );
  if (perCall)
    console.log(
      `per tools/call (count pass, no profiler): body text decoded ${perCall.decode}×, parsed (JSON.parse) ${perCall.parse}×, result serialised (JSON.stringify) ${perCall.stringify}×`,
    );
  const file = path.join(dir, name);
  const ranges = webRanges(path.join(path.dirname(p.main), 'web.js'));
  console.log(
    summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), PROFILE_GROUPS, {
      calls: count,
      layerOf: legacyLayerOf(ranges),
    }),
  );
  console.log(
    `profile: ${path.relative(process.cwd(), file)} (the warm-up included: ${calls.length} + a block per concurrency)`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// A/B: server CPU per call, read from /proc, with throughput beside it.

/** The CPU time (user + system, every thread) process `pid` has used, in µs (Linux /proc only). */
function cpuMicros(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted from the pid; in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/**
 * Sides measured in interleaved blocks of `count` calls at `inflight`, the order rotating block by block; a side is
 * toolspec, zod or fromJsonSchema, or the folder of another build of the project (its generated/main.js), for an
 * A/B of a runtime change. Prints, per side, the server's CPU per call (from /proc) and calls/s: median, min, max.
 */
/** With AB_GC=1, each server's GC by kind (perf_hooks: 1 minor, 4 major, 8 incremental), printed on SIGUSR2. */
const GC_PRELOAD = `data:text/javascript,${encodeURIComponent(`
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
const kinds = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const k = (kinds[e.detail.kind] ??= { n: 0, ms: 0 });
    k.n++;
    k.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  process.stderr.write('gcstats=' + JSON.stringify(kinds) + '\\n');
  const spaces = v8.getHeapSpaceStatistics().map((s) => s.space_name + ' ' + (s.space_used_size / 1048576).toFixed(1) + '/' + (s.space_size / 1048576).toFixed(1));
  process.stderr.write('heap: ' + spaces.join(', ') + ' MiB\\n');
});
`)}`;

async function ab(mode, inflight, blocks, count, sides) {
  const p = prepare(500);
  const calls = callsOf(p.tools);
  const args = (side) =>
    SIDES.includes(side)
      ? serverArgs(p, side, mode)
      : serverArgs({ ...p, main: path.resolve(side, 'generated/main.js') }, 'toolspec', mode);
  const servers = {};
  try {
    const flags = process.env.AB_GC ? ['--import', GC_PRELOAD] : [];
    for (const side of sides) servers[side] = await startServer(args(side), p.cwd, flags);
    for (const side of sides) await warm(servers[side].url, mode, calls);
    for (const side of sides) if (flags.length) process.kill(servers[side].pid, 'SIGUSR2');
    const cpu = Object.fromEntries(sides.map((s) => [s, []]));
    const rate = Object.fromEntries(sides.map((s) => [s, []]));
    for (let b = 0; b < blocks; b++) {
      const k = b % sides.length;
      for (const side of [...sides.slice(k), ...sides.slice(0, k)]) {
        gc();
        const { url, pid } = servers[side];
        const before = cpuMicros(pid);
        const secs = await block(url, mode, calls, b * count, count, inflight, []);
        // (the block's untimed opening: inflight initializes and calls, and the DELETEs, are in the CPU too)
        cpu[side].push((cpuMicros(pid) - before) / count);
        rate[side].push(count / secs);
      }
    }
    const fmt = (xs, f) => {
      const s = stats(xs);
      return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
    };
    // The first block of each side is its warm-up's tail: the ratios are taken pair by pair over the others.
    const [first] = sides;
    const ratioOf = (m, side) => {
      const r = pairRatio(m[side].slice(1), m[first].slice(1));
      return `${r.median.toFixed(3)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
    };
    if (flags.length) {
      for (const side of sides) process.kill(servers[side].pid, 'SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const side of sides) {
        const [before, after] = (servers[side].stderr().match(/gcstats=(.*)/g) ?? []).map((l) =>
          JSON.parse(l.slice(8)),
        );
        const n = blocks * count;
        const of = (kind) => {
          const [a, b] = [before?.[kind] ?? { n: 0, ms: 0 }, after?.[kind] ?? { n: 0, ms: 0 }];
          return `${b.n - a.n} (${((b.ms - a.ms) / (b.n - a.n || 1)).toFixed(1)} ms each)`;
        };
        console.log(`${side}: over ${n} calls, GC minor ${of(1)}, major ${of(4)}, incremental ${of(8)} (wall time)`);
        console.log(
          `  at the end: ${servers[side]
            .stderr()
            .match(/heap: .*/g)
            ?.at(-1)}`,
        );
      }
    }
    for (const side of sides)
      console.log(
        `${side}: CPU ${fmt(cpu[side], (x) => `${x.toFixed(0)} µs`)} a call, ${fmt(rate[side], (x) => x.toFixed(0))} calls/s` +
          (side === first
            ? ''
            : `; against the first, block by block: CPU ${ratioOf(cpu, side)}, calls/s ${ratioOf(rate, side)}`),
      );
  } finally {
    for (const s of Object.values(servers)) await s.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv[2] === 'ab') {
    const [, mode, inflight, blocks, count, ...sides] = process.argv.slice(2);
    await ab(mode, Number(inflight), Number(blocks), Number(count), sides);
  } else if (process.argv[2] === 'profile') {
    const [, mode, inflight, count, side] = process.argv.slice(2);
    await profile(mode, inflight ? Number(inflight) : undefined, count ? Number(count) : undefined, side);
  } else {
    const started = performance.now();
    const rows = await benchLegacyHttp({ runs: Number(process.env.RUNS ?? 5) });
    console.log(legacyHttpTables(rows));
    console.error(`took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}
