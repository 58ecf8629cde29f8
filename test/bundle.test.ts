/** options.bundleManifest: the MCP bundle's manifest.json, whose version and tools generate keeps and check holds. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const SPEC = `toolspec: 1
server: { name: notes, version: 1.2.0 }
options:
  bundleManifest: manifest.json
tools:
  - name: find_notes
    description: Find notes.
    inputSchema: { type: object, properties: { q: { type: string } } }
  - name: old_find
    deprecated: use find_notes.
    inputSchema: { type: object }
`;
const MANIFEST = {
  manifest_version: '0.3',
  name: 'notes',
  version: '1.0.0',
  author: { name: 'Acme' },
  server: { type: 'node', entry_point: 'dist/main.js', mcp_config: { command: 'node', args: ['dist/main.js'] } },
  tools: [{ name: 'gone', description: 'A tool the server no longer has.' }],
  prompts: [{ name: 'summarise', description: 'Summarise.', text: 'Summarise the notes.' }],
};

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});
function project(manifest: string | undefined, spec = SPEC) {
  const p = tempProject({ 'toolspec.yaml': spec, ...(manifest === undefined ? {} : { 'manifest.json': manifest }) });
  cleanups.push(p.cleanup);
  return p.dir;
}
const read = (dir: string) => fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');

describe('the bundle manifest', () => {
  it("keeps the manifest's version and tools, leaves the rest as written, and check holds them", async () => {
    const dir = project(JSON.stringify(MANIFEST));
    const run = await runMain(['generate'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('updated manifest.json');
    expect(read(dir)).toBe(
      `${JSON.stringify(
        {
          ...MANIFEST,
          version: '1.2.0',
          tools: [
            { name: 'find_notes', description: 'Find notes.' },
            { name: 'old_find', description: 'Deprecated: use find_notes.' },
          ],
        },
        null,
        2,
      )}\n`,
    );
    expect((await runMain(['check'], dir)).code).toBe(0);
    // A second generate changes nothing.
    expect((await runMain(['generate'], dir)).stdout).not.toContain('manifest.json');
    fs.writeFileSync(path.join(dir, 'manifest.json'), read(dir).replace('"1.2.0"', '"1.1.0"'));
    const stale = await runMain(['check'], dir);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/manifest\.json:\d+:1 error stale-file/);
  });

  it('says at options.bundleManifest why a file cannot be kept, and writes nothing', async () => {
    const cases: [string | undefined, RegExp][] = [
      [undefined, /toolspec\.yaml:4:19 error TS053 options\.bundleManifest names manifest\.json, which does not exist/],
      ['{ nope', /error TS053 options\.bundleManifest names manifest\.json, which is not valid JSON/],
      ['[1, 2]', /error TS053 .* which is not a JSON object/],
      ['{ "name": "notes" }', /error TS053 .* which has no "manifest_version": it is not an MCP bundle manifest/],
    ];
    for (const [manifest, message] of cases) {
      const dir = project(manifest);
      const run = await runMain(['generate'], dir);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(fs.existsSync(path.join(dir, 'src'))).toBe(false);
      if (manifest !== undefined) expect(read(dir)).toBe(manifest);
    }
    const outside = project(JSON.stringify(MANIFEST), SPEC.replace('manifest.json', '../manifest.json'));
    const run = await runMain(['generate'], outside);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /toolspec\.yaml:4:19 error TS016 options\.bundleManifest "\.\.\/manifest\.json" must be a file below/,
    );
  });
});
