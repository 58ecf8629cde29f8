// Timing helpers for the benchmarks: whole commands in fresh processes, median with min and max.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

const GNU_TIME = '/usr/bin/time';
const PEAK_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import fs from 'node:fs'; process.on('exit', () => { try { fs.writeFileSync(process.env.TOOLSPEC_BENCH_PEAK, String(process.resourceUsage().maxRSS)); } catch {} });",
)}`;

/**
 * Runs a Node script in a fresh process and returns its wall time (ms), exit status, output and peak resident
 * memory (MiB): GNU time's maximum RSS when /usr/bin/time is there (the process and any child it waited for),
 * else process.resourceUsage().maxRSS written by a preloaded module when the process exits (the process and its
 * worker threads). `args` are the script and its arguments.
 */
/** @param {string[]} args @param {{ cwd?: string }} [options] */
export function runWithPeak(args, { cwd } = {}) {
  const file = path.join(os.tmpdir(), `toolspec-bench-peak-${process.pid}-${Date.now()}`);
  const gnu = fs.existsSync(GNU_TIME);
  const [cmd, argv, env] = gnu
    ? [GNU_TIME, ['-f', '%M', '-o', file, process.execPath, ...args], process.env]
    : [process.execPath, ['--import', PEAK_PRELOAD, ...args], { ...process.env, TOOLSPEC_BENCH_PEAK: file }];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let peakMiB = NaN;
  try {
    // GNU time writes "Command exited with non-zero status N" before the figure when the command fails.
    const kib = Number(fs.readFileSync(file, 'utf8').trim().split('\n').pop());
    peakMiB = kib / 1024;
  } catch {
    // no figure: NaN
  } finally {
    fs.rmSync(file, { force: true });
  }
  return { ms, status: r.status, out: `${r.stdout}${r.stderr}`, peakMiB };
}

/**
 * Spawns a server process (node flags, then the entry and its arguments); resolves with { url, pid, stderr, close }
 * once it printed the URL it listens on. close() sends SIGTERM and waits for the exit.
 */
export function startServer(args, cwd, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not listen in 60 s:\n${stderr}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${stderr}`)));
    child.stderr.on('data', (d) => {
      stderr += d;
      // Once: what the server writes later must not touch the exit listeners close() relies on.
      const m = listening ? null : /listening on (http:\/\/\S+)/.exec(stderr);
      if (!m) return;
      listening = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.on('exit', (code, signal) => (stderr += `\n(exited: ${code ?? signal})`));
      resolve({
        url: new URL(m[1]),
        pid: child.pid,
        stderr: () => stderr,
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done(undefined);
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
