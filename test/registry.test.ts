/** server.registry: server.json for the MCP Registry, validated against its schema of 2025-12-11, held by check. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const spec = (server: string) => `toolspec: 1
server:
  name: notes
  version: 1.2.0
${server}
tools:
  - name: find_notes
    description: Find notes.
    inputSchema: { type: object, properties: { q: { type: string } } }
`;
const SERVER = `  title: Notes
  description: Notes for agents.
  registry:
    name: io.github.acme/notes
    remote: https://notes.example.com/mcp`;
const PACKAGE = {
  name: '@acme/notes-mcp',
  version: '1.2.0',
  mcpName: 'io.github.acme/notes',
  repository: { type: 'git', url: 'git+https://github.com/acme/notes.git' },
};

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});
function project(server: string, pkg: object | string = PACKAGE) {
  const p = tempProject({
    'toolspec.yaml': spec(server),
    'package.json': typeof pkg === 'string' ? pkg : `${JSON.stringify(pkg, null, 2)}\n`,
  });
  cleanups.push(p.cleanup);
  return p.dir;
}
const read = (dir: string) => fs.readFileSync(path.join(dir, 'server.json'), 'utf8');

describe('server.json', () => {
  it('ships the registry schema of 2025-12-11 as published', () => {
    const bytes = fs.readFileSync(path.join(import.meta.dirname, '..', 'schema', 'registry', 'server.schema.json'));
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(
      '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0',
    );
  });

  it('is written from the server block and package.json, and check holds it', async () => {
    const dir = project(SERVER);
    expect((await runMain(['generate'], dir)).code).toBe(0);
    expect(JSON.parse(read(dir))).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.acme/notes',
      title: 'Notes',
      description: 'Notes for agents.',
      version: '1.2.0',
      repository: { url: 'https://github.com/acme/notes', source: 'github' },
      packages: [
        { registryType: 'npm', identifier: '@acme/notes-mcp', version: '1.2.0', transport: { type: 'stdio' } },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://notes.example.com/mcp' }],
      _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { generator: 'toolspec' } },
    });
    expect((await runMain(['check'], dir)).code).toBe(0);
    fs.writeFileSync(path.join(dir, 'server.json'), read(dir).replace('1.2.0', '1.1.0'));
    const stale = await runMain(['check'], dir);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/server\.json:6:1 error stale-file/);
    fs.rmSync(path.join(dir, 'server.json'));
    expect((await runMain(['check'], dir)).stdout).toMatch(/server\.json:1:1 error missing-file/);
  });

  it('lists no npm package for a private one', async () => {
    const dir = project(SERVER, { ...PACKAGE, private: true });
    expect((await runMain(['generate'], dir)).code).toBe(0);
    expect(JSON.parse(read(dir))).not.toHaveProperty('packages');
  });

  it('says at the spec line (or package.json) what the registry would refuse, and writes nothing', async () => {
    const long = 'x'.repeat(101);
    const cases: [string, object | string, RegExp][] = [
      [
        SERVER.replace('Notes for agents.', long),
        PACKAGE,
        /toolspec\.yaml:6:16 error TS052 server\.json description must NOT have more than 100 characters/,
      ],
      [
        `${SERVER}\n    description: ${long}`,
        PACKAGE,
        /toolspec\.yaml:10:18 error TS052 server\.json description must NOT have more than 100 characters/,
      ],
      [
        SERVER.replaceAll('io.github.acme/notes', 'notes'),
        { ...PACKAGE, mcpName: 'notes' },
        /toolspec\.yaml:8:11 error TS052 server\.json name must match pattern/,
      ],
      [
        SERVER,
        { ...PACKAGE, version: '1.3.0' },
        /toolspec\.yaml:4:12 error TS052 server\.version is "1\.2\.0", package\.json says "1\.3\.0"/,
      ],
      [SERVER, { ...PACKAGE, mcpName: undefined }, /package\.json:1:1 error TS052 package\.json has no mcpName/],
      [
        SERVER,
        { ...PACKAGE, mcpName: 'io.github.other/notes' },
        /package\.json:4:1 error TS052 package\.json has mcpName "io\.github\.other\/notes"/,
      ],
      [SERVER, '{ not json', /package\.json:1:1 error TS052 package\.json is not valid JSON/],
      [
        SERVER.replace('  description: Notes for agents.\n', ''),
        PACKAGE,
        /error TS052 server\.registry needs a description/,
      ],
    ];
    for (const [server, pkg, message] of cases) {
      const dir = project(server, pkg);
      const run = await runMain(['generate'], dir);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(fs.existsSync(path.join(dir, 'server.json'))).toBe(false);
      expect(fs.existsSync(path.join(dir, 'src'))).toBe(false);
      expect((await runMain(['check'], dir)).stderr).toMatch(message);
    }
  });

  it('never replaces a server.json that toolspec did not write', async () => {
    const dir = project(SERVER);
    const own = '{ "name": "io.github.acme/notes", "version": "0.9.0" }\n';
    fs.writeFileSync(path.join(dir, 'server.json'), own);
    const run = await runMain(['generate'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('server.json exists and toolspec did not write it');
    expect(read(dir)).toBe(own);
    expect(fs.existsSync(path.join(dir, 'src/generated'))).toBe(false);
  });
});
