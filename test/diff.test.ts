/**
 * toolspec diff: one pair of specs per rule in both directions (test/fixtures/diff/rules.yaml), semantic equality,
 * the reports of a realistic change to specs/docs in every format (test/fixtures/diff/docs/, refreshed with
 * `npx vitest run -u test/diff.test.ts`), and the built CLI on files and on a real git repository.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { diffCommand } from '../src/commands/diff.js';
import { formatDiffGithub, formatDiffJson, formatDiffText } from '../src/diff/report.js';
import { formatPath, RULE_IDS, type Change } from '../src/diff/rules.js';
import { diffServers } from '../src/diff/tools.js';
import { PLAIN } from '../src/report/text.js';
import { loadModel } from '../src/compile.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';
import { tempProject } from './helpers/tmp.js';

const fixtures = path.join(repoRoot, 'test/fixtures/diff');
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

interface Side {
  tool?: Record<string, unknown>;
  tools?: Record<string, unknown>[];
  $defs?: Record<string, unknown>;
  server?: Record<string, unknown>;
  auth?: Record<string, unknown>;
  prompts?: Record<string, unknown>[];
  resources?: Record<string, unknown>[];
  resourceTemplates?: Record<string, unknown>[];
}
interface Case {
  name: string;
  old: Side;
  new: Side;
  forward: string[];
  reverse: string[];
}

const CASES = parse(fs.readFileSync(path.join(fixtures, 'rules.yaml'), 'utf8')) as Case[];

function specText(side: Side): string {
  const tools = side.tools ?? [{ name: 't', description: 'A tool.', inputSchema: { type: 'object' }, ...side.tool }];
  return stringify({
    toolspec: 1,
    server: { name: 's', version: '1.0.0', ...side.server },
    ...(side.auth && { auth: side.auth }),
    ...(side.$defs && { $defs: side.$defs }),
    tools,
    ...(side.prompts && { prompts: side.prompts }),
    ...(side.resources && { resources: side.resources }),
    ...(side.resourceTemplates && { resourceTemplates: side.resourceTemplates }),
  });
}

function load(dir: string, file: string) {
  const result = loadModel(file, { cwd: dir });
  expect(
    result.diagnostics.filter((d) => d.severity === 'error'),
    `${file} must be a valid spec`,
  ).toEqual([]);
  return result.model!;
}

const summarize = (changes: readonly Change[]) =>
  changes.map((c) => [c.rule, c.class, formatPath(c.segments)].filter(Boolean).join(' ')).sort();

describe('toolspec diff: every rule, both directions', () => {
  const p = tempProject({});
  cleanups.push(p.cleanup);
  CASES.forEach((c, i) => {
    it(c.name, async () => {
      fs.writeFileSync(path.join(p.dir, `old-${i}.yaml`), specText(c.old));
      fs.writeFileSync(path.join(p.dir, `new-${i}.yaml`), specText(c.new));
      const before = load(p.dir, `old-${i}.yaml`);
      const after = load(p.dir, `new-${i}.yaml`);
      expect(summarize(diffServers(before, after)), 'old → new').toEqual([...c.forward].sort());
      expect(summarize(diffServers(after, before)), 'new → old').toEqual([...c.reverse].sort());
      // Each side compared with itself: nothing.
      expect(diffServers(after, after)).toEqual([]);
    });
  });

  it('covers every rule', async () => {
    const seen = new Set(CASES.flatMap((c) => [...c.forward, ...c.reverse]).map((s) => s.split(' ')[0]));
    expect(RULE_IDS.filter((r) => !seen.has(r))).toEqual([]);
  });

  it('docs/commands/diff.md documents every rule', async () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'docs/commands/diff.md'), 'utf8');
    expect(RULE_IDS.filter((r) => !readme.includes(`\`${r}\``))).toEqual([]);
  });

  it('explains a change with the argument it touches and says what it means', async () => {
    const c = CASES.find((x) => x.name === 'maximum tightened')!;
    fs.writeFileSync(path.join(p.dir, 'a.yaml'), specText(c.old));
    fs.writeFileSync(path.join(p.dir, 'b.yaml'), specText(c.new));
    const [change] = diffServers(load(p.dir, 'a.yaml'), load(p.dir, 'b.yaml'));
    expect(change).toMatchObject({
      tool: 't',
      detail: '50 → 20',
      before: 50,
      after: 20,
      message: 'argument "limit" accepts fewer values: calls that passed before may be rejected',
    });
  });

  it('does not mutate the models it compares, and gives the same changes twice', async () => {
    const c = CASES.find((x) => x.name === 'a recursive $def changed')!;
    fs.writeFileSync(path.join(p.dir, 'r-old.yaml'), specText(c.old));
    fs.writeFileSync(path.join(p.dir, 'r-new.yaml'), specText(c.new));
    const a = load(p.dir, 'r-old.yaml');
    const b = load(p.dir, 'r-new.yaml');
    const snapshot = JSON.stringify([a, b]);
    const first = diffServers(a, b);
    expect(diffServers(a, b)).toEqual(first);
    expect(JSON.stringify([a, b])).toBe(snapshot);
  });
});

/** specs/docs, changed the way a real pull request might: one edit per class of change, and then some. */
const DOCS_EDITS: [file: string, from: string | RegExp, to: string][] = [
  ['toolspec.yaml', 'maximum: 50', 'maximum: 20'],
  [
    'toolspec.yaml',
    'Full-text search over the documentation of one release.',
    'Full-text search over the docs of one release.',
  ],
  ['toolspec.yaml', '- name: get_page\n', '- name: fetch_page\n'],
  [
    'tools/10-changelog.yaml',
    'enum: [current, supported, deprecated, end-of-life]',
    'enum: [current, supported, deprecated, end-of-life, preview]',
  ],
  ['tools/30-bookmarks.yaml', /readOnlyHint: true/, 'readOnlyHint: false'],
  ['tools/30-bookmarks.yaml', 'enum: [newest, oldest, title]', 'enum: [newest, oldest, title, relevance]'],
];

describe('toolspec diff: reports on specs/docs', () => {
  it('text, JSON and GitHub reports', async () => {
    const p = scratchCopy(path.join(repoRoot, 'specs/docs'), 'diff');
    cleanups.push(p.cleanup);
    fs.cpSync(path.join(repoRoot, 'specs/docs'), path.join(p.dir, 'old'), { recursive: true });
    for (const [file, from, to] of DOCS_EDITS) {
      const abs = path.join(p.dir, file);
      const text = fs.readFileSync(abs, 'utf8');
      const next = text.replace(from, to);
      expect(next, `edit of ${file}: ${String(from)}`).not.toBe(text);
      fs.writeFileSync(abs, next);
    }
    const run = (format: 'text' | 'json' | 'github') =>
      diffCommand({
        old: 'old/toolspec.yaml',
        new: 'toolspec.yaml',
        spec: 'toolspec.yaml',
        cwd: p.dir,
        format,
        failOn: 'breaking',
      });
    const text = run('text');
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    await expect(text.stdout).toMatchFileSnapshot(path.join(fixtures, 'docs/report.txt'));
    await expect(run('json').stdout).toMatchFileSnapshot(path.join(fixtures, 'docs/report.json'));
    await expect(run('github').stdout).toMatchFileSnapshot(path.join(fixtures, 'docs/report.github.txt'));
    const json = JSON.parse(run('json').stdout) as {
      ok: boolean;
      summary: Record<string, number>;
      changes: { code: string; file?: string; line?: number }[];
    };
    expect(json.ok).toBe(false);
    expect(json.changes.map((c) => c.code)).toContain('TOOL_RENAMED');
    // Every change on a tool of the new spec points at a line of it.
    expect(json.changes.every((c) => c.file !== undefined && c.line !== undefined)).toBe(true);
  });

  it('formats an empty diff', async () => {
    const report = { old: 'a.yaml', new: 'b.yaml', changes: [], failed: false };
    expect(formatDiffText(report, PLAIN)).toBe(
      'toolspec diff a.yaml → b.yaml\n\nno changes: a.yaml and b.yaml describe the same tools\n',
    );
    expect(JSON.parse(formatDiffJson(report))).toEqual({
      old: 'a.yaml',
      new: 'b.yaml',
      ok: true,
      summary: { breaking: 0, compatible: 0, prompt: 0 },
      changes: [],
    });
    expect(formatDiffGithub(report)).toBe('no changes: a.yaml and b.yaml describe the same tools\n');
  });
});

const SPEC = `toolspec: 1
server: { name: s, version: 1.0.0, instructions: Search first. }
include:
  - tools/
tools:
  - name: search
    description: Search the notes.
    annotations: { readOnlyHint: true }
    inputSchema:
      type: object
      properties:
        query: { type: string, minLength: 1 }
        limit: { type: integer, minimum: 1, maximum: 50 }
      required: [query]
      additionalProperties: false
`;
const NOTE_TOOL = `tools:
  - name: add_note
    description: Add a note.
    inputSchema:
      type: object
      properties: { text: { type: string } }
      required: [text]
      additionalProperties: false
`;

describe('toolspec diff (built CLI, end to end)', () => {
  const project = () => {
    const p = tempProject({ 'toolspec.yaml': SPEC, 'tools/notes.yaml': NOTE_TOOL });
    cleanups.push(p.cleanup);
    return p.dir;
  };

  it('exits 0 without breaking changes, 1 with one, and 1 on prompt changes only under --fail-on prompt', async () => {
    const dir = project();
    fs.copyFileSync(path.join(dir, 'toolspec.yaml'), path.join(dir, 'old.yaml'));
    const same = await runMain(['diff', 'old.yaml', 'toolspec.yaml'], dir);
    expect(same).toMatchObject({ code: 0, stderr: '' });
    expect(same.stdout).toBe(
      'toolspec diff old.yaml → toolspec.yaml\n\nno changes: old.yaml and toolspec.yaml describe the same tools\n',
    );

    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC.replace('Search the notes.', 'Search the notes by words.'));
    const prompt = await runMain(['diff', 'old.yaml'], dir);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain(
      'Prompt changes (1)\n  DESCRIPTION_CHANGED search description changed\n      Search the notes{+ by words+}.\n',
    );
    expect((await runMain(['diff', 'old.yaml', '--fail-on', 'prompt'], dir)).code).toBe(1);
    expect((await runMain(['diff', 'old.yaml', '--fail-on', 'any'], dir)).code).toBe(1);

    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC.replace('maximum: 50', 'maximum: 20'));
    const breaking = await runMain(['diff', 'old.yaml'], dir);
    expect(breaking.code).toBe(1);
    expect(breaking.stdout).toContain(
      'Breaking changes (1)\n  BOUNDS_TIGHTENED search inputSchema.properties.limit.maximum 50 → 20\n',
    );
    const github = await runMain(['diff', 'old.yaml', '--format', 'github'], dir);
    expect(github.stdout.split('\n')[0]).toBe(
      '::error file=toolspec.yaml,line=13,col=54,title=toolspec diff%3A BOUNDS_TIGHTENED::search inputSchema.properties.limit.maximum 50 → 20: argument "limit" accepts fewer values: calls that passed before may be rejected',
    );
    // The reverse is compatible.
    expect((await runMain(['diff', 'toolspec.yaml', 'old.yaml'], dir)).code).toBe(0);
  });

  it('says which version bump the changes need, and --check-version fails when server.version did not make it', async () => {
    const dir = project();
    fs.copyFileSync(path.join(dir, 'toolspec.yaml'), path.join(dir, 'old.yaml'));
    const write = (version: string, edit: (s: string) => string) =>
      fs.writeFileSync(path.join(dir, 'toolspec.yaml'), edit(SPEC).replace('version: 1.0.0', `version: ${version}`));
    const tighten = (s: string) => s.replace('maximum: 50', 'maximum: 20');
    const reword = (s: string) => s.replace('Search the notes.', 'Search the notes by words.');
    const widen = (s: string) => s.replace('maximum: 50', 'maximum: 80');
    const cases: [string, (s: string) => string, number, string][] = [
      [
        '1.1.0',
        tighten,
        1,
        'server.version 1.0.0 → 1.1.0: the changes need a major version (2.0.0 or later) — not made',
      ],
      ['2.0.0', tighten, 0, 'server.version 1.0.0 → 2.0.0: the changes need a major version (2.0.0 or later)\n'],
      ['2.0.0-rc.1', tighten, 0, 'the changes need a major version (2.0.0 or later)\n'],
      ['1.0.0', widen, 1, 'the changes need a minor version (1.1.0 or later) — not made'],
      ['1.0.1', reword, 0, 'the changes need a patch version (1.0.1 or later)\n'],
      [
        '0.9.0',
        reword,
        1,
        'server.version 1.0.0 → 0.9.0: the changes need a patch version (1.0.1 or later) — not made',
      ],
    ];
    for (const [version, edit, code, line] of cases) {
      write(version, edit);
      const r = await runMain(['diff', 'old.yaml', '--check-version'], dir);
      expect(r.stdout, version).toContain(line);
      // A breaking change fails the diff anyway (--fail-on breaking); the version is judged on its own.
      expect(r.code, version).toBe(edit === tighten ? 1 : code);
      if (code === 1) expect(r.stderr, version).toMatch(/^toolspec\.yaml:2:\d+: error /);
      else expect(r.stderr, version).toBe('');
      // Without --check-version the line is there, and the version fails nothing.
      expect((await runMain(['diff', 'old.yaml'], dir)).code, version).toBe(edit === tighten ? 1 : 0);
    }
    // Below 1.0.0, npm's caret reads the minor place as the major one.
    fs.writeFileSync(path.join(dir, 'old.yaml'), SPEC.replace('version: 1.0.0', 'version: 0.2.0'));
    write('0.2.5', tighten);
    const zero = await runMain(['diff', 'old.yaml', '--check-version'], dir);
    expect(zero.stdout).toContain('the changes need a minor version (0.3.0 or later) — not made');
    expect(zero.code).toBe(1);
    write('not-semver', tighten);
    const bad = await runMain(['diff', 'old.yaml', '--check-version'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^toolspec\.yaml:2:\d+: server\.version must be a semantic version/);
  });

  it('says a tool is deprecated at the head of its description (a patch), and its removal still needs a major version', async () => {
    const dir = project();
    fs.copyFileSync(path.join(dir, 'toolspec.yaml'), path.join(dir, 'old.yaml'));
    const deprecated = SPEC.replace(
      '    description: Search the notes.\n',
      '    description: Search the notes.\n    deprecated: use find_notes, which ranks the matches.\n',
    );
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), deprecated.replace('version: 1.0.0', 'version: 1.0.1'));
    const marked = await runMain(['diff', 'old.yaml', '--check-version'], dir);
    expect(marked.code).toBe(0);
    expect(marked.stdout).toContain(
      'Prompt changes (1)\n  DESCRIPTION_CHANGED search description changed\n      + Deprecated: use find_notes, which ranks the matches.\n      + \n        Search the notes.\n',
    );
    fs.copyFileSync(path.join(dir, 'toolspec.yaml'), path.join(dir, 'old.yaml'));
    const gone = deprecated.replace(/ {2}- name: search\n[^]*$/, '  []\n').replace('version: 1.0.0', 'version: 1.1.0');
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), gone.replace('tools:\n  []', 'tools: []'));
    const removed = await runMain(['diff', 'old.yaml', '--check-version'], dir);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toContain(
      'TOOL_REMOVED search removed (it was deprecated: use find_notes, which ranks the matches.)',
    );
    expect(removed.stdout).toContain('the changes need a major version (2.0.0 or later) — not made');
    const json = JSON.parse((await runMain(['diff', 'old.yaml', '--format', 'json'], dir)).stdout);
    expect(json.changes[0].message).toMatch(/deprecated "search" get an unknown-tool error: its removal is a breaking/);
  });

  it('reports a rename the spec declares (renamedFrom) as a rename, with advice, and compares the rest as one tool', async () => {
    const dir = project();
    fs.copyFileSync(path.join(dir, 'toolspec.yaml'), path.join(dir, 'old.yaml'));
    fs.writeFileSync(
      path.join(dir, 'toolspec.yaml'),
      SPEC.replace('  - name: search\n', '  - name: search_all\n    renamedFrom: search\n').replace(
        'maximum: 50',
        'maximum: 20',
      ),
    );
    const r = await runMain(['diff', 'old.yaml'], dir);
    expect(r).toMatchObject({ code: 1, stderr: '' });
    expect(r.stdout).toContain(
      [
        'Breaking changes (2)',
        '  TOOL_RENAMED search_all name "search" → "search_all" (renamedFrom)',
        '      clients that call "search" get an unknown-tool error; keep "search" as a tool of its own that calls the same code (say in its description that it is deprecated for "search_all") until clients have moved, or release a new major version',
        '  BOUNDS_TIGHTENED search_all inputSchema.properties.limit.maximum 50 → 20',
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/TOOL_(ADDED|REMOVED)/);
    const json = JSON.parse((await runMain(['diff', 'old.yaml', '--format', 'json'], dir)).stdout) as {
      changes: { code: string; class: string; before?: unknown; after?: unknown; file?: string; line?: number }[];
    };
    expect(json.changes[0]).toMatchObject({
      code: 'TOOL_RENAMED',
      class: 'breaking',
      before: 'search',
      after: 'search_all',
      file: 'toolspec.yaml',
      line: 6,
    });
  });

  it('exits 2 on bad input, with a message that says what to do', async () => {
    const dir = project();
    const none = await runMain(['diff'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the old spec');
    const missing = await runMain(['diff', 'nothing.yaml'], dir);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('cannot find nothing.yaml');
    fs.writeFileSync(path.join(dir, 'bad.yaml'), SPEC.replace('type: integer', 'type: integr'));
    const bad = await runMain(['diff', 'bad.yaml'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.yaml:13:24 error TS022 unknown type "integr"');
    expect(bad.stderr).toContain('bad.yaml is not a valid spec (1 error)');
    const json = await runMain(['diff', 'bad.yaml', '--format', 'json'], dir);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: 'TS022', file: 'bad.yaml' }] });
    expect((await runMain(['diff', 'toolspec.yaml', '--format', 'xml'], dir)).code).toBe(2);
    const notGit = await runMain(['diff', '--against', 'HEAD'], dir);
    expect(notGit.code).toBe(2);
    expect(notGit.stderr).toContain('is not inside a git repository');
  });
});

describe('toolspec diff against git revisions (built CLI, a real repository)', () => {
  const git = (dir: string, ...args: string[]) => {
    const r = spawnSync(
      'git',
      ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  /** A repository with the spec (and a folder it includes) in a subfolder, committed on main. */
  const repository = () => {
    const p = tempProject({ 'README.md': 'a project\n', 'api/toolspec.yaml': SPEC, 'api/tools/notes.yaml': NOTE_TOOL });
    cleanups.push(p.cleanup);
    git(p.dir, 'init', '-q', '-b', 'main');
    git(p.dir, 'add', '.');
    git(p.dir, 'commit', '-q', '-m', 'spec');
    return p.dir;
  };

  it('--against HEAD reads the spec and its includes at that revision', async () => {
    const dir = repository();
    expect(await runMain(['diff', '--against', 'HEAD', 'api/toolspec.yaml'], dir)).toMatchObject({
      code: 0,
      stderr: '',
    });
    // Change the included file only: the revision's include must be read from the revision, not the working tree.
    fs.writeFileSync(
      path.join(dir, 'api/tools/notes.yaml'),
      NOTE_TOOL.replace('required: [text]', 'required: [text, tag]').replace(
        '{ text: { type: string } }',
        '{ text: { type: string }, tag: { type: string } }',
      ),
    );
    const r = await runMain(['diff', '--against', 'HEAD', 'api/toolspec.yaml'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        'toolspec diff HEAD:api/toolspec.yaml → api/toolspec.yaml',
        '',
        'Breaking changes (1)',
        '  ARGUMENT_REQUIRED_ADDED add_note inputSchema.properties.tag added (required)',
        '      calls without "tag" are rejected',
        '',
        '1 breaking, 0 compatible, 0 prompt changes: clients built against HEAD:api/toolspec.yaml may fail; keep the old behaviour, or release this as a new major version',
        'server.version 1.0.0 → 1.0.0: the changes need a major version (2.0.0 or later) — not made',
        '',
      ].join('\n'),
    );
    // From inside the spec's folder, the path is resolved against the repository's top all the same.
    const inside = await runMain(['diff', '--against', 'HEAD', '--format', 'github'], path.join(dir, 'api'));
    expect(inside.code).toBe(1);
    expect(inside.stdout).toMatch(
      /^::error file=tools\/notes\.yaml,line=\d+,col=\d+,title=toolspec diff%3A ARGUMENT_REQUIRED_ADDED::/,
    );
  });

  it("applies the loader's include rules at a revision: a link inside the folder is followed, one outside refused", async () => {
    const dir = repository();
    // A link to the included folder, and a spec that includes through it; another spec includes a link that leaves.
    fs.symlinkSync('tools', path.join(dir, 'api/linked'));
    fs.writeFileSync(path.join(dir, 'api/via-link.yaml'), SPEC.replace('tools/', 'linked/'));
    fs.writeFileSync(path.join(dir, 'secret.yaml'), NOTE_TOOL);
    fs.symlinkSync('../secret.yaml', path.join(dir, 'api/escape.yaml'));
    fs.writeFileSync(path.join(dir, 'api/leaves.yaml'), SPEC.replace('tools/', 'escape.yaml'));
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'links');
    fs.rmSync(path.join(dir, 'api/linked'));
    fs.rmSync(path.join(dir, 'api/escape.yaml'));
    // Both read from the revision (the links are gone from the working tree).
    const via = await runMain(['diff', 'HEAD:api/via-link.yaml', 'HEAD:api/toolspec.yaml'], dir);
    expect(via).toMatchObject({ code: 0, stderr: '' });
    expect(via.stdout).toContain('no changes');
    const leaves = await runMain(['diff', 'HEAD:api/leaves.yaml', 'HEAD:api/toolspec.yaml'], dir);
    expect(leaves.code).toBe(2);
    expect(leaves.stderr).toContain('HEAD:api/leaves.yaml:');
    expect(leaves.stderr).toContain('include "escape.yaml" is a link that points outside the spec\'s folder');
  });

  it('compares two revisions, a branch, and <rev>:<path>', async () => {
    const dir = repository();
    git(dir, 'checkout', '-q', '-b', 'feature');
    fs.writeFileSync(path.join(dir, 'api/toolspec.yaml'), SPEC.replace('readOnlyHint: true', 'readOnlyHint: false'));
    fs.rmSync(path.join(dir, 'api/tools/notes.yaml'));
    git(dir, 'commit', '-q', '-am', 'change');
    const rules = (stdout: string) => [...stdout.matchAll(/^ {2}([A-Z_]+) /gm)].map((m) => m[1]);

    const branch = await runMain(['diff', '--against', 'main', 'api/toolspec.yaml'], dir);
    expect(branch.code).toBe(1);
    expect(rules(branch.stdout)).toEqual(['READ_ONLY_HINT_OFF', 'TOOL_REMOVED']);
    const revs = await runMain(['diff', 'HEAD~1', 'HEAD', '--spec', 'api/toolspec.yaml'], dir);
    expect(revs.stdout).toBe(
      branch.stdout
        .replace(/main:api\/toolspec\.yaml/g, 'HEAD~1:api/toolspec.yaml')
        .replace('→ api/toolspec.yaml', '→ HEAD:api/toolspec.yaml'),
    );
    expect((await runMain(['diff', 'main:api/toolspec.yaml', 'feature:api/toolspec.yaml'], dir)).stdout).toContain(
      'READ_ONLY_HINT_OFF search annotations.readOnlyHint true → false',
    );
    // Backwards, the removed tool is an added one and turning read-only on is compatible.
    const back = await runMain(['diff', 'feature', 'main', '--spec', 'api/toolspec.yaml', '--format', 'json'], dir);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout).summary).toEqual({ breaking: 0, compatible: 2, prompt: 0 });
  });

  it('a spec that did not exist at the revision counts as one without tools; a bad revision exits 2', async () => {
    const dir = repository();
    fs.mkdirSync(path.join(dir, 'new'));
    fs.writeFileSync(
      path.join(dir, 'new/toolspec.yaml'),
      NOTE_TOOL.replace('tools:', 'toolspec: 1\nserver: { name: n, version: 1.0.0 }\ntools:'),
    );
    const added = await runMain(['diff', '--against', 'HEAD', 'new/toolspec.yaml'], dir);
    expect(added.code).toBe(0);
    expect(added.stderr).toBe('note: HEAD:new/toolspec.yaml does not exist; it counts as a spec without tools\n');
    expect(added.stdout).toContain('TOOL_ADDED add_note added');
    const bad = await runMain(['diff', '--against', 'no-such-branch', 'api/toolspec.yaml'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown git revision "no-such-branch"');
    expect(bad.stderr).toContain('fetch-depth: 0');
    const dash = await runMain(['diff', '--against=--output=x', 'api/toolspec.yaml'], dir);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toContain('"--output=x" is not a git revision');
  });

  it('between two revisions of specs/docs, prints each change under its class and exits 1', async () => {
    const p = tempProject({});
    cleanups.push(p.cleanup);
    const dir = p.dir;
    fs.cpSync(path.join(repoRoot, 'specs/docs'), path.join(dir, 'specs/docs'), { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'docs');
    for (const [file, from, to] of DOCS_EDITS) {
      const abs = path.join(dir, 'specs/docs', file);
      fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace(from, to));
    }
    git(dir, 'commit', '-q', '-am', 'edits');
    const r = await runMain(['diff', 'HEAD~1', 'HEAD', '--spec', 'specs/docs/toolspec.yaml'], dir);
    expect(r).toMatchObject({ code: 1, stderr: '' });
    // The same changes, in the same classes, as between the two files (test/fixtures/diff/docs/report.txt).
    const body = (s: string) => s.split('\n').slice(1, -3).join('\n');
    const expected = fs.readFileSync(path.join(fixtures, 'docs/report.txt'), 'utf8');
    expect(body(r.stdout)).toBe(body(expected));
    expect(r.stdout.split('\n')[0]).toBe(
      'toolspec diff HEAD~1:specs/docs/toolspec.yaml → HEAD:specs/docs/toolspec.yaml',
    );
  });

  it('a revision whose spec is invalid exits 2 and names the file at that revision', async () => {
    const dir = repository();
    fs.writeFileSync(path.join(dir, 'api/tools/notes.yaml'), NOTE_TOOL.replace('type: string', 'type: strng'));
    git(dir, 'commit', '-q', '-am', 'broken');
    fs.writeFileSync(path.join(dir, 'api/tools/notes.yaml'), NOTE_TOOL);
    const r = await runMain(['diff', '--against', 'HEAD', 'api/toolspec.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HEAD:api/tools/notes.yaml:6:35 error TS022 unknown type "strng"');
    expect(r.stderr).toContain('HEAD:api/toolspec.yaml is not a valid spec (1 error)');
  });
});
