// Scale-out through a real load balancer: one generated server (the seeded synthetic spec of bench/synth.mjs,
// BALANCER_TOOLS tools, default 100), three instances of `node main.js --http` on 127.0.0.1, and one Debian HAProxy
// (apt-get install -y haproxy) with two frontends: one in front of a single instance, one round robin over all
// three (the configuration of README's "Deploying", test/e2e/scale-out.test.ts). 2026-07-28 tools/call POSTs with
// valid arguments over keep-alive connections, 16 and 64 in flight, the two frontends interleaved block by block in
// alternating order, RUNS iterations. Per figure: calls/s and p99 of each call's latency; the ratio three / one pair
// by pair. The goal (3 instances ≥ 2.5× one) needs cores for the instances, the balancer and the load generator:
// on a 2-core machine they all share two, and the ratio says so.
//
//   npm run build && node bench/balancer.mjs           (the table; node bench/run.mjs balancer for RESULTS.md)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  compileProject,
  fmtMs,
  fmtRate,
  freePort,
  httpBlock,
  modernPosts,
  percentile,
  ratio,
  run,
  withRange,
  writeIfChanged,
} from './auth.mjs';
import { pairRatio, startServer, stats } from './lib.mjs';
import { interleave } from './server.mjs';
import { handlerSource, synthSpec, TSCONFIG } from './synth.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/toolspec.js');
const work = path.join(root, 'bench/.work');

const CALLS = 4000;
const BLOCKS = 4;
const MODES = [16, 64];
const SIDES = ['one', 'three'];
const SIDE_NAME = { one: '1 instance', three: '3 instances' };
export const BALANCER_GOAL = 2.5;

/** Writes, generates and compiles the project; returns its folder and tools. */
function prepare(n) {
  const base = path.join(work, `balancer-${n}`);
  const project = path.join(base, 'project');
  const spec = synthSpec(n);
  writeIfChanged(path.join(project, 'toolspec.yaml'), JSON.stringify(spec, null, 1)); // JSON is YAML
  writeIfChanged(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of spec.tools) writeIfChanged(path.join(project, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  run(process.execPath, [bin, 'generate'], project);
  compileProject(path.join(project, 'src'), path.join(base, 'dist'));
  const tools = JSON.parse(fs.readFileSync(path.join(project, 'src/generated/manifest.json'), 'utf8')).tools;
  return { base, tools };
}

/** HAProxy in the foreground with a frontend per side; resolves once both frontends answer. */
async function startHaproxy(base, ports, instances) {
  const binary = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((b) => fs.existsSync(b));
  if (!binary) throw new Error('haproxy is not installed: run `apt-get install -y haproxy` (Debian) first');
  const backend = (name, servers) =>
    [
      `backend ${name}`,
      '  balance roundrobin',
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure 503',
      ...servers.map((p, i) => `  server s${i + 1} 127.0.0.1:${p}`),
    ].join('\n');
  const config = [
    'global',
    `  maxconn ${MODES.at(-1) * 8}`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    `frontend one`,
    `  bind 127.0.0.1:${ports.one}`,
    '  default_backend one',
    `frontend three`,
    `  bind 127.0.0.1:${ports.three}`,
    '  default_backend three',
    backend('one', instances.slice(0, 1)),
    backend('three', instances),
    '',
  ].join('\n');
  const file = path.join(base, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const end = Date.now() + 30_000;
  for (const port of Object.values(ports)) {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}:\n${stderr}`);
      if (Date.now() > end) throw new Error(`haproxy did not serve in 30 s:\n${stderr}`);
      const up = await fetch(`http://127.0.0.1:${port}/mcp`).then(
        () => true,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done(undefined);
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Rows: { n, table: 'balancer', metric: 'calls/s'|'p99 (ms)', inflight, values: { one, three } (stats), ratio
 * (three / one), cores }.
 */
export async function benchBalancer({
  n = Number(process.env.BALANCER_TOOLS ?? 100),
  runs = 5,
  log = (s) => console.error(s),
} = {}) {
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const p = prepare(n);
  log(`balancer ${n}: project ready in ${elapsed()}`);
  const main = path.join(p.base, 'dist/generated/main.js');
  const instances = [];
  let balancer;
  try {
    for (let i = 0; i < 3; i++) instances.push(await startServer([main, '--http', '--port', '0'], p.base));
    const ports = { one: await freePort(), three: await freePort() };
    balancer = await startHaproxy(
      p.base,
      ports,
      instances.map((s) => Number(s.url.port)),
    );
    const url = Object.fromEntries(SIDES.map((side) => [side, `http://127.0.0.1:${ports[side]}/mcp`]));
    const posts = modernPosts(p.tools);
    for (const side of SIDES)
      for (const inflight of MODES) await httpBlock(url[side], posts, 0, 500, inflight, undefined, []);
    log(`balancer ${n}: instances and balancer ready and warm at ${elapsed()}`);
    const m = MODES.map(() => ({ rate: { one: [], three: [] }, p99: { one: [], three: [] } }));
    for (let i = 0; i < runs; i++) {
      for (const [k, inflight] of MODES.entries()) {
        const per = CALLS / BLOCKS;
        const latencies = { one: [], three: [] };
        const fns = Object.fromEntries(
          SIDES.map((side) => [
            side,
            (b) => httpBlock(url[side], posts, b * per, per, inflight, undefined, latencies[side]),
          ]),
        );
        const secs = await interleave(BLOCKS, fns, i + k);
        for (const side of SIDES) {
          m[k].rate[side].push(CALLS / secs[side]);
          m[k].p99[side].push(percentile(latencies[side], 0.99));
        }
      }
      log(`balancer ${n}: run ${i + 1}/${runs} done at ${elapsed()}`);
    }
    const cores = os.availableParallelism();
    return MODES.flatMap((inflight, k) =>
      [
        ['rate', 'calls/s'],
        ['p99', 'p99 (ms)'],
      ].map(([key, metric]) => ({
        n,
        table: 'balancer',
        metric,
        inflight,
        cores,
        values: { one: stats(m[k][key].one), three: stats(m[k][key].three) },
        ratio: pairRatio(m[k][key].three, m[k][key].one),
      })),
    );
  } finally {
    await balancer?.close();
    for (const s of instances) await s.close();
  }
}

/** The Markdown table of benchBalancer's rows. */
export function balancerTables(rows) {
  const first = rows[0];
  const out = [
    `The generated server of a ${first?.n}-tool synthetic spec, three instances of \`node main.js --http\` on ` +
      "127.0.0.1 behind Debian's HAProxy (round robin, README's configuration): one frontend in front of one " +
      `instance, one in front of all three. ${CALLS} 2026-07-28 tools/call POSTs per figure with valid arguments over ` +
      `keep-alive connections, the two frontends interleaved in ${BLOCKS} blocks in alternating order. The goal: 3 ` +
      `instances ≥ ${BALANCER_GOAL}× one on a machine with 4+ cores. This machine has ${first?.cores} ` +
      '(instances, HAProxy and the load generator share them), so the ratio shows what a core-bound box allows, ' +
      'not what the instances scale to.',
    '',
    `| tools | in flight | figure | ${SIDE_NAME.one} | ${SIDE_NAME.three} | three / one |`,
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows.filter((x) => x.table === 'balancer')) {
    const f = withRange(r.metric === 'calls/s' ? fmtRate : fmtMs);
    out.push(
      `| ${r.n} | ${r.inflight} | ${r.metric} | ${f(r.values.one)} | ${f(r.values.three)} | ${ratio(r.ratio)} |`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const rows = await benchBalancer({ runs: Number(process.env.RUNS ?? 3) });
  console.log(balancerTables(rows));
  console.error(`took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
