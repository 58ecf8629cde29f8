// What the spec's `auth` costs a tools/call on the wire: "tools/call with token verification (cached key) costs at
// most 10 % more than without". One generated server (the seeded synthetic spec of bench/synth.mjs, AUTH_TOOLS
// tools, default 100, with an `auth:` block and per-tool scopes), compiled once and started twice, each its own
// process on 127.0.0.1 (serveHttp, as main.js --http starts it):
// - auth: an OAuth 2.1 resource server whose issuer is a local authorization server of this process's own (node:http
//   on 127.0.0.1: its metadata, RFC 8414, and a JWKS of one RS256 key from jose's generateKeyPair). Every call
//   carries the same access token (iss, aud = the resource, exp in an hour, scopes covering every tool), verified
//   with jwtVerify on every request; the server discovers the JWKS and fetches it on its first call (untimed) and
//   keeps the key, and the fetches are counted to show it.
// - auth: false: the same server, its verification turned off, no token sent.
// 2026-07-28 tools/call requests with valid arguments, each a separate POST over keep-alive connections, one at a
// time and AUTH_INFLIGHT in flight, the two servers interleaved block by block in alternating order (as the server
// section's HTTP figures are), RUNS iterations. Per figure: calls/s, and p50/p99 of each call's latency; the
// ratio auth / auth: false pair by pair within each iteration.
//
//   npm run build && node bench/auth.mjs                       (the table; node bench/run.mjs auth for RESULTS.md)
//   AUTH_PROFILE=bench/.work/prof node bench/auth.mjs          (both servers under node --cpu-prof, a profile each)
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { pairRatio, startServer, stats } from './lib.mjs';
import { argumentsFor, interleave, MODERN } from './server.mjs';
import { handlerSource, synthSpec, TSCONFIG } from './synth.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/toolspec.js');
const work = path.join(root, 'bench/.work');

/** Requests per figure (in BLOCKS blocks, alternating between the servers) and the second figure's concurrency. */
const CALLS = 3000;
const BLOCKS = 5;
const INFLIGHT = Number(process.env.AUTH_INFLIGHT ?? 16);
const MODES = [1, INFLIGHT];
/** The calls/s ratio the issue asks for: at most 10 % more time per call. */
export const AUTH_GOAL = 1 / 1.1;
const SCOPE_READ = 'bench.read';
const SCOPE_WRITE = 'bench.write';
const SIDES = ['auth', 'none'];
const SIDE_NAME = { auth: 'auth (token verified)', none: 'auth: false (no token)' };

// ---------------------------------------------------------------------------------------------------------------
// The project: synthSpec(n) with auth (its URLs given at run time), every other tool needing a second scope.

export function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${[cmd, ...args].join(' ')} failed in ${cwd}:\n${r.stdout}\n${r.stderr}`);
}

export function writeIfChanged(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
}

/**
 * Every .ts file below src to JavaScript in outDir with ts.transpileModule, as bench/server.mjs compiles its
 * projects (the generated code uses verbatimModuleSyntax: what a full compile emits, without its type checking).
 */
export function compileProject(src, outDir) {
  for (const rel of fs.readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts') || rel.endsWith('.d.ts')) continue;
    const js = ts.transpileModule(fs.readFileSync(path.join(src, rel), 'utf8'), {
      fileName: path.join(src, rel),
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true },
      reportDiagnostics: true,
    });
    if (js.diagnostics?.length)
      throw new Error(`${rel}: ${js.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))}`);
    writeIfChanged(path.join(outDir, rel.replace(/\.ts$/, '.js')), js.outputText);
  }
}

/** Writes, generates and compiles the project, and the entry that serves it; returns paths and the tools. */
export function prepareAuth(n) {
  const base = path.join(work, `auth-${n}`);
  const project = path.join(base, 'project');
  const synth = synthSpec(n);
  const spec = {
    ...synth,
    auth: { issuer: 'http://127.0.0.1/', resource: 'http://127.0.0.1/mcp', scopes: [SCOPE_READ] },
    tools: synth.tools.map((t, i) => (i % 2 ? t : { ...t, scopes: [SCOPE_READ, SCOPE_WRITE] })),
  };
  writeIfChanged(path.join(project, 'toolspec.yaml'), JSON.stringify(spec, null, 1)); // JSON is YAML
  writeIfChanged(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of spec.tools) writeIfChanged(path.join(project, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  run(process.execPath, [bin, 'generate'], project);
  compileProject(path.join(project, 'src'), path.join(base, 'dist'));
  const entry = path.join(base, 'serve.mjs');
  writeIfChanged(
    entry,
    `// The server of bench/auth.mjs: argv port, auth|none, issuer, resource; serveHttp on 127.0.0.1, the URL on stderr.
import { handlers, serveHttp } from './dist/generated/index.js';

const [port, mode, issuer, resource] = process.argv.slice(2);
const server = await serveHttp(handlers, { port: Number(port), auth: mode === 'auth' ? { issuer, resource } : false });
process.stderr.write(\`listening on \${server.url}\\n\`);
// Exits by itself on SIGTERM, so that node --cpu-prof writes its profile.
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
`,
  );
  const tools = JSON.parse(fs.readFileSync(path.join(project, 'src/generated/manifest.json'), 'utf8')).tools;
  if (tools.length !== n) throw new Error(`the generated manifest has ${tools.length} tools, not ${n}`);
  return { base, entry, tools };
}

// ---------------------------------------------------------------------------------------------------------------
// The authorization server: metadata and JWKS on 127.0.0.1, each request counted; one signed access token.

async function authorizationServer() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = crypto.randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const hits = { metadata: 0, jwks: 0, other: 0 };
  let issuer = '';
  const server = http.createServer((req, res) => {
    const send = (doc) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc));
    };
    if (req.url === '/.well-known/oauth-authorization-server') {
      hits.metadata++;
      return send({ issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] });
    }
    if (req.url === '/jwks') {
      hits.jwks++;
      return send({ keys: [jwk] });
    }
    hits.other++;
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  issuer = `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}`;
  /** An access token for `resource`: the scopes every tool needs, an hour to live. */
  const token = (resource) =>
    new SignJWT({ scope: `${SCOPE_READ} ${SCOPE_WRITE}`, client_id: 'bench' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
      .setIssuer(issuer)
      .setAudience(resource)
      .setSubject('bench')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  return { issuer, hits, token, close: () => new Promise((resolve) => server.close(() => resolve(undefined))) };
}

/** A port free now, so that the resource URL (the token's audience) can name it before the server listens on it. */
export async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (probe.address());
  await new Promise((resolve) => probe.close(() => resolve(undefined)));
  return port;
}

/** The entry's server with these arguments, profiled when AUTH_PROFILE names a folder. */
function startAuthServer(entry, args, cwd, profileName) {
  const profile = process.env.AUTH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.AUTH_PROFILE)}`, `--cpu-prof-name=${profileName}`]
    : [];
  return startServer([entry, ...args], cwd, profile);
}

// ---------------------------------------------------------------------------------------------------------------
// The load: 2026-07-28 tools/call POSTs, raw JSON-RPC (no SDK client), over keep-alive connections.

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One POST over `agent`: { status, message } (the JSON-RPC message of a JSON or SSE body, when there is one). */
function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let message;
          try {
            if (/json/.test(res.headers['content-type'] ?? '')) message = JSON.parse(text);
            else if (/event-stream/.test(res.headers['content-type'] ?? ''))
              message = text
                .split('\n')
                .filter((l) => l.startsWith('data:'))
                .map((l) => JSON.parse(l.slice(5)))
                .find((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined));
          } catch {
            // not JSON: the status says what went wrong
          }
          resolve({ status: res.statusCode, message, text, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A 2026-07-28 tools/call POST with valid arguments per tool: { name, headers, body }. */
export function modernPosts(tools) {
  return tools.map((tool) => ({
    name: tool.name,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool.name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool.name, arguments: argumentsFor(tool).valid, _meta: MODERN_META },
    }),
  }));
}

/** The tools/call result of one POST, or an error naming the status and body. */
async function call(agent, url, p, authorization) {
  const r = await post(agent, url, p.body, authorization ? { ...p.headers, authorization } : p.headers);
  if (r.status !== 200 || !r.message?.result || r.message.result.isError)
    throw new Error(`${p.name}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
  return r.message.result;
}

/**
 * Seconds for `count` tools/call POSTs (cycling through `posts` from `start`), `inflight` at a time, over keep-alive
 * connections of the block's own, opened before the clock starts by one untimed request on each; each call's
 * latency (ms) is pushed to `latencies`.
 */
export async function httpBlock(url, posts, start, count, inflight, authorization, latencies) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inflight });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const p = posts[(start + next++) % posts.length];
      const t0 = performance.now();
      await call(agent, url, p, authorization);
      latencies.push(performance.now() - t0);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: inflight }, (_, i) => call(agent, url, posts[(start + i) % posts.length], authorization)),
    );
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inflight }, worker));
    return (performance.now() - t0) / 1000;
  } finally {
    agent.destroy();
  }
}

/** The nearest-rank percentile p (0–1) of `values`. */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)];
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Measures tools/call over HTTP with the spec's auth on (a token verified per request, the key cached) and off.
 * Returns rows: { n, era: 'modern', table: 'auth', metric: 'calls/s'|'p50 (ms)'|'p99 (ms)', inflight, values:
 * { auth, none } (stats: median, min, max, runs), ratio (pairRatio auth / none) }, and one { table: 'auth-fetches',
 * metadata, jwks } row: how often the authorization server was asked for its metadata and keys in the whole run.
 */
export async function benchAuth({
  n = Number(process.env.AUTH_TOOLS ?? 100),
  runs = 5,
  log = (s) => console.error(s),
} = {}) {
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const p = prepareAuth(n);
  log(`auth ${n}: project ready in ${elapsed()}`);
  const as = await authorizationServer();
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const authorization = `Bearer ${await as.token(resource)}`;
  const tokenOf = { auth: authorization, none: undefined };
  const servers = {};
  try {
    servers.auth = await startAuthServer(
      p.entry,
      [String(port), 'auth', as.issuer, resource],
      p.base,
      'auth.cpuprofile',
    );
    servers.none = await startAuthServer(p.entry, ['0', 'none'], p.base, 'none.cpuprofile');
    const posts = modernPosts(p.tools);

    // The auth server is one: without a token it answers 401 and its challenge; with the token every tool answers
    // (each tool once, the key fetched on the first call); the other answers without a token.
    const agent = new http.Agent({ keepAlive: true });
    const refused = await post(agent, servers.auth.url, posts[0].body, posts[0].headers);
    if (refused.status !== 401 || !/^Bearer resource_metadata=/.test(String(refused.headers['www-authenticate'])))
      throw new Error(`the auth server answered a call without a token ${refused.status}: ${refused.text}`);
    for (const side of SIDES) for (const q of posts) await call(agent, servers[side].url, q, tokenOf[side]);
    agent.destroy();
    if (as.hits.metadata !== 1 || as.hits.jwks !== 1)
      throw new Error(
        `after the first calls the keys were fetched ${as.hits.jwks} times, the metadata ${as.hits.metadata}`,
      );
    for (const side of SIDES)
      for (const inflight of MODES)
        await httpBlock(servers[side].url, posts, 0, CALLS / 4, inflight, tokenOf[side], []);
    log(`auth ${n}: servers ready and warm at ${elapsed()}`);

    const m = MODES.map(() => ({
      rate: { auth: [], none: [] },
      p50: { auth: [], none: [] },
      p99: { auth: [], none: [] },
    }));
    for (let i = 0; i < runs; i++) {
      for (const [k, inflight] of MODES.entries()) {
        const per = CALLS / BLOCKS;
        const latencies = { auth: [], none: [] };
        const fns = Object.fromEntries(
          SIDES.map((side) => [
            side,
            (b) =>
              httpBlock(servers[side].url, posts, b * per, per, inflight, tokenOf[side], latencies[side]).catch((e) => {
                throw new Error(
                  `HTTP ${side}: ${e.message}; the server's stderr:\n${servers[side].stderr().slice(-2000)}`,
                );
              }),
          ]),
        );
        const secs = await interleave(BLOCKS, fns, i + k);
        for (const side of SIDES) {
          m[k].rate[side].push(CALLS / secs[side]);
          m[k].p50[side].push(percentile(latencies[side], 0.5));
          m[k].p99[side].push(percentile(latencies[side], 0.99));
        }
      }
      log(`auth ${n}: run ${i + 1}/${runs} done at ${elapsed()}`);
    }
    const rows = [];
    for (const [k, inflight] of MODES.entries()) {
      for (const [key, metric] of [
        ['rate', 'calls/s'],
        ['p50', 'p50 (ms)'],
        ['p99', 'p99 (ms)'],
      ]) {
        const series = m[k][key];
        rows.push({
          n,
          era: 'modern',
          table: 'auth',
          metric,
          inflight,
          values: { auth: stats(series.auth), none: stats(series.none) },
          ratio: pairRatio(series.auth, series.none),
        });
      }
    }
    rows.push({ n, table: 'auth-fetches', metadata: as.hits.metadata, jwks: as.hits.jwks });
    return rows;
  } finally {
    for (const s of Object.values(servers)) await s.close();
    await as.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------

export const fmtRate = (r) =>
  r >= 1e5 ? `${(r / 1000).toFixed(0)} k/s` : r >= 1000 ? `${(r / 1000).toFixed(1)} k/s` : `${r.toFixed(0)}/s`;
export const fmtMs = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
export const withRange = (f) => (s) => (s ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : '');
export const ratio = (r) => (r ? `${r.median.toFixed(3)} (${r.min.toFixed(3)}–${r.max.toFixed(3)})` : '');

/** The Markdown table of benchAuth's rows. */
export function authTables(rows) {
  const fetches = rows.find((r) => r.table === 'auth-fetches');
  const n = rows.find((r) => r.table === 'auth')?.n;
  const out = [
    `The generated server of a ${n}-tool synthetic spec with \`auth:\` (an OAuth 2.1 resource server; every other ` +
      'tool needs a second scope), compiled once and started twice, each its own process on 127.0.0.1 (serveHttp): ' +
      'with auth, every request carrying the same RS256 access token (iss, aud = the resource, exp in an hour, the ' +
      "scopes of every tool), verified by jose's jwtVerify against the key the server fetched from the local " +
      `authorization server on its first call and kept (the JWKS fetched ${fetches?.jwks ?? '?'} time(s) and the ` +
      `metadata ${fetches?.metadata ?? '?'} in the whole run); and with \`auth: false\`, no token. ${CALLS} ` +
      `${MODERN} tools/call requests per figure with valid arguments, cycling through every tool, each a separate ` +
      `POST over keep-alive connections (node:http), one at a time or ${INFLIGHT} in flight, the two servers ` +
      `interleaved in ${BLOCKS} blocks in alternating order; p50/p99: each call's latency as the client saw it. ` +
      `The issue's goal: with the token at most 10 % more time per call, i.e. auth / auth: false ≥ ${AUTH_GOAL.toFixed(3)} in calls/s.`,
    '',
    `| tools | in flight | figure | ${SIDE_NAME.auth} | ${SIDE_NAME.none} | auth / auth: false | goal |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows.filter((x) => x.table === 'auth')) {
    const f = withRange(r.metric === 'calls/s' ? fmtRate : fmtMs);
    const goal =
      r.metric === 'calls/s'
        ? `≥ ${AUTH_GOAL.toFixed(3)}: ${r.ratio.median >= AUTH_GOAL ? 'holds' : '**misses**'}`
        : '— (reported)';
    out.push(
      `| ${r.n} | ${r.inflight} | ${r.metric} | ${f(r.values.auth)} | ${f(r.values.none)} | ${ratio(r.ratio)} | ${goal} |`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const rows = await benchAuth({ runs: Number(process.env.RUNS ?? 5) });
  console.log(authTables(rows));
  console.error(`took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
