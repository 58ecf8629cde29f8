/**
 * `toolspec init` into a folder that has files. The installed project (npm install, npm test, npm start, a client
 * started as its .mcp.json says), from a clone and from a tarball, is test/e2e/newcomer.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { compile, tsFiles } from '../helpers/project.js';
import { tempProject } from '../helpers/tmp.js';

const scratch = tempProject({});
afterAll(scratch.cleanup);

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
    // The user's README has no table markers: the new spec keeps no table in it.
    expect(fs.readFileSync(path.join(dir, 'toolspec.yaml'), 'utf8')).not.toContain('toolTables');
  });

  it("keeps the tool table in a new project's README, and check holds it", () => {
    const dir = path.join(scratch.dir, 'fresh');
    expect(runCli(['init', dir], scratch.dir).code).toBe(0);
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toMatch(/^\| `greet` \| Greet \| Greet someone by name.* \| read-only \| \d+ \|$/m);
    fs.writeFileSync(path.join(dir, 'README.md'), readme.replace('| Greet |', '| Hello |'));
    const check = runCli(['check'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/README\.md:\d+:1 error stale-file/);
  });
});

describe('toolspec init --blank', () => {
  it('starts from a spec with no tools: no example, no warning, and a project whose tests pass', () => {
    // Inside the repository, so that the project's bare imports resolve from its node_modules.
    const base = path.join(repoRoot, 'test', '.tmp');
    fs.mkdirSync(base, { recursive: true });
    const dir = fs.mkdtempSync(path.join(base, 'blank-'));
    try {
      const r = runCli(['init', dir, '--blank', '--force', '--toolspec', 'file:.'], base);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('created a blank MCP server project');
      expect(fs.readFileSync(path.join(dir, 'toolspec.yaml'), 'utf8')).toMatch(/^tools: \[\]$/m);
      expect(fs.existsSync(path.join(dir, 'src/handlers'))).toBe(false);
      expect(compile(tsFiles(path.join(dir, 'src')).concat(tsFiles(path.join(dir, 'test'))))).toEqual([]);
      const tests = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(tests.status, `${tests.stdout}\n${tests.stderr}`).toBe(0);
      expect(tests.stdout).toMatch(/test\/server\.test\.ts/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
