// Scale: how generate and check grow with the number of tools, up to the loader's limit (2,000 tools), with the
// peak memory of every run, so that the growth is visible and can be judged linear or not.
//
// The projects are prefixes of one seeded 2,000-tool spec (bench/synth.mjs): the 100-tool project is the first 100
// tools of the 500-tool one, which is the first 500 of the 2,000-tool one. So every size holds the smaller ones, and
// the tool edited in "one tool changed" is the same tool (same name, same schemas) at every size. (The generate and
// check sections use synthSpec(n) per size, whose tools differ between sizes: their figures are not comparable with
// these tool for tool.)
//
// Per iteration, the sizes back to back (so that the ratios between sizes are taken pair by pair within an
// iteration), and for each size, in this order, every run a fresh process with its wall time and peak RSS:
//   cold          cache folder (node_modules/.cache/toolspec of the repo) and src/generated removed, then generate
//   no-op         generate again, nothing changed
//   one changed   the edited tool's description changed in toolspec.yaml, then generate
//   check, no cache   the cache folder removed, then check (a CI machine that restores none)
//   check, cache      check again (the cache the previous check left)
// One discarded cold generate per size first warms the disk cache. Each toolspec run is checked to have taken the
// path it is meant to measure (as in bench/generate.mjs); an iteration that did not is done again, at most twice.
//
// `node bench/scale.mjs` prints the table (SCALE_RUNS=3 by default, SCALE_SIZES=100,500,2000).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtMs, runWithPeak, stats } from './lib.mjs';
import { handlerSource, synthSpec, TSCONFIG } from './synth.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'bench/.work');
const bin = path.join(root, 'bin/toolspec.js');
const cache = path.join(root, 'node_modules/.cache/toolspec');

export const SCALE_SIZES = [100, 500, 2000];
/** The figures, in table order. */
export const FIGURES = ['cold', 'no-op', 'one changed', 'check, no cache', 'check, cache'];

/** Writes the project of the first n tools of the largest spec; returns the spec text. */
function writePrefixProject(dir, spec, n) {
  const part = { ...spec, server: { ...spec.server, name: `bench-scale-${n}` }, tools: spec.tools.slice(0, n) };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src/handlers'), { recursive: true });
  const text = JSON.stringify(part, null, 1); // JSON is YAML
  fs.writeFileSync(path.join(dir, 'toolspec.yaml'), text);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of part.tools) fs.writeFileSync(path.join(dir, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  return text;
}

/** One toolspec run, checked to have done what `expect` says. */
function toolspec(dir, command, expect) {
  const r = runWithPeak([bin, command], { cwd: dir });
  let ok = r.status === 0;
  if (command === 'generate') {
    const m = /(\d+) files, (\d+) written/.exec(r.out);
    ok &&=
      !!m && (expect === 'cold' ? m[1] === m[2] : expect === 'noop' ? m[2] === '0' : Number(m[2]) > 0 && m[2] !== m[1]);
  }
  if (!ok)
    throw Object.assign(new Error(`toolspec ${command} (${expect}) in ${dir} did not do what it should:\n${r.out}`), {
      retry: true,
    });
  if (!Number.isFinite(r.peakMiB)) throw new Error(`no peak memory figure for toolspec ${command} in ${dir}`);
  return r;
}

export function benchScale({ sizes = SCALE_SIZES, runs = 3, log = (s) => console.error(s) } = {}) {
  const largest = synthSpec(Math.max(...sizes));
  const projects = sizes.map((n) => {
    const dir = path.join(work, `scale-${n}`);
    return { n, dir, text: writePrefixProject(dir, largest, n) };
  });
  // The tool edited: the first from the middle of the smallest project, so every size has it.
  const target = largest.tools[Math.min(...sizes) >> 1].name;
  const reset = (p) => {
    fs.writeFileSync(path.join(p.dir, 'toolspec.yaml'), p.text);
    fs.rmSync(cache, { recursive: true, force: true });
    fs.rmSync(path.join(p.dir, 'src/generated'), { recursive: true, force: true });
  };
  for (const p of projects) {
    reset(p);
    toolspec(p.dir, 'generate', 'cold');
  }
  const series = Object.fromEntries(
    sizes.map((n) => [n, Object.fromEntries(FIGURES.map((f) => [f, { ms: [], peak: [] }]))]),
  );
  const load = [os.loadavg()[0]];
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    for (const p of projects) {
      for (let attempt = 0; ; attempt++) {
        try {
          reset(p);
          const got = {};
          got.cold = toolspec(p.dir, 'generate', 'cold');
          got['no-op'] = toolspec(p.dir, 'generate', 'noop');
          const spec = JSON.parse(fs.readFileSync(path.join(p.dir, 'toolspec.yaml'), 'utf8'));
          spec.tools.find((t) => t.name === target).description += ` Edited in run ${i + 1}.`;
          fs.writeFileSync(path.join(p.dir, 'toolspec.yaml'), JSON.stringify(spec, null, 1));
          got['one changed'] = toolspec(p.dir, 'generate', 'changed');
          fs.rmSync(cache, { recursive: true, force: true });
          got['check, no cache'] = toolspec(p.dir, 'check', 'clean');
          got['check, cache'] = toolspec(p.dir, 'check', 'clean');
          for (const f of FIGURES) {
            series[p.n][f].ms.push(got[f].ms);
            series[p.n][f].peak.push(got[f].peakMiB);
          }
          break;
        } catch (e) {
          if (!e.retry || attempt >= 2) throw e;
          log(`scale ${p.n} tools, run ${i + 1}: ${e.message.split('\n')[0]}; running it again`);
        }
      }
      log(`scale: ${p.n} tools, run ${i + 1}/${runs} done at ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
  load.push(os.loadavg()[0]);
  const rows = [];
  for (const n of sizes) {
    for (const f of FIGURES) {
      const s = series[n][f];
      rows.push({ table: 'scale', n, figure: f, runs, edited: target, load, ms: s.ms, peak: s.peak });
    }
  }
  return rows;
}

/** Median of the pair-by-pair ratios a[i] / b[i]. */
const pairMedian = (a, b) => stats(a.map((x, i) => x / b[i])).median;

/**
 * How a figure grows from size a to size b: the exponent k of t ∝ n^k fitted through the two medians (1: linear,
 * below 1: sub-linear, the fixed part of the cost still showing), and the cost per added tool on that step.
 */
function growth(rows, figure, key, a, b) {
  const ra = rows.find((r) => r.n === a && r.figure === figure);
  const rb = rows.find((r) => r.n === b && r.figure === figure);
  if (!ra || !rb) return undefined;
  const ratio = pairMedian(rb[key], ra[key]);
  return {
    ratio,
    exponent: Math.log(ratio) / Math.log(b / a),
    perTool: (stats(rb[key]).median - stats(ra[key]).median) / (b - a),
  };
}

/** The judgement of one figure over the sizes: linear or better, or worse, and why. */
export function linearity(rows, figure, key = 'ms') {
  const sizes = [...new Set(rows.map((r) => r.n))].sort((x, y) => x - y);
  const steps = [];
  for (let i = 1; i < sizes.length; i++)
    steps.push({ a: sizes[i - 1], b: sizes[i], ...growth(rows, figure, key, sizes[i - 1], sizes[i]) });
  // Linear or better: no step grows faster than n^1.1 (10 % above proportional, this machine's noise), and the cost
  // of a tool added on the last step is at most 1.25 × that of one added on the first (no per-tool cost that climbs).
  const worst = Math.max(...steps.map((s) => s.exponent));
  const first = steps[0]?.perTool;
  const last = steps[steps.length - 1]?.perTool;
  const climbing = steps.length > 1 && first > 0 && last > 1.25 * first;
  return { steps, linear: worst <= 1.1 && !climbing, worst, first, last };
}

const fmtMiB = (m) => `${m.toFixed(0)} MiB`;
const range = (values, f) => {
  const s = stats(values);
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
};

export function scaleTables(rows) {
  if (!rows.length) return 'Not measured in this run.';
  const sizes = [...new Set(rows.map((r) => r.n))].sort((x, y) => x - y);
  const out = [
    `| tools | ${FIGURES.map((f) => `${f}: time`).join(' | ')} |`,
    `|---|${FIGURES.map(() => '---').join('|')}|`,
  ];
  for (const n of sizes) {
    const of = (f) => rows.find((r) => r.n === n && r.figure === f);
    out.push(`| ${n} | ${FIGURES.map((f) => range(of(f).ms, fmtMs)).join(' | ')} |`);
  }
  out.push(
    '',
    `| tools | ${FIGURES.map((f) => `${f}: peak RSS`).join(' | ')} |`,
    `|---|${FIGURES.map(() => '---').join('|')}|`,
  );
  for (const n of sizes) {
    const of = (f) => rows.find((r) => r.n === n && r.figure === f);
    out.push(`| ${n} | ${FIGURES.map((f) => range(of(f).peak, fmtMiB)).join(' | ')} |`);
  }
  const steps = sizes.slice(1).map((b, i) => `${sizes[i]} → ${b}`);
  out.push(
    '',
    `Growth, from the medians: for each step between sizes, the ratio of the times (pair by pair within an iteration), the exponent k of time ∝ tools^k it implies (1 is linear; below 1 the fixed part of the cost still shows), and the time each added tool cost on that step; then the verdict: linear or better when no step grows faster than tools^1.1 and a tool added on the last step costs at most 1.25 × one added on the first. Memory is judged the same way on the peak RSS.`,
    '',
    `| figure | ${steps.map((s) => `${s}: ratio, k, per added tool`).join(' | ')} | linear or better? |`,
    `|---|${steps.map(() => '---').join('|')}|---|`,
  );
  /** @type {[string, string, (x: number) => string][]} */
  const kinds = [
    ['ms', 'time', (x) => (x >= 1 ? `${x.toFixed(1)} ms` : `${(x * 1000).toFixed(0)} µs`)],
    ['peak', 'peak RSS', (x) => `${(x * 1024).toFixed(0)} KiB`],
  ];
  for (const [key, unit, f] of kinds) {
    for (const figure of FIGURES) {
      const l = linearity(rows, figure, key);
      const cells = l.steps.map((s) => `${s.ratio.toFixed(2)}×, k ${s.exponent.toFixed(2)}, ${f(s.perTool)}`);
      out.push(`| ${figure}: ${unit} | ${cells.join(' | ')} | ${l.linear ? 'yes' : '**no**'} |`);
    }
  }
  const r0 = rows[0];
  out.push(
    '',
    `${r0.runs} iterations; the tool edited is \`${r0.edited}\` (in every size); 1-minute load average (this benchmark's own processes included) ${r0.load[0].toFixed(2)} at the start, ${r0.load[1].toFixed(2)} at the end. Peak RSS: ${fs.existsSync('/usr/bin/time') ? "GNU time's maximum resident set size of the toolspec process" : 'process.resourceUsage().maxRSS of the toolspec process, written when it exits'}.`,
  );
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const t0 = Date.now();
  const sizes = process.env.SCALE_SIZES ? process.env.SCALE_SIZES.split(',').map(Number) : undefined;
  const rows = benchScale({ runs: Number(process.env.SCALE_RUNS ?? 3), ...(sizes ? { sizes } : {}) });
  console.log(scaleTables(rows));
  console.error(`took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
