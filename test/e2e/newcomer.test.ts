/**
 * A newcomer's first hour, scripted as the README says it, with nothing published: toolspec from a clone (git clone
 * → npm install → npm run build → npm link) and from a tarball made in that clone (npm pack → npm install -g
 * ./toolspec-0.1.0.tgz); each one's `toolspec init` → npm install → npm test → npm run build → the server started
 * exactly as the .mcp.json that init wrote says (and as the configuration it printed says), by the SDK's real client
 * over stdio, which lists the tools and calls one.
 *
 * The clone is of this repository's HEAD: what is committed, as a newcomer would get it. npm's global prefix is a
 * temp folder, so `npm link` and `npm install -g` touch nothing outside it. One clone and its install serve both
 * cases (the tarball is packed from it, as a user would); the slowest file of the e2e tier.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { npm, startAndAsk } from '../helpers/npm.js';
import { tempProject } from '../helpers/tmp.js';

const work = tempProject({});
afterAll(work.cleanup);
const root = fs.realpathSync(work.dir);
const clone = path.join(root, 'toolspec');
const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
const tarball = path.join(clone, `toolspec-${version}.tgz`);

const ok = (r: ReturnType<typeof npm>) => expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);

beforeAll(() => {
  const git = spawnSync('git', ['clone', '--quiet', repoRoot, clone], { encoding: 'utf8' });
  expect(git.status, git.stderr).toBe(0);
  ok(npm(['install', '--no-audit', '--no-fund'], clone));
  ok(npm(['run', 'build'], clone));
}, 300_000);

/** The toolspec command a case installed: the global prefix's bin/toolspec. */
const toolspecIn = (prefix: string) => path.join(prefix, 'bin', 'toolspec');

const cases = [
  {
    name: 'a clone, linked with npm link',
    server: 'clone-server',
    install(prefix: string) {
      ok(npm(['link'], clone, { npm_config_prefix: prefix }));
      expect(fs.lstatSync(path.join(prefix, 'lib', 'node_modules', 'toolspec')).isSymbolicLink()).toBe(true);
    },
    target: clone,
    why: `toolspec runs from ${clone}, not from a registry install`,
  },
  {
    name: 'a tarball made by npm pack in the clone, installed with npm install -g',
    server: 'tarball-server',
    install(prefix: string) {
      ok(npm(['pack'], clone));
      expect(fs.existsSync(tarball)).toBe(true);
      ok(
        npm(['install', '-g', `./${path.basename(tarball)}`, '--no-audit', '--no-fund'], clone, {
          npm_config_prefix: prefix,
        }),
      );
      expect(fs.lstatSync(path.join(prefix, 'lib', 'node_modules', 'toolspec')).isSymbolicLink()).toBe(false);
    },
    target: tarball,
    why: `toolspec was installed from the tarball ${tarball}, made by npm pack`,
  },
] as const;

for (const c of cases) {
  describe(`toolspec from ${c.name}`, () => {
    const prefix = path.join(root, `prefix-${c.server}`);
    const dir = path.join(root, c.server);
    // Written relative to the project, so that the two can move together.
    const relative = path.relative(dir, c.target);
    const dependency = `file:${relative.startsWith('.') ? relative : `./${relative}`}`;
    let printed = '';

    it('init writes the dependency that installs here, and says which and why', () => {
      c.install(prefix);
      const init = spawnSync(toolspecIn(prefix), ['init', c.server], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(init.stderr).toBe('');
      expect(init.status).toBe(0);
      printed = init.stdout;
      expect(printed).toContain(`toolspec dependency: "toolspec": "${dependency}" (${c.why}`);
      expect(printed).toContain('once toolspec is on your registry: npm install -D toolspec@^');
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      expect(pkg.devDependencies.toolspec).toBe(dependency);
    }, 240_000);

    it('installs, and passes its own npm test', () => {
      ok(npm(['install', '--no-audit', '--no-fund'], dir));
      const test = npm(['test', '--', '--reporter=verbose'], dir);
      ok(test);
      expect(test.stdout).toMatch(
        /✓ src\/generated\/examples\.test\.ts > examples in toolspec\.yaml > greet › greets in English by default/,
      );
      expect(test.stdout).toMatch(
        /✓ src\/generated\/examples\.test\.ts > prompt examples in toolspec\.yaml > introduce › the name is required/,
      );
      expect(test.stdout).toMatch(
        /✓ src\/generated\/examples\.test\.ts > resource examples in toolspec\.yaml > languages › lists the languages/,
      );
      expect(test.stdout).toMatch(/✓ test\/server\.test\.ts > the MCP server, protocol 2026-07-28 > lists its tools/);
      expect(test.stdout).toMatch(/✓ test\/server\.test\.ts > the MCP server, protocol 2025 > lists its tools/);
      expect(test.stdout).not.toContain('dist/');
      expect(test.stdout).toMatch(/Tests\s+11 passed \(11\)/);
    }, 300_000);

    it('serves a client started as its .mcp.json says, the same command init printed', async () => {
      ok(npm(['run', 'build'], dir));
      const config = JSON.parse(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8')) as {
        mcpServers: Record<string, { command: string; args: string[] }>;
      };
      expect(Object.keys(config.mcpServers)).toEqual([c.server]);
      // The project's file holds a path relative to the project (it goes into git); what init printed to paste
      // elsewhere holds this machine's absolute path.
      const entry = config.mcpServers[c.server]!;
      expect(entry).toEqual({ command: 'node', args: ['dist/src/generated/main.js'] });
      const absolute = { command: 'node', args: [path.join(dir, 'dist/src/generated/main.js')] };
      const vscode = /VS Code +\.vscode\/mcp\.json: (.*)$/m.exec(printed)?.[1];
      expect(JSON.parse(vscode!)).toEqual({ servers: { [c.server]: { type: 'stdio', ...absolute } } });
      const desktop = /Claude Desktop .*?: (\{.*)$/m.exec(printed)?.[1];
      expect(JSON.parse(desktop!)).toEqual({ mcpServers: { [c.server]: absolute } });

      // As Claude Code starts it: the command and its arguments, in the project's folder, with the SDK's default
      // environment. Any stray byte on stdout would break the connection.
      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        cwd: dir,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'newcomer', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet']);
        const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
      } finally {
        await client.close();
      }
      expect(stderr).toBe(`${c.server} 0.1.0 ready on stdio\n`);
    }, 120_000);

    it('builds into a clean dist/, without the tests, and stops on a type error', () => {
      // What an earlier build left (a handler since renamed or deleted) does not survive the next one.
      const stale = path.join(dir, 'dist/src/handlers/renamed_away.js');
      fs.writeFileSync(stale, 'export const handler = () => "stale";\n');
      ok(npm(['run', 'build'], dir));
      expect(fs.existsSync(stale)).toBe(false);
      expect(fs.existsSync(path.join(dir, 'dist/test'))).toBe(false);
      expect(fs.existsSync(path.join(dir, 'dist/src/generated/examples.test.js'))).toBe(false);
      expect(fs.existsSync(path.join(dir, 'dist/src/generated/main.js'))).toBe(true);
      const broken = path.join(dir, 'src/broken.ts');
      fs.writeFileSync(broken, 'export const n: number = "not a number";\n');
      try {
        const failed = npm(['run', 'build'], dir);
        expect(failed.status).not.toBe(0);
        expect(fs.existsSync(path.join(dir, 'dist/src/generated/main.js'))).toBe(false);
      } finally {
        fs.rmSync(broken);
      }
      ok(npm(['run', 'build'], dir));
    }, 120_000);
  });
}

describe('the project from the clone, further', () => {
  const dir = path.join(root, 'clone-server');

  it('answers MCP with npm start, regenerates to the same bytes, and has nothing of the v1 SDK', async () => {
    const reply = await startAndAsk(dir, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(JSON.parse(reply)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'clone-server' }, capabilities: { tools: {} } },
    });
    // init wrote what generate writes: the project's own generate is a no-op right after it.
    const regen = npm(['run', 'generate', '--silent'], dir);
    ok(regen);
    expect(regen.stdout).toMatch(/: 33 files, 0 written, 33 unchanged — /);
    const ls = npm(['ls', '@modelcontextprotocol/sdk', '--all', '--parseable'], dir);
    expect(ls.stdout.trim()).toBe('');
    expect(npm(['ls', '@modelcontextprotocol/server'], dir).stdout).toMatch(/@modelcontextprotocol\/server@2\.4\./);
  }, 180_000);
});
