// npm run bench: every benchmark, in one run, written to bench/RESULTS.md (and its rows to bench/results.json).
// Not part of npm test.
//
// Sections: generate, check, server, scale, auth, balancer (it needs Debian's haproxy). `npm run bench` runs them all; `npm run bench -- scale` (or any
// list of sections) runs only those, and takes the others' rows from bench/results.json, the last run that measured
// them: RESULTS.md then says which section comes from which run. RUNS (default 5) sets the iterations of generate,
// check, server and auth; SCALE_RUNS (default 3) those of scale, whose 2,000-tool runs take the longest
// (SCALE_SIZES, default 100,500,2000, its sizes). SERVER_ROWS=2025-http measures only the server section's 2025
// HTTP rows (bench/legacy-http.mjs, a few minutes) and keeps its other rows from bench/results.json:
// `npm run build && SERVER_ROWS=2025-http node bench/run.mjs server`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authTables, benchAuth } from './auth.mjs';
import { balancerTables, benchBalancer } from './balancer.mjs';
import { benchCheck, checkTable } from './check.mjs';
import { benchLegacyHttp, legacyHttpTables } from './legacy-http.mjs';
import { machine } from './lib.mjs';
import { benchGenerate, generateTables } from './generate.mjs';
import { benchScale, scaleTables } from './scale.mjs';
import { benchServer, serverTables } from './server.mjs';
import { targetsTable } from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECTIONS = ['generate', 'check', 'server', 'scale', 'auth', 'balancer'];
// --report: measure nothing, write RESULTS.md again from bench/results.json (after an edit of bench/NOTES.md).
const reportOnly = process.argv.includes('--report');
const asked = process.argv.slice(2).filter((a) => a !== '--report');
for (const s of asked) {
  if (!SECTIONS.includes(s)) {
    console.error(`unknown section "${s}": the sections are ${SECTIONS.join(', ')}`);
    process.exit(2);
  }
}
const selected = reportOnly ? [] : asked.length ? SECTIONS.filter((s) => asked.includes(s)) : SECTIONS;
const runs = Number(process.env.RUNS ?? 5);
/** Row groups of the server section that can be measured alone, each a table of its own. */
const SERVER_GROUPS = { '2025-http': { table: 'http-2025', label: 'its 2025 HTTP rows' } };
const serverRows = process.env.SERVER_ROWS || undefined;
if (serverRows !== undefined && !(serverRows in SERVER_GROUPS)) {
  console.error(`unknown SERVER_ROWS "${serverRows}": the groups are ${Object.keys(SERVER_GROUPS).join(', ')}`);
  process.exit(2);
}
const scaleRuns = Number(process.env.SCALE_RUNS ?? 3);
const started = Date.now();
const toolspecVersion = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const versions = [
  'typescript',
  'ts-morph',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/client',
  'zod',
  'ajv',
]
  .map((p) => `${p} ${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', p, 'package.json'), 'utf8')).version}`)
  .join(', ');

const resultsFile = path.join(root, 'bench/results.json');
/**
 * Rows by section, with when and where they were measured: { rows, at, machine, versions, runs, seconds, groups? }
 * (groups: the same for a group of the section's rows measured alone, SERVER_ROWS).
 * @type {Record<string, any>}
 */
let saved = {};
try {
  saved = JSON.parse(fs.readFileSync(resultsFile, 'utf8')).sections ?? {};
} catch {
  // none yet
}

const measure = {
  generate: () => {
    console.error('generate beside openapi-mcp-generator …');
    return benchGenerate({ runs });
  },
  check: () => {
    console.error('check beside tsc --noEmit …');
    return benchCheck({ runs });
  },
  server: async () => {
    if (serverRows === '2025-http') {
      console.error('the generated server beside McpServer: the 2025 HTTP rows alone (SERVER_ROWS=2025-http) …');
      return benchLegacyHttp({ runs });
    }
    console.error('the generated server beside McpServer …');
    return [...(await benchServer({ runs })), ...(await benchLegacyHttp({ runs }))];
  },
  scale: () => {
    console.error('scale: 100, 500 and 2,000 tools …');
    const sizes = process.env.SCALE_SIZES?.split(',').map(Number);
    return benchScale({ runs: scaleRuns, ...(sizes ? { sizes } : {}) });
  },
  auth: () => {
    console.error('auth: tools/call with token verification beside auth: false …');
    return benchAuth({ runs });
  },
  balancer: () => {
    console.error('balancer: 1 and 3 instances behind HAProxy …');
    return benchBalancer({ runs });
  },
};
const sections = { ...saved };
for (const name of selected) {
  const t0 = Date.now();
  const rows = await measure[name]();
  const meta = {
    at: new Date().toISOString(),
    machine: machine(),
    versions: `toolspec ${toolspecVersion}, ${versions}`,
    runs: name === 'scale' ? scaleRuns : runs,
    seconds: Math.round((Date.now() - t0) / 1000),
  };
  if (name === 'server' && serverRows) {
    // One group of rows measured: it replaces that group's rows, the section's other rows stay as measured.
    const { table } = SERVER_GROUPS[serverRows];
    const before = saved.server;
    sections.server = {
      ...(before ?? { ...meta, seconds: 0, partial: true }),
      rows: [...(before?.rows ?? []).filter((r) => r.table !== table), ...rows],
      groups: { ...before?.groups, [serverRows]: meta },
    };
  } else {
    sections[name] = { rows, ...meta };
  }
}
const rowsOf = (name) => sections[name]?.rows ?? [];
const targets = targetsTable({
  generate: rowsOf('generate'),
  check: rowsOf('check'),
  server: rowsOf('server'),
  scale: rowsOf('scale'),
  auth: rowsOf('auth'),
  balancer: rowsOf('balancer'),
});
const notMeasured = 'Not measured yet: run `npm run bench`.';
const body = (name, tables) => (sections[name] ? tables(rowsOf(name)) : notMeasured);
const provenance = SECTIONS.map((name) => {
  const s = sections[name];
  if (!s) return `- ${name}: not measured yet`;
  const when = (m) => `${m.at.slice(0, 16).replace('T', ' ')} UTC, ${m.runs} iterations, ${m.seconds} s; ${m.machine}`;
  const thisRun = (group) =>
    selected.includes(name) && (name !== 'server' || serverRows === undefined || serverRows === group);
  const here = (group) => (reportOnly ? 'measured' : thisRun(group) ? 'this run' : '**an earlier run**');
  const groups = Object.entries(s.groups ?? {});
  if (!groups.length) return `- ${name}: ${here(undefined)}, ${when(s)}`;
  const rest = s.partial ? 'its other rows not measured yet' : `its other rows ${here(undefined)}, ${when(s)}`;
  const parts = groups.map(([g, m]) => `${SERVER_GROUPS[g]?.label ?? g} ${here(g)}, ${when(m)}`);
  return `- ${name}: ${[...parts, rest].join('; ')}`;
}).join('\n');
const measured = selected.map((s) =>
  s === 'server' && serverRows ? `server (${SERVER_GROUPS[serverRows].label} only)` : s,
);
const command = `${serverRows && selected.includes('server') ? `SERVER_ROWS=${serverRows} ` : ''}npm run bench -- ${selected.join(' ')}`;

const report = `# Benchmark results

Written by \`npm run bench\`; every figure is the median of the iterations of its section with min–max, each ratio
computed pair by pair within the same run. Machine: ${machine()}. Versions: toolspec ${toolspecVersion}, ${versions}.
Projects: seeded synthetic specs (bench/synth.mjs) with every handler written.
${
  selected.length === SECTIONS.length
    ? 'All sections from this run'
    : selected.length
      ? `This run measured ${measured.join(', ')} (\`${command}\`); the other ${serverRows && selected.includes('server') ? 'sections and rows' : 'sections'} are the rows of an earlier run, kept in bench/results.json`
      : 'Written again from bench/results.json (`node bench/run.mjs --report`), nothing measured'
}:

${provenance}

## The targets

${targets}

${fs.readFileSync(path.join(root, 'bench/NOTES.md'), 'utf8').trim()}

## toolspec generate beside openapi-mcp-generator

${body('generate', generateTables)}

## toolspec check beside tsc --noEmit of the same project

Warm: check run again right after one (until issue 23 the local cache of the last generate and of the handlers
found clean answered it; check reads no cache now, so both rows do the same work). Cold: the cache folder is removed
before each run (a CI machine that restores none): check loads the spec, regenerates in memory, compares, and
type-checks every handler.

${body('check', checkTable)}

## The generated server beside the SDK's McpServer (zod, and fromJsonSchema), on both protocol eras

${body('server', (rows) => serverTables(rows, legacyHttpTables(rows)))}

## Scale: 100, 500 and 2,000 tools (the loader's limit)

generate (cold, no-op, one tool changed) and check (without a cache, with one) on prefixes of one 2,000-tool spec
(bench/scale.mjs), each run a fresh process with its time and peak resident memory.

${body('scale', scaleTables)}

## Token verification: the generated resource server beside the same server with auth: false

${body('auth', authTables)}

## Scale-out: 1 and 3 instances behind a load balancer

${body('balancer', balancerTables)}

${reportOnly ? `Measuring took ${SECTIONS.reduce((t, n) => t + (sections[n]?.seconds ?? 0) + Object.values(sections[n]?.groups ?? {}).reduce((g, m) => g + m.seconds, 0), 0)} s (the sections' own times).` : `Took ${((Date.now() - started) / 1000).toFixed(0)} s.`}
`;
fs.writeFileSync(path.join(root, 'bench/RESULTS.md'), report);
fs.writeFileSync(resultsFile, JSON.stringify({ sections }, null, 1) + '\n');
console.log(report);
