// Drift-check speed: `toolspec check` on generated 100- and 500-tool projects (every handler written) beside
// `tsc --noEmit` of the same project, in the same run, alternating, in fresh processes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { fmtStats, pairRatio, stats, timeCommand } from './lib.mjs';
import { writeProject } from './synth.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/toolspec.js');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

export function benchCheck({ sizes = [100, 500], runs = 5 } = {}) {
  const rows = [];
  for (const n of sizes) {
    const dir = path.join(root, 'bench/.work', `check-${n}`);
    writeProject(dir, n);
    timeCommand(process.execPath, [bin, 'generate'], { cwd: dir, expectStatus: 0 });
    timeCommand(process.execPath, [bin, 'check'], { cwd: dir, expectStatus: 0 }); // warm the disk cache, and prove it is clean
    const check = [];
    const tscRuns = [];
    for (let i = 0; i < runs; i++) {
      check.push(timeCommand(process.execPath, [bin, 'check'], { cwd: dir, expectStatus: 0 }));
      tscRuns.push(timeCommand(process.execPath, [tsc, '--noEmit', '-p', '.'], { cwd: dir, expectStatus: 0 }));
    }
    rows.push({ n, check: stats(check), tsc: stats(tscRuns), ratio: pairRatio(check, tscRuns) });
  }
  return rows;
}

export function checkTable(rows) {
  const lines = ['| tools | toolspec check | tsc --noEmit | check / tsc (median, min–max) |', '|---|---|---|---|'];
  for (const r of rows) {
    lines.push(`| ${r.n} | ${fmtStats(r.check)} | ${fmtStats(r.tsc)} | ${r.ratio.median.toFixed(2)} (${r.ratio.min.toFixed(2)}–${r.ratio.max.toFixed(2)}) |`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(checkTable(benchCheck({ runs: Number(process.env.RUNS ?? 5) })));
}
