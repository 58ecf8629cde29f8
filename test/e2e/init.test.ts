/**
 * `toolspec init` end to end: a new project, installed with npm (toolspec itself from this checkout, nothing
 * published), answers MCP over stdio with `npm start` and passes its own `npm test`, which runs the contract tests
 * generated from the spec's examples. The slowest test: run once.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { tempProject } from '../helpers/tmp.js';

const scratch = tempProject({});
afterAll(scratch.cleanup);

const npm = (args: string[], cwd: string, input?: string) =>
  spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    input,
    timeout: 240_000,
    env: { ...process.env, NO_COLOR: '1', CI: 'true' },
  });

/** `npm start --silent` with one request on stdin, kept open until the first JSON line comes back (a stdio server
 * stops answering once its stdin ends). */
function startAndAsk(cwd: string, request: object): Promise<string> {
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

describe('toolspec init', () => {
  it('refuses a folder that is not empty, and with --force adds files without overwriting any', () => {
    const dir = path.join(scratch.dir, 'existing');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'README.md'), 'mine\n');
    const refused = runCli(['init', dir], scratch.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not empty; pass --force');
    expect(fs.readdirSync(dir)).toEqual(['README.md']);
    const forced = runCli(['init', dir, '--force'], scratch.dir);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('kept README.md: it exists already');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('mine\n');
    expect(fs.existsSync(path.join(dir, 'src/generated/contract.ts'))).toBe(true);
  });

  it('makes a project that installs, passes its own npm test, and serves MCP with npm start', async () => {
    const dir = path.join(scratch.dir, 'weather-server');
    const init = runCli(['init', dir, '--toolspec', `file:${repoRoot}`], scratch.dir);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name).toBe('weather-server');

    const install = npm(['install', '--no-audit', '--no-fund'], dir);
    expect(install.status, install.stderr).toBe(0);

    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const reply = await startAndAsk(dir, request);
    expect(JSON.parse(reply)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'weather-server' }, capabilities: { tools: {} } },
    });

    // After npm start has built dist/: the tests run from the sources only, the spec's examples among them.
    const test = npm(['test', '--', '--reporter=verbose'], dir);
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(
      /✓ src\/generated\/examples\.test\.ts > examples in toolspec\.yaml > greet › greets in English by default/,
    );
    expect(test.stdout).toMatch(
      /✓ src\/generated\/examples\.test\.ts > examples in toolspec\.yaml > greet › a language it does not know is rejected/,
    );
    expect(test.stdout).toMatch(/✓ test\/server\.test\.ts > the MCP server, protocol 2026-07-28 > lists its tools/);
    expect(test.stdout).toMatch(/✓ test\/server\.test\.ts > the MCP server, protocol 2025 > lists its tools/);
    expect(test.stdout).not.toContain('dist/');
    expect(test.stdout).toMatch(/Tests\s+8 passed \(8\)/);

    // The project's own generate is a no-op right after init: init wrote what generate writes.
    const regen = npm(['run', 'generate', '--silent'], dir);
    expect(regen.status, regen.stderr).toBe(0);
    expect(regen.stdout).toMatch(/0 written, 21 unchanged/);

    // A v2 project through and through: nothing in it depends on the 2025-only v1 SDK.
    const ls = npm(['ls', '@modelcontextprotocol/sdk', '--all', '--parseable'], dir);
    expect(ls.stdout.trim()).toBe('');
    expect(npm(['ls', '@modelcontextprotocol/server'], dir).stdout).toMatch(/@modelcontextprotocol\/server@2\.4\./);
  }, 300_000);
});
