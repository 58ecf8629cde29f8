import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** npm as a user runs it (no colour, no prompts), with the warm cache preferred over the network. */
export function npm(args: string[], cwd: string, env: Record<string, string> = {}) {
  return spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, NO_COLOR: '1', CI: 'true', npm_config_prefer_offline: 'true', ...env },
  });
}

/**
 * `npm ci` of a test tool's folder (test/e2e/inspector, oauth, redis), exactly as its lock file says, with no install
 * scripts; again only when the lock file changed since the last install (a stamp file in node_modules says).
 */
export function installLocked(folder: string): void {
  const stamp = path.join(folder, 'node_modules', '.installed-lock');
  const lock = fs.readFileSync(path.join(folder, 'package-lock.json'), 'utf8');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === lock) return;
  const r = npm(['ci', '--no-audit', '--no-fund', '--loglevel=error'], folder, { npm_config_ignore_scripts: 'true' });
  if (r.status !== 0) throw new Error(`npm ci in ${folder} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  fs.writeFileSync(stamp, lock);
}

/**
 * `npm start --silent` with one request on stdin, kept open until the first JSON line comes back (a stdio server
 * stops answering once its stdin ends).
 */
export function startAndAsk(cwd: string, request: object): Promise<string> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
    detached: true,
  });
  child.stdin.write(`${JSON.stringify(request)}\n`);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(reject, new Error(`no answer from npm start; stdout so far: ${out}`)),
      120_000,
    );
    const finish = <T>(settle: (v: T) => void, value: T) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // it has ended already
      }
      settle(value);
    };
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) =>
      finish(reject, new Error(`npm start exited (${code}) without answering:\n${out}${err}`)),
    );
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (line) finish(resolve, line);
    });
  });
}
