// Timing helpers for the benchmarks: whole commands in fresh processes, median with min and max.
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export function timeCommand(cmd, args, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (opts.expectStatus !== undefined && r.status !== opts.expectStatus) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return ms;
}

export function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

export const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
export const fmtStats = (s) => `${fmtMs(s.median)} (${fmtMs(s.min)}–${fmtMs(s.max)})`;

/** Ratios computed pair by pair within the same run (a/b of run i), then their median. */
export function pairRatio(a, b) {
  return stats(a.map((x, i) => x / b[i]));
}

export function machine() {
  return `${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}
