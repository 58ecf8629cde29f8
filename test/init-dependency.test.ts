/**
 * `toolspec init` writes a toolspec dependency that installs where it runs: a registry range for a registry copy, the
 * clone, the tarball or the folder it runs from otherwise (src/init/scaffold.ts), and a `.mcp.json` that starts the built
 * server with node. The installs themselves are in test/e2e/newcomer.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  explicitDependency,
  projectRelative,
  runningToolspec,
  toolspecDependency,
  type ToolspecOrigin,
} from '../src/init/scaffold.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const scratch = tempProject({});
afterAll(scratch.cleanup);

const none = () => false;
const all = () => true;
const installed = (extra: Partial<ToolspecOrigin> = {}): ToolspecOrigin => ({
  root: '/usr/lib/node_modules/toolspec',
  version: '0.3.1',
  ...extra,
});

describe('the toolspec dependency init writes', () => {
  it('is the folder toolspec runs from when that is a clone (or a link to one), not an install', () => {
    const d = toolspecDependency({ root: '/home/ada/src/toolspec', version: '0.3.1' }, none);
    expect(d.spec).toBe('file:/home/ada/src/toolspec');
    expect(d.why).toContain('runs from /home/ada/src/toolspec, not from a registry install');
    expect(d.warning).toBeUndefined();
  });

  it('is a registry range for a copy installed from a registry, recorded or not', () => {
    expect(toolspecDependency(installed(), none)).toMatchObject({ spec: '^0.3.1' });
    const recorded = installed({ resolved: 'https://registry.npmjs.org/toolspec/-/toolspec-0.3.1.tgz' });
    expect(toolspecDependency(recorded, none)).toMatchObject({
      spec: '^0.3.1',
      why: expect.stringContaining('registry'),
    });
  });

  it('is the tarball npm recorded (npx ./toolspec-0.3.1.tgz, or a local install of it) while it is there', () => {
    const origin = installed({ resolved: 'file:/tmp/pk/toolspec-0.3.1.tgz' });
    expect(toolspecDependency(origin, all)).toEqual({
      spec: 'file:/tmp/pk/toolspec-0.3.1.tgz',
      why: 'toolspec was installed from the tarball /tmp/pk/toolspec-0.3.1.tgz',
    });
    const gone = toolspecDependency(origin, none);
    expect(gone.spec).toBe('^0.3.1');
    expect(gone.warning).toContain('run init again with --toolspec');
  });

  it('is the tarball npm pack made it into, for a global install from it (npm records nothing there)', () => {
    const origin = installed({ packedAs: '/home/ada/src/toolspec/toolspec-0.3.1.tgz' });
    expect(toolspecDependency(origin, (f) => f === origin.packedAs).spec).toBe(
      'file:/home/ada/src/toolspec/toolspec-0.3.1.tgz',
    );
    const moved = toolspecDependency(origin, none);
    expect(moved).toMatchObject({ spec: '^0.3.1', why: expect.stringContaining('not there any more') });
    expect(moved.warning).toBeDefined();
    // What npm recorded wins over the stamp: the copy came from there.
    expect(toolspecDependency({ ...origin, resolved: 'file:/elsewhere/t.tgz' }, all).spec).toBe(
      'file:/elsewhere/t.tgz',
    );
  });

  it('is the folder or the git source npm recorded', () => {
    expect(toolspecDependency(installed({ resolved: 'file:/home/ada/toolspec' }), all)).toMatchObject({
      spec: 'file:/home/ada/toolspec',
      why: 'toolspec was installed from the folder /home/ada/toolspec',
    });
    const git = 'git+ssh://git@github.com/ada/toolspec.git#0123456789abcdef0123456789abcdef01234567';
    expect(toolspecDependency(installed({ resolved: git }), none).spec).toBe(git);
  });
});

describe('the dependency as package.json holds it', () => {
  it('is relative to the project, for a path; anything else as it is', () => {
    const dep = (spec: string) => ({ spec, why: 'w' });
    expect(projectRelative(dep('file:/home/ada/vend/toolspec-0.1.0.tgz'), '/home/ada/notes', '0.1.0')).toEqual({
      spec: 'file:../vend/toolspec-0.1.0.tgz',
      why: 'w; once toolspec is on your registry: npm install -D toolspec@^0.1.0',
    });
    expect(projectRelative(dep('file:/home/ada/notes/vend/t.tgz'), '/home/ada/notes', '0.1.0').spec).toBe(
      'file:./vend/t.tgz',
    );
    for (const kept of ['^0.2.0', 'github:ada/toolspec', 'file:../already/relative']) {
      expect(projectRelative(dep(kept), '/home/ada/notes', '0.1.0')).toEqual(dep(kept));
    }
  });
});

describe('--toolspec', () => {
  it('takes a path from the folder init runs in and writes it absolute; anything else as it is', () => {
    const cwd = path.resolve('/home/ada/work');
    const abs = (p: string) => `file:${path.resolve(cwd, p).split(path.sep).join('/')}`;
    expect(explicitDependency('../toolspec', cwd).spec).toBe(abs('../toolspec'));
    expect(explicitDependency('./toolspec-0.1.0.tgz', cwd).spec).toBe(abs('toolspec-0.1.0.tgz'));
    expect(explicitDependency('toolspec-0.1.0.tgz', cwd).spec).toBe(abs('toolspec-0.1.0.tgz'));
    expect(explicitDependency('file:../toolspec', cwd).spec).toBe(abs('../toolspec'));
    for (const kept of ['^0.2.0', 'latest', 'https://example.com/toolspec-0.1.0.tgz', 'github:ada/toolspec']) {
      expect(explicitDependency(kept, cwd)).toEqual({ spec: kept, why: 'as --toolspec says' });
    }
  });
});

describe('what init reads from the disk about the running toolspec', () => {
  const pkg = (dir: string) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'toolspec', version: '0.3.1' }));
  };

  it("reads npm's lock of the tree it is installed in, with file: paths made absolute (npx's cache)", () => {
    const tree = path.join(scratch.dir, 'npx', 'abc123');
    pkg(path.join(tree, 'node_modules', 'toolspec'));
    fs.writeFileSync(
      path.join(tree, 'node_modules', '.package-lock.json'),
      JSON.stringify({
        packages: { 'node_modules/toolspec': { version: '0.3.1', resolved: 'file:../../pk/toolspec-0.3.1.tgz' } },
      }),
    );
    const origin = runningToolspec(path.join(tree, 'node_modules', 'toolspec'));
    expect(origin).toEqual({
      root: fs.realpathSync(path.join(tree, 'node_modules', 'toolspec')),
      version: '0.3.1',
      resolved: `file:${path.join(fs.realpathSync(scratch.dir), 'pk', 'toolspec-0.3.1.tgz')}`,
    });
  });

  it('reads the stamp npm pack left in a global install, and follows a link to a clone', () => {
    const global = path.join(scratch.dir, 'global', 'lib', 'node_modules', 'toolspec');
    pkg(global);
    fs.mkdirSync(path.join(global, 'dist'));
    fs.writeFileSync(path.join(global, 'dist', 'packed.json'), JSON.stringify({ tarball: '/pk/toolspec-0.3.1.tgz' }));
    expect(runningToolspec(global).packedAs).toBe('/pk/toolspec-0.3.1.tgz');

    const clone = path.join(scratch.dir, 'clone');
    pkg(clone);
    const linked = path.join(scratch.dir, 'linked', 'lib', 'node_modules');
    fs.mkdirSync(linked, { recursive: true });
    fs.symlinkSync(clone, path.join(linked, 'toolspec'), 'dir');
    const origin = runningToolspec(path.join(linked, 'toolspec'));
    expect(origin.root).toBe(fs.realpathSync(clone));
    expect(toolspecDependency(origin, none).spec).toBe(`file:${fs.realpathSync(clone)}`);
  });
});

describe('toolspec init', () => {
  it('writes the clone it runs from as the dependency, says why, and writes a .mcp.json for git', async () => {
    const r = await runMain(['init', 'my-server'], scratch.dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const real = path.join(scratch.dir, 'my-server');
    const clone = fs.realpathSync(repoRoot);
    const pkgJson = JSON.parse(fs.readFileSync(path.join(real, 'package.json'), 'utf8'));
    // Relative to the project, so that the two can move together (npm reads it from the project's folder).
    const relative = `file:${path.relative(fs.realpathSync(real), clone).split(path.sep).join('/')}`;
    expect(pkgJson.devDependencies.toolspec).toBe(relative);
    expect(r.stdout).toContain(`toolspec dependency: "toolspec": "${relative}" (toolspec runs from ${clone}`);
    expect(r.stdout).toContain('once toolspec is on your registry: npm install -D toolspec@^');
    const main = path.join(path.resolve(scratch.dir, 'my-server'), 'dist/src/generated/main.js');
    // Relative: Claude Code starts a project's servers in its folder, so the file travels through git.
    expect(JSON.parse(fs.readFileSync(path.join(real, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { 'my-server': { command: 'node', args: ['dist/src/generated/main.js'] } },
    });
    expect(fs.readFileSync(path.join(real, '.gitignore'), 'utf8')).not.toContain('.mcp.json');
    expect(r.stdout).toContain('.mcp.json (Claude Code): written, with the relative path dist/src/generated/main.js');
    expect(r.stdout).toContain(`clients start it over stdio with: node ${main}`);
    expect(r.stdout).toContain(
      `VS Code         .vscode/mcp.json: {"servers":{"my-server":{"type":"stdio","command":"node","args":[${JSON.stringify(main)}]}}}`,
    );
    expect(r.stdout).toMatch(/^ {2}Claude Desktop {2}claude_desktop_config\.json .*: \{"mcpServers":\{"my-server":\{/m);
  });

  it('keeps a .mcp.json that is there, and says to add the entry', async () => {
    const dir = path.join(scratch.dir, 'has-config');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, '.mcp.json'), '{"mcpServers":{}}\n');
    const r = await runMain(['init', 'has-config', '--force', '--toolspec', '../toolspec'], scratch.dir);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8')).toBe('{"mcpServers":{}}\n');
    expect(r.stdout).toContain('kept .mcp.json: it exists already');
    expect(r.stdout).toContain('.mcp.json (Claude Code): yours was kept');
    // ../toolspec typed in scratch.dir is ../../toolspec from the project inside it.
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).devDependencies.toolspec).toBe(
      'file:../../toolspec',
    );
  });
});

describe('init --force beside a spec of the user’s own', () => {
  it('keeps the spec, leaves the example tool out, and stubs the user’s tools', async () => {
    const spec =
      'toolspec: 1\nserver: { name: mine, version: 1.0.0 }\ntools:\n  - name: add_note\n    description: Add a note with the given text.\n    inputSchema: { type: object, properties: { text: { type: string, description: The text. } }, required: [text] }\n';
    const p = tempProject({ 'toolspec.yaml': spec });
    try {
      const r = await runMain(['init', '.', '--force', '--toolspec', '1.0.0'], p.dir);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('kept your toolspec.yaml: the example tool');
      // Named after the spec's server, not the folder.
      expect(Object.keys(JSON.parse(fs.readFileSync(path.join(p.dir, '.mcp.json'), 'utf8')).mcpServers)).toEqual([
        'mine',
      ]);
      expect(fs.readFileSync(path.join(p.dir, 'toolspec.yaml'), 'utf8')).toBe(spec);
      expect(fs.existsSync(path.join(p.dir, 'src/handlers/greet.ts'))).toBe(false);
      // The server test reads the spec's lists, so it fits the user's tools too.
      expect(fs.existsSync(path.join(p.dir, 'test/server.test.ts'))).toBe(true);
      expect(fs.existsSync(path.join(p.dir, 'src/handlers/add_note.ts'))).toBe(true);
      expect(fs.readFileSync(path.join(p.dir, 'vitest.config.ts'), 'utf8')).toContain('passWithNoTests: true');
    } finally {
      p.cleanup();
    }
  });
});
