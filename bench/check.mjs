// Drift-check speed: `toolspec check` on generated 100- and 500-tool projects (every handler written) beside
// `tsc --noEmit` of the same project, in the same run, alternating, in fresh processes. Two kinds of check run:
// warm (right after another check: before issue 23 the local cache answered it) and cold (the cache folder removed
// before each run: a CI machine that restores none). check reads no cache now, so the two do the same work.
import fs from 'node:fs';
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
    const warm = [];
    const cold = [];
    const tscRuns = [];
    const cache = path.join(root, 'node_modules/.cache/toolspec');
    for (let i = 0; i < runs; i++) {
      // The runtime templates are read when toolspec runs: one edited meanwhile (in a working tree others are
      // editing) makes the project stale, and check rightly fails. Then the project is generated again and the
      // iteration done again, at most twice.
      for (let attempt = 0; ; attempt++) {
        try {
          const w = timeCommand(process.execPath, [bin, 'check'], { cwd: dir, expectStatus: 0 });
          const t = timeCommand(process.execPath, [tsc, '--noEmit', '-p', '.'], { cwd: dir, expectStatus: 0 });
          fs.rmSync(cache, { recursive: true, force: true });
          const c = timeCommand(process.execPath, [bin, 'check'], { cwd: dir, expectStatus: 0 });
          warm.push(w);
          tscRuns.push(t);
          cold.push(c);
          break;
        } catch (error) {
          if (attempt >= 2 || !/stale/.test(error.message)) throw error;
          console.error(
            `check ${n}: the project went stale during iteration ${i + 1} (a template changed); generating again`,
          );
          timeCommand(process.execPath, [bin, 'generate'], { cwd: dir, expectStatus: 0 });
          timeCommand(process.execPath, [bin, 'check'], { cwd: dir, expectStatus: 0 });
        }
      }
    }
    rows.push({ n, kind: 'warm', check: stats(warm), tsc: stats(tscRuns), ratio: pairRatio(warm, tscRuns) });
    rows.push({ n, kind: 'cold', check: stats(cold), tsc: stats(tscRuns), ratio: pairRatio(cold, tscRuns) });
  }
  return rows;
}

export function checkTable(rows) {
  const lines = [
    '| tools | cache | toolspec check | tsc --noEmit | check / tsc (median, min–max) |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.n} | ${r.kind} | ${fmtStats(r.check)} | ${fmtStats(r.tsc)} | ${r.ratio.median.toFixed(2)} (${r.ratio.min.toFixed(2)}–${r.ratio.max.toFixed(2)}) |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(checkTable(benchCheck({ runs: Number(process.env.RUNS ?? 5) })));
}
