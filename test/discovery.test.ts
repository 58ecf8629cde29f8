/**
 * Finding the spec and saying so: "did you mean" for a misspelt spec or include path, the search for toolspec.yaml
 * in parent folders (stopping at the top of a git repository), and colour as FORCE_COLOR and NO_COLOR ask.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';
import { tempProject } from './helpers/tmp.js';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

const spec = `toolspec: 1
server: { name: s, version: 1.0.0 }
include:
  - tools/search.yaml
tools: []
`;

const searchTool = `tools:
  - name: search
    description: Search the notes for a phrase and return the matching lines.
    inputSchema:
      type: object
      properties: { q: { type: string, description: The phrase to look for. } }
      additionalProperties: false
`;

function project(files: Record<string, string>): string {
  const p = tempProject(files);
  cleanups.push(p.cleanup);
  return p.dir;
}

const ESC = /\u001b\[/;

describe('"did you mean" for spec and include paths', () => {
  it('a misspelt spec file names the .yaml file of that folder it probably meant', async () => {
    const dir = project({ 'toolspec.yaml': spec, 'tools/search.yaml': searchTool, 'other.yml': 'x: 1\n' });
    const r = await runMain(['validate', 'toolspc.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('toolspc.yaml:1:1 error TS005 cannot find toolspc.yaml');
    expect(r.stderr).toContain('hint: did you mean "toolspec.yaml"?');
    // In a folder, as the user wrote it; and without the extension too.
    const nested = await runMain(['lint', 'tools/serch.yaml'], dir);
    expect(nested.stderr).toContain('hint: did you mean "tools/search.yaml"?');
    const stem = await runMain(['validate', 'toolspc'], dir);
    expect(stem.stderr).toContain('did you mean "toolspec.yaml"?');
    // Nothing close: no guess, the usual advice.
    const far = await runMain(['validate', 'zzz.yaml'], dir);
    expect(far.stderr).not.toContain('did you mean');
    expect(far.stderr).toContain('hint: pass the path of your spec file');
  });

  it('an include naming a missing file suggests the close one, at the include entry', async () => {
    const dir = project({
      'toolspec.yaml': spec.replace('tools/search.yaml', 'tools/serch.yaml'),
      'tools/search.yaml': searchTool,
    });
    const r = await runMain(['validate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('toolspec.yaml:4:5 error TS005 cannot find tools/serch.yaml');
    expect(r.stderr).toContain(
      'hint: did you mean "tools/search.yaml"? include paths are relative to the file that includes them',
    );
    const json = JSON.parse((await runMain(['validate', '--format', 'json'], dir)).stdout) as {
      diagnostics: { file: string; line: number; column: number; hint: string }[];
    };
    expect(json.diagnostics[0]).toMatchObject({ file: 'toolspec.yaml', line: 4, column: 5 });
    expect(json.diagnostics[0]!.hint).toContain('did you mean "tools/search.yaml"?');
  });
});

describe('the spec in a parent folder', () => {
  it('validate, generate, lint and check run from a subfolder work on the spec above, and write beside it', async () => {
    const p = scratchCopy(path.join(repoRoot, 'test/fixtures/check/base'), 'discovery');
    cleanups.push(p.cleanup);
    const sub = path.join(p.dir, 'docs', 'notes');
    fs.mkdirSync(sub, { recursive: true });

    const valid = await runMain(['validate'], sub);
    expect(valid.code).toBe(0);
    expect(valid.stdout + valid.stderr).toContain('../../toolspec.yaml');

    const gen = await runMain(['generate'], sub);
    expect(gen.stderr).not.toMatch(/\berror\b /);
    expect(gen.stdout).toContain('src/generated: ');
    expect(gen.code).toBe(0);
    expect(fs.existsSync(path.join(p.dir, 'src/generated/contract.ts'))).toBe(true);
    expect(fs.readdirSync(path.join(p.dir, 'docs'))).toEqual(['notes']);
    expect(fs.readdirSync(sub)).toEqual([]);

    expect((await runMain(['lint'], sub)).code).toBe(0);

    const clean = await runMain(['check'], sub);
    expect(clean.stdout).toContain('../../toolspec.yaml: no drift');
    expect(clean.code).toBe(0);

    // Paths in findings are as typed from here, not absolute.
    const handler = path.join(p.dir, 'src/handlers/add_note.ts');
    fs.writeFileSync(
      handler,
      fs.readFileSync(handler, 'utf8').replace('return `note ${notes.length} added`;', 'return notes.length;'),
    );
    const drift = await runMain(['check'], sub);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('../../src/handlers/add_note.ts:');
    expect(drift.stdout).not.toContain(p.dir);

    // A spec named on the command line is never searched for.
    const named = await runMain(['validate', 'toolspec.yaml'], sub);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('cannot find toolspec.yaml\n');
  });

  it('stops at the top of a git repository, and says where it looked', async () => {
    const dir = project({
      'toolspec.yaml': spec,
      'tools/search.yaml': searchTool,
      'repo/.git/HEAD': 'ref: refs/heads/main\n',
      'repo/src/lib/.keep': '',
      'plain/src/.keep': '',
    });
    const inRepo = path.join(dir, 'repo', 'src', 'lib');
    const r = await runMain(['validate'], inRepo);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `cannot find toolspec.yaml; looked in ${inRepo} and its parents up to ${path.join(dir, 'repo')}, the top of its git repository`,
    );
    expect(r.stderr).toContain("hint: run toolspec in your spec's folder or below it, or pass its path");
    const top = await runMain(['check'], path.join(dir, 'repo'));
    expect(top.stderr).toContain(`looked in ${path.join(dir, 'repo')}, the top of its git repository`);
    // Outside the repository the spec two folders up is found.
    expect((await runMain(['validate'], path.join(dir, 'plain', 'src'))).code).toBe(0);
    // A git worktree's .git is a file: the boundary all the same.
    fs.rmSync(path.join(dir, 'repo/.git'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'repo/.git'), 'gitdir: /elsewhere\n');
    expect((await runMain(['validate'], inRepo)).stderr).toContain('the top of its git repository');
  });

  it('diff --spec defaults to the spec found above too', async () => {
    const dir = project({ 'toolspec.yaml': spec, 'tools/search.yaml': searchTool, 'sub/.keep': '' });
    fs.writeFileSync(path.join(dir, 'old.yaml'), spec);
    const r = await runMain(['diff', '../old.yaml'], path.join(dir, 'sub'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('../toolspec.yaml');
  });
});

/** main() with streams that say they are a terminal (isTTY), as on a user's console. */
async function runOnTerminal(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const chunks: string[] = [];
  const tty = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY: true },
  );
  await main(['node', 'toolspec', ...args], { stdout: tty, stderr: tty, env, cwd });
  return chunks.join('');
}

describe('colour: FORCE_COLOR and NO_COLOR', () => {
  const dir = project({ 'toolspec.yaml': spec.replace('include:\n  - tools/search.yaml\n', '') });
  const plain = (env: Record<string, string>) => runMain(['validate'], dir, env).then((r) => r.stderr);

  it('FORCE_COLOR turns colour on without a terminal, and wins over NO_COLOR', async () => {
    expect(await plain({})).not.toMatch(ESC);
    expect(await plain({ FORCE_COLOR: '1' })).toMatch(ESC);
    expect(await plain({ FORCE_COLOR: 'true' })).toMatch(ESC);
    expect(await plain({ FORCE_COLOR: '3' })).toMatch(ESC);
    expect(await plain({ FORCE_COLOR: '1', NO_COLOR: '1' })).toMatch(ESC);
    // Empty means unset, as no-color.org and force-color.org say.
    expect(await plain({ FORCE_COLOR: '' })).not.toMatch(ESC);
  });

  it('on a terminal: colour unless NO_COLOR, or FORCE_COLOR is 0 or false', async () => {
    expect(await runOnTerminal(['validate'], dir, {})).toMatch(ESC);
    expect(await runOnTerminal(['validate'], dir, { NO_COLOR: '' })).toMatch(ESC);
    expect(await runOnTerminal(['validate'], dir, { NO_COLOR: '1' })).not.toMatch(ESC);
    expect(await runOnTerminal(['validate'], dir, { FORCE_COLOR: '0' })).not.toMatch(ESC);
    expect(await runOnTerminal(['validate'], dir, { FORCE_COLOR: 'false' })).not.toMatch(ESC);
  });
});
