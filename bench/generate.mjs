// Generate speed: `toolspec generate` on seeded 100- and 500-tool projects (bench/synth.mjs, every handler written)
// beside the closest peer, openapi-mcp-generator, run on an OpenAPI 3 document holding the same schemas
// (bench/openapi.mjs), every run a fresh process, the runs of one iteration back to back so that ratios are taken
// pair by pair within the same iteration.
//
// Per iteration and size, in this order:
//   toolspec cold      the cache folder (node_modules/.cache/toolspec of the repo) and src/generated removed first;
//                      the spec is the original one, the handlers are in place
//   peer cold          its output folder removed first
//   toolspec no-op     nothing changed since the cold generate
//   peer no-op         again on the same output (it has no incremental mode: --force, the same full work)
//   toolspec one changed: description   one tool's description edited in toolspec.yaml, then generate
//   toolspec one changed: bound         then one numeric bound (maxLength or maximum) of one property of that tool
//                                        bumped by 1, then generate
// Every toolspec run is checked to have taken the path it is meant to measure (all files written when cold, "nothing
// changed" for the no-op, a full run with some files written for a change): a rebuild of toolspec in the middle of
// a run (its fingerprint is part of the cache key) would otherwise turn a no-op into a full run. Such an iteration is
// done again, at most twice.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtStats, pairRatio, stats } from './lib.mjs';
import { writeOpenApi } from './openapi.mjs';
import { editTool, specFiles, writeProject } from './synth.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'bench/.work');
const bin = path.join(root, 'bin/toolspec.js');
const cache = path.join(root, 'node_modules/.cache/toolspec');

export const PEER = 'openapi-mcp-generator';
export const PEER_VERSION = '4.0.1';

/**
 * The peer's package folder: the repo's devDependency when installed, else a pinned install of its own under
 * bench/.work/peer (made on first use with the ordinary npm client: the registry is its only download; the CLI
 * needs none of its peer dependencies, which are for the servers it generates, so they are not installed).
 */
export function peerPackage() {
  const candidates = [path.join(root, 'node_modules', PEER), path.join(work, 'peer/node_modules', PEER)];
  let dir = candidates.find((d) => fs.existsSync(path.join(d, 'package.json')));
  if (!dir) {
    const prefix = path.join(work, 'peer');
    fs.mkdirSync(prefix, { recursive: true });
    fs.writeFileSync(
      path.join(prefix, 'package.json'),
      JSON.stringify(
        { name: 'toolspec-bench-peer', private: true, devDependencies: { [PEER]: PEER_VERSION } },
        null,
        2,
      ) + '\n',
    );
    console.error(`installing ${PEER}@${PEER_VERSION} into ${path.relative(root, prefix)} …`);
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--legacy-peer-deps'], {
      cwd: prefix,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`npm install ${PEER}@${PEER_VERSION} failed\n${r.stdout}\n${r.stderr}`);
    dir = candidates[1];
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (pkg.version !== PEER_VERSION) throw new Error(`${dir} holds ${PEER} ${pkg.version}, expected ${PEER_VERSION}`);
  const binRel = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin[PEER];
  return { dir, version: pkg.version, bin: path.join(dir, binRel) };
}

/** Runs a command in a fresh process; returns its wall time in ms with its output. */
function run(cmd, args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** toolspec generate, checked to have taken the expected path: 'cold', 'noop' or 'changed'. */
function toolspecGenerate(dir, expect) {
  const r = run(process.execPath, [bin, 'generate'], dir);
  const m = /(\d+) files, (\d+) written/.exec(r.out);
  const ok =
    r.status === 0 &&
    m &&
    (expect === 'cold' ? m[1] === m[2] : expect === 'noop' ? m[2] === '0' : Number(m[2]) > 0 && m[2] !== m[1]);
  if (!ok)
    throw Object.assign(new Error(`toolspec generate (${expect}) in ${dir} did not do what it should:\n${r.out}`), {
      retry: true,
    });
  return r.ms;
}

function peerGenerate(peer, doc, out, n, { verify = false } = {}) {
  const r = run(process.execPath, [peer.bin, '--input', doc, '--output', out, '--force'], path.dirname(doc));
  if (r.status !== 0) throw new Error(`${PEER} exited ${r.status}:\n${r.out}`);
  if (verify) {
    const code = fs.readFileSync(path.join(out, 'src/index.ts'), 'utf8');
    const tools = (code.match(/^ {4}name: "/gm) ?? []).length;
    if (tools !== n) throw new Error(`${PEER} wrote ${tools} tools to ${out}, expected ${n}`);
  }
  return r.ms;
}

/** Bumps the first maxLength or maximum found (depth first) in a schema by 1; returns the property path. */
function bumpBound(schema, at = '') {
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const p = at ? `${at}.${name}` : name;
    for (const k of ['maxLength', 'maximum']) {
      if (typeof prop[k] === 'number') {
        prop[k] += 1;
        return `${p}.${k}`;
      }
    }
    const inner = bumpBound(prop, p);
    if (inner) return inner;
  }
  return undefined;
}

/** The projects: 100 and 500 tools with short descriptions, and 500 with realistic ones (bench/synth.mjs). */
export const PROJECTS = [
  { n: 100, spec: 'short' },
  { n: 500, spec: 'short' },
  { n: 500, spec: 'realistic' },
];

export function benchGenerate({ projects = PROJECTS, runs = 5 } = {}) {
  const peer = peerPackage();
  const rows = [];
  for (const { n, spec: kind } of projects) {
    const realistic = kind === 'realistic';
    const dir = path.join(work, `generate-${n}${realistic ? '-realistic' : ''}`);
    // The realistic spec is laid out as the README advises for large specs: one file per tool in an included folder.
    const spec = writeProject(dir, n, 42, { realistic, ...(realistic ? { layout: 'folder' } : {}) });
    const original = specFiles(dir);
    const peerDir = path.join(work, `generate-${n}${realistic ? '-realistic' : ''}-peer`);
    fs.rmSync(peerDir, { recursive: true, force: true });
    const doc = path.join(peerDir, 'openapi.json');
    writeOpenApi(doc, spec);
    const out = path.join(peerDir, 'out');
    // The tool that gets edited: the first from the middle with a numeric bound to bump.
    const target = [...spec.tools.slice(n >> 1), ...spec.tools].find((t) =>
      bumpBound(structuredClone(t.inputSchema)),
    ).name;

    // One discarded iteration warms the disk cache for both tools.
    const reset = () => {
      for (const [file, text] of original) fs.writeFileSync(file, text);
      fs.rmSync(cache, { recursive: true, force: true });
      fs.rmSync(path.join(dir, 'src/generated'), { recursive: true, force: true });
      fs.rmSync(out, { recursive: true, force: true });
    };
    reset();
    toolspecGenerate(dir, 'cold');
    peerGenerate(peer, doc, out, n, { verify: true });

    const t = { cold: [], noop: [], description: [], bound: [] };
    const p = { cold: [], noop: [] };
    let boundAt;
    const load = [os.loadavg()[0]];
    for (let i = 0; i < runs; i++) {
      for (let attempt = 0; ; attempt++) {
        try {
          reset();
          const cold = toolspecGenerate(dir, 'cold');
          const peerCold = peerGenerate(peer, doc, out, n, { verify: i === 0 });
          const noop = toolspecGenerate(dir, 'noop');
          const peerNoop = peerGenerate(peer, doc, out, n);
          editTool(dir, target, (t) => {
            t.description += ` Edited in run ${i + 1}.`;
          });
          const description = toolspecGenerate(dir, 'changed');
          editTool(dir, target, (t) => {
            boundAt = `${target}: ${bumpBound(t.inputSchema)}`;
          });
          const bound = toolspecGenerate(dir, 'changed');
          t.cold.push(cold);
          t.noop.push(noop);
          t.description.push(description);
          t.bound.push(bound);
          p.cold.push(peerCold);
          p.noop.push(peerNoop);
          break;
        } catch (e) {
          if (!e.retry || attempt >= 2) throw e;
          console.error(`${n} tools, run ${i + 1}: ${e.message.split('\n')[0]}; running it again`);
        }
      }
    }
    load.push(os.loadavg()[0]);
    const common = {
      n,
      spec: kind,
      runs,
      peer: `${PEER} ${peer.version}`,
      load,
      edited: { description: target, bound: boundAt },
    };
    rows.push({
      ...common,
      scenario: 'cold',
      toolspec: stats(t.cold),
      peerRun: stats(p.cold),
      ratio: pairRatio(t.cold, p.cold),
    });
    rows.push({
      ...common,
      scenario: 'no-op',
      toolspec: stats(t.noop),
      peerRun: stats(p.noop),
      ratio: pairRatio(t.noop, p.cold),
    });
    rows.push({
      ...common,
      scenario: 'one changed: description',
      toolspec: stats(t.description),
      peerRun: null,
      ratio: pairRatio(t.description, p.cold),
    });
    rows.push({
      ...common,
      scenario: 'one changed: bound',
      toolspec: stats(t.bound),
      peerRun: null,
      ratio: pairRatio(t.bound, p.cold),
    });
  }
  return rows;
}

const SCENARIO = {
  cold: 'cold — toolspec: cache and src/generated empty; peer: empty output folder',
  'no-op': 'no-op — toolspec: nothing changed since the last generate; peer: again on the same output (`--force`)',
  'one changed: description': 'one tool changed — its description',
  'one changed: bound': 'one tool changed — then one property bound of it (`maxLength`/`maximum` + 1)',
};

/** "500", or "500 (realistic)" for the spec with realistic descriptions. */
const label = (r) => (r.spec === 'realistic' ? `${r.n} (realistic)` : String(r.n));

export function generateTables(rows) {
  const r2 = (s) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
  const peerName = rows[0]?.peer ?? PEER;
  const times = [
    `| tools | run | toolspec generate | ${peerName} (no incremental mode) |`,
    '|---|---|---|---|',
    ...rows.map((r) => {
      return `| ${label(r)} | ${SCENARIO[r.scenario]} | ${fmtStats(r.toolspec)} | ${r.peerRun ? fmtStats(r.peerRun) : '—'} |`;
    }),
  ];
  const ratios = [
    `| tools | toolspec cold / peer | toolspec no-op / peer | toolspec one changed (description) / peer | toolspec one changed (bound) / peer |`,
    '|---|---|---|---|---|',
  ];
  const projects = [...new Set(rows.map(label))];
  for (const p of projects) {
    const of = (s) => rows.find((r) => label(r) === p && r.scenario === s).ratio;
    ratios.push(
      `| ${p} | ${r2(of('cold'))} | ${r2(of('no-op'))} | ${r2(of('one changed: description'))} | ${r2(of('one changed: bound'))} |`,
    );
  }
  const notes = projects.map((p) => {
    const r = rows.find((x) => label(x) === p);
    return `${p} tools: the tool edited is \`${r.edited.description}\`, the bound \`${r.edited.bound.split(': ')[1]}\`; 1-minute load average (this benchmark's own processes included) ${r.load[0].toFixed(2)} at the start, ${r.load[1].toFixed(2)} at the end.`;
  });
  return [
    times.join('\n'),
    '',
    `Ratios, median (min–max) of the ${rows[0]?.runs ?? 0} per-iteration ratios. "peer" is ${peerName}'s normal run, its cold run (empty output folder) of the same iteration, the denominator of every column, the no-op one included: it has no incremental mode, so its re-run does the same full work.`,
    '',
    ratios.join('\n'),
    '',
    notes.join(' '),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const t0 = Date.now();
  const rows = benchGenerate({ runs: Number(process.env.RUNS ?? 5) });
  console.log(generateTables(rows));
  console.error(`took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
