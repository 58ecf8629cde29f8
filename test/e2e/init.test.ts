/**
 * `toolspec init` into a folder that has files. The installed project (npm install, npm test, npm start, a client
 * started as its .mcp.json says), from a clone and from a tarball, is test/e2e/newcomer.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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
  });
});
