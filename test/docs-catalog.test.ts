/**
 * `toolspec docs`: the catalog page from the model (src/docs/catalog.ts: every tool, prompt and resource, text from
 * the spec escaped, badges) and the command around it (src/commands/docs.ts: where it writes, --diff against a real
 * git repository, bad input). What a browser makes of the page is test/e2e/catalog-browser.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadModel } from '../src/compile.js';
import { countTokens } from '../src/lint/tokens.js';
import { escapeHtml, renderCatalog, scriptJson } from '../src/docs/catalog.js';
import type { ServerModel } from '../src/pipeline/model.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const HOSTILE = `<script>alert("owned")</script> & <img src=x onerror=alert(1)> '\u2028</script><!--`;

const SPEC = `toolspec: 1
server:
  name: notes-server
  version: 1.0.0
  description: ${JSON.stringify(`Notes. ${HOSTILE}`)}
tools:
  - name: search_notes
    description: ${JSON.stringify(`Find notes. ${HOSTILE}`)}
    annotations: { readOnlyHint: true, openWorldHint: false }
    inputSchema:
      type: object
      properties:
        query: { type: string, description: What to look for }
        limit: { type: integer, default: 10, description: The most hits to return }
        sort: { type: string, enum: [newest, oldest], default: newest }
        filter:
          type: object
          properties:
            tag: { type: string }
            before: { type: string, format: date }
          required: [tag]
      required: [query]
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        hits: { type: array, items: { type: string } }
      required: [hits]
    examples:
      - name: by word
        arguments: { query: milk }
  - name: delete_note
    description: Delete one note for good.
    annotations: { destructiveHint: true, idempotentHint: true }
    inputSchema:
      type: object
      properties:
        id: { type: string, description: The note's id }
      required: [id]
      additionalProperties: false
prompts:
  - name: summarise_notes
    description: ${JSON.stringify(`Summarise the notes. ${HOSTILE}`)}
    arguments:
      - { name: topic, description: What the notes are about, required: true }
resources:
  - uri: notes://all
    name: all_notes
    description: Every note, as JSON.
    mimeType: application/json
resourceTemplates:
  - uriTemplate: notes://{id}
    name: note
    description: One note.
    variables:
      id: { description: The note's id }
`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(files: Record<string, string>): string {
  const p = tempProject(files);
  cleanups.push(p.cleanup);
  return p.dir;
}

function modelOf(dir: string, spec = 'toolspec.yaml'): ServerModel {
  const r = loadModel(spec, { cwd: dir });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.model!;
}

async function catalogOf(model: ServerModel): Promise<string> {
  return renderCatalog({ model, tokens: await countTokens(model) });
}

/** The markup of the item (an <article>) whose heading names `name`. */
function article(page: string, name: string): string {
  const found = page.split('<article').find((a) => a.includes(`<h3><code>${name}</code>`));
  expect(found, `an article for ${name}`).toBeDefined();
  return found!.slice(0, found!.indexOf('</article>'));
}

describe('the catalog page (src/docs/catalog.ts)', () => {
  it('shows the server, every tool, prompt, resource and template, with arguments, types, defaults and enums', async () => {
    const page = await catalogOf(modelOf(project({ 'toolspec.yaml': SPEC })));
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('notes-server');
    expect(page).toContain('1.0.0');
    for (const name of ['search_notes', 'delete_note', 'summarise_notes', 'all_notes', 'note'])
      expect(page).toContain(`<h3><code>${name}</code>`);
    const search = article(page, 'search_notes');
    expect(search).toContain('<td><code>query</code></td>');
    expect(search).toMatch(
      /<td><code>query<\/code><\/td>\s*<td><code>string<\/code><\/td>\s*<td><span class="badge required"/,
    );
    expect(search).toMatch(
      /<td><code>limit<\/code><\/td>\s*<td><code>integer<\/code><\/td>\s*<td>optional<\/td>\s*<td><code>10<\/code><\/td>/,
    );
    expect(search).toContain(`<code>${escapeHtml('"newest" | "oldest"')}</code>`);
    // Nested objects compactly, their required fields without a "?".
    expect(search).toContain('<code>{ tag: string, before?: string (date) }</code>');
    // The output schema as pretty JSON, in a <details>.
    expect(search).toMatch(
      /<details>\s*<summary>Output schema<\/summary>\s*<pre>\{\n {2}&#34;type&#34;: &#34;object&#34;/,
    );
    expect(search).toContain('by word');
    expect(search).toMatch(/<span class="bar"><span style="width:[\d.]+%"><\/span><\/span> \d+ tokens/);
    expect(article(page, 'note')).toContain('<code>notes://{id}</code>');
    expect(article(page, 'note')).toContain('resource template');
    expect(article(page, 'all_notes')).toContain('application/json');
    expect(article(page, 'summarise_notes')).toMatch(
      /<td><code>topic<\/code><\/td>\s*<td><span class="badge required"/,
    );
  });

  it("shows the OAuth scopes each item needs with the spec's auth: its own, the server's, or any token", async () => {
    const page = await catalogOf(modelOf(path.join(repoRoot, 'test/fixtures/auth')));
    const scopes = (name: string) => /<span class="badge scopes"[^>]*>([^<]*)<\/span>/.exec(article(page, name))?.[1];
    expect(scopes('create_note')).toBe('scopes: notes.write');
    expect(scopes('list_notes')).toBe('scopes: notes.read');
    expect(scopes('whoami')).toBe('any token');
    expect(scopes('draft')).toBe('scopes: notes.write');
    expect(scopes('note')).toBe('scopes: notes.read');
    // Without auth there are no scopes to show.
    expect(await catalogOf(modelOf(project({ 'toolspec.yaml': SPEC })))).not.toContain('badge scopes');
  });

  it('keeps hostile text from the spec text: no markup, no script, nothing that closes the index', async () => {
    const page = await catalogOf(modelOf(project({ 'toolspec.yaml': SPEC })));
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<!--');
    expect(page).toContain(escapeHtml(`Find notes. ${HOSTILE}`));
    expect(page).toContain('&#60;script&#62;alert(&#34;owned&#34;)&#60;/script&#62;');
    // Exactly the page's own two scripts: the JSON index and the filter.
    expect(page.match(/<script/g)).toHaveLength(2);
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    const index = /<script type="application\/json" id="catalog-index">([\s\S]*?)<\/script>/.exec(page)![1]!;
    expect(index).not.toMatch(/[<>\u2028\u2029]/);
    expect(JSON.parse(index)).toContainEqual({
      id: 'tool-0',
      text: `search_notes find notes. ${HOSTILE}`.toLowerCase(),
    });
  });

  it('escapes with one function, and embeds JSON that no <script> text can end', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;amp;&#60;/a&#62;',
    );
    const text = scriptJson({ s: '</script><!-- \u2028\u2029 &' });
    expect(text).toBe('{"s":"\\u003c/script\\u003e\\u003c!-- \\u2028\\u2029 \\u0026"}');
    expect(JSON.parse(text)).toEqual({ s: '</script><!-- \u2028\u2029 &' });
  });

  it('shows the annotations declared as badges, and only those', async () => {
    const page = await catalogOf(modelOf(project({ 'toolspec.yaml': SPEC })));
    const search = article(page, 'search_notes');
    expect(search).toContain('title="readOnlyHint: true">read-only</span>');
    expect(search).toContain('title="openWorldHint: false">not open world</span>');
    expect(search).not.toContain('destructiveHint');
    expect(search).not.toContain('idempotentHint');
    const del = article(page, 'delete_note');
    expect(del).toContain('title="destructiveHint: true">destructive</span>');
    expect(del).toContain('title="idempotentHint: true">idempotent</span>');
    expect(del).not.toContain('readOnlyHint');
    expect(del).not.toContain('openWorldHint');
  });

  it('marks a deprecated tool with its reason, escaped, and its description says so first', async () => {
    const spec = SPEC.replace(
      '    description: Delete one note for good.\n',
      '    description: Delete one note for good.\n    deprecated: use <b>archive_note</b>\n',
    );
    const page = await catalogOf(modelOf(project({ 'toolspec.yaml': spec })));
    const del = article(page, 'delete_note');
    expect(del).toContain(
      '<span class="badge deprecated" title="use &#60;b&#62;archive_note&#60;/b&#62;">deprecated</span>',
    );
    expect(del).toContain('Deprecated: use &#60;b&#62;archive_note&#60;/b&#62;\n\nDelete one note for good.');
    expect(article(page, 'search_notes')).not.toContain('deprecated');
  });

  it('gives the same bytes twice and leaves the model as it was', async () => {
    const model = modelOf(project({ 'toolspec.yaml': SPEC }));
    const before = structuredClone(model);
    const tokens = await countTokens(model);
    expect(renderCatalog({ model, tokens })).toBe(renderCatalog({ model, tokens }));
    expect(model).toEqual(before);
  });
});

describe('toolspec docs (the command)', () => {
  it('writes toolspec-docs.html beside the spec, then leaves it alone when nothing changed', async () => {
    const dir = project({ 'api/toolspec.yaml': SPEC });
    const first = await runMain(['docs', 'api/toolspec.yaml'], dir);
    expect(first).toEqual({
      code: 0,
      stdout: 'api/toolspec-docs.html: the catalog of 2 tools, 1 prompt, 2 resources\n',
      stderr: '',
    });
    const file = path.join(dir, 'api/toolspec-docs.html');
    expect(fs.readFileSync(file, 'utf8')).toContain('<h3><code>search_notes</code>');
    const again = await runMain(['docs', 'api/toolspec.yaml'], dir);
    expect(again.stdout).toBe('api/toolspec-docs.html: the catalog of 2 tools, 1 prompt, 2 resources (unchanged)\n');
    // No temporary file is left beside it.
    expect(fs.readdirSync(path.join(dir, 'api')).sort()).toEqual(['toolspec-docs.html', 'toolspec.yaml']);
  });

  it('writes --out, making its folder', async () => {
    const dir = project({ 'toolspec.yaml': SPEC });
    const r = await runMain(['docs', '--out', 'site/catalog.html'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('site/catalog.html: the catalog of 2 tools, 1 prompt, 2 resources\n');
    expect(fs.existsSync(path.join(dir, 'site/catalog.html'))).toBe(true);
  });

  it('refuses bad input with a message and exit 2, writing nothing', async () => {
    const dir = project({ 'toolspec.yaml': SPEC, 'bad.yaml': SPEC.replace('type: integer', 'type: integr') });
    const missing = await runMain(['docs', 'nope.yaml'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.yaml:1:1 error TS005 cannot find nope.yaml');
    const invalid = await runMain(['docs', 'bad.yaml'], dir);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^bad\.yaml:14:24 error TS022 unknown type "integr"/);
    const notGit = await runMain(['docs', '--diff', 'HEAD'], dir);
    expect(notGit.code).toBe(2);
    expect(notGit.stderr).toContain('is not inside a git repository');
    const folder = await runMain(['docs', '--out', '.'], dir);
    expect(folder).toMatchObject({ code: 2, stdout: '' });
    expect(folder.stderr).toContain('is a folder; give --out the path of the file to write');
    const blocked = await runMain(['docs', '--out', 'toolspec.yaml/catalog.html'], dir);
    expect(blocked).toMatchObject({
      code: 2,
      stderr:
        'toolspec: cannot write toolspec.yaml/catalog.html: a part of the path is not a folder (ENOTDIR); the catalog was not written\n',
    });
    // A folder the file system refuses to make below one that exists (Node's recursive mkdir never returns there).
    const proc = await runMain(['docs', '--out', '/proc/toolspec-none/catalog.html'], dir);
    expect(proc).toMatchObject({
      code: 2,
      stderr:
        'toolspec: cannot write /proc/toolspec-none/catalog.html: its folder cannot be made there (ENOENT); the catalog was not written\n',
    });
    for (const r of [missing, invalid, notGit, folder, blocked, proc]) expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fs.readdirSync(dir).sort()).toEqual(['bad.yaml', 'toolspec.yaml']);
  });
});

describe('a project made by toolspec init', () => {
  it('has npm run docs, and its spec makes a catalog', async () => {
    const dir = project({});
    expect((await runMain(['init', 'server'], dir)).code).toBe(0);
    const server = path.join(dir, 'server');
    const pkg = JSON.parse(fs.readFileSync(path.join(server, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['docs']).toBe('toolspec docs');
    const r = await runMain(pkg.scripts['docs']!.split(' ').slice(1), server);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^toolspec-docs\.html: the catalog of 1 tool/);
    expect(fs.readFileSync(path.join(server, 'toolspec-docs.html'), 'utf8')).toContain('<h3><code>greet</code>');
  });
});

describe('toolspec docs --diff (a real git repository)', () => {
  const git = (dir: string, ...args: string[]) => {
    const r = spawnSync(
      'git',
      ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
      { cwd: dir, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  it('shows the changes since a revision on top, by class, and marks the changed tools', async () => {
    const dir = project({ 'toolspec.yaml': SPEC });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'v1');
    const next = SPEC.replace('required: [query]', 'required: [query, limit]') // breaking: a required argument
      .replace('Delete one note for good.', 'Delete one note; it cannot be undone.') // prompt: a description
      .replace(
        'prompts:',
        `  - name: count_notes
    description: How many notes there are.
    inputSchema: { type: object, additionalProperties: false }
prompts:`,
      ); // compatible: a new tool
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), next);
    git(dir, 'commit', '-q', '-am', 'v2');

    const r = await runMain(['docs', '--diff', 'HEAD~1', '--out', 'catalog.html'], dir);
    expect(r).toEqual({
      code: 0,
      stdout: 'catalog.html: the catalog of 3 tools, 1 prompt, 2 resources, 3 changes (1 breaking) since HEAD~1\n',
      stderr: '',
    });
    const page = fs.readFileSync(path.join(dir, 'catalog.html'), 'utf8');
    const changes = page.slice(page.indexOf('<section id="changes">'), page.indexOf('<section id="tools">'));
    expect(changes).toContain('Changes since <code>HEAD~1:toolspec.yaml</code>');
    expect(changes).toMatch(
      /Breaking \(1\)[\s\S]*ARGUMENT_MADE_REQUIRED[\s\S]*Compatible \(1\)[\s\S]*TOOL_ADDED[\s\S]*Prompt \(1\)[\s\S]*DESCRIPTION_CHANGED/,
    );
    // The section comes before the tools.
    expect(page.indexOf('<section id="changes">')).toBeLessThan(page.indexOf('<section id="tools">'));
    expect(article(page, 'search_notes')).toContain('changed: breaking');
    expect(page).toMatch(/<article class="item tool changed-breaking" id="tool-0">/);
    expect(article(page, 'delete_note')).toContain('changed: prompt');
    expect(article(page, 'count_notes')).toContain('changed: compatible');
    expect(article(page, 'summarise_notes')).not.toContain('changed');

    // A revision git does not know: a message, exit 2, the catalog left as it was.
    const bad = await runMain(['docs', '--diff', 'no-such-branch', '--out', 'catalog.html'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('toolspec: unknown git revision "no-such-branch"');
    expect(fs.readFileSync(path.join(dir, 'catalog.html'), 'utf8')).toBe(page);
  });

  it('reports an invalid spec at the revision at its file:line:col', async () => {
    const dir = project({ 'toolspec.yaml': SPEC.replace('type: integer', 'type: integr') });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'broken');
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
    const r = await runMain(['docs', '--diff', 'HEAD'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^HEAD:toolspec\.yaml:14:24 error TS022 unknown type "integr"/);
    expect(r.stderr).toContain('HEAD:toolspec.yaml is not a valid spec (1 error); --diff needs a revision where it is');
    expect(fs.existsSync(path.join(dir, 'toolspec-docs.html'))).toBe(false);
  });

  it('takes a spec missing at the revision as one without tools: everything is added', async () => {
    const dir = project({ 'README.md': 'a project\n' });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'empty');
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
    const r = await runMain(['docs', '--diff', 'HEAD'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('note: HEAD:toolspec.yaml does not exist; every tool counts as added\n');
    const page = fs.readFileSync(path.join(dir, 'toolspec-docs.html'), 'utf8');
    expect(page).toContain('The spec did not exist at that revision');
    expect(article(page, 'search_notes')).toContain('changed: compatible');
  });
});
