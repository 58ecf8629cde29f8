/** options.toolTables: the tool table generate keeps in the project's Markdown files, and check holds. */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { oneLine, spliceTable, TABLE_END, TABLE_START } from '../src/publish/table.js';
import { runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const SPEC = `toolspec: 1
server: { name: t, version: 1.0.0 }
options:
  toolTables: [README.md]
tools:
  - name: find_notes
    title: Find notes
    description: |-
      Find notes | by <title> & tag. Returns the best ones first.
      A second line that the table leaves out.
    annotations: { readOnlyHint: true, openWorldHint: false }
    inputSchema: { type: object, properties: { q: { type: string } } }
  - name: drop_note
    description: Delete a note.
    annotations: { destructiveHint: true, idempotentHint: true }
    inputSchema: { type: object, properties: { id: { type: string } } }
`;
const README = `# Notes\r\n\r\nWhat it does.\n\n${TABLE_START}\nanything\n${TABLE_END}\n\nThe end, kept as it is.`;

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});
function project(files: Record<string, string>) {
  const p = tempProject(files);
  cleanups.push(p.cleanup);
  return p.dir;
}

describe('spliceTable', () => {
  it('replaces only what is between the markers, keeping every other byte and the line endings', () => {
    const line = fc.stringMatching(/^[^\r\n]{0,20}$/).filter((l) => !l.includes('toolspec:tools'));
    const eol = fc.constantFrom('\n', '\r\n');
    const block = fc.array(fc.tuple(line, eol), { maxLength: 5 }).map((ls) => ls.map(([l, e]) => l + e).join(''));
    fc.assert(
      fc.property(block, block, fc.string(), eol, (before, inside, after, e) => {
        const text = `${before}${TABLE_START}${e}${inside}${TABLE_END}${e}${after.replace(/toolspec:tools/g, '')}`;
        const result = spliceTable(text, '| a |\n| b |');
        if (!('text' in result)) throw new Error(result.message);
        const start = text.indexOf(TABLE_START) + TABLE_START.length;
        const end = text.indexOf(TABLE_END);
        expect(result.text.slice(0, start + e.length)).toBe(text.slice(0, start + e.length));
        expect(result.text.endsWith(text.slice(end))).toBe(true);
        // Spliced again, nothing moves: generate then check agree.
        expect(spliceTable(result.text, '| a |\n| b |')).toEqual({ text: result.text });
      }),
    );
  });

  it('says where the markers are wrong', () => {
    expect(spliceTable('# x\n', 't')).toMatchObject({ line: 1, column: 1, message: expect.stringContaining('has no') });
    expect(spliceTable(`a\n  ${TABLE_START}\nb\n`, 't')).toMatchObject({ line: 2, column: 3 });
    expect(spliceTable(`${TABLE_END}\n${TABLE_START}\n`, 't')).toMatchObject({
      line: 2,
      message: expect.stringContaining('without'),
    });
    expect(spliceTable(`${TABLE_START}\n${TABLE_END}\n${TABLE_START}\n`, 't')).toMatchObject({
      line: 3,
      message: expect.stringContaining('more than once'),
    });
  });

  it('keeps a description to its first line, cut at a sentence or a word when long', () => {
    expect(oneLine('One.\nTwo.')).toBe('One.');
    const long = `${'word '.repeat(20)}ends here. ${'more '.repeat(20)}`;
    expect(oneLine(long)).toBe(`${'word '.repeat(20)}ends here.`);
    expect(oneLine('x'.repeat(50) + ' ' + 'y'.repeat(100))).toBe(`${'x'.repeat(50)}…`);
  });
});

describe('toolspec generate and check with options.toolTables', () => {
  it('writes the table, keeps the rest of the file, and check fails when the table is edited', async () => {
    const dir = project({ 'toolspec.yaml': SPEC, 'README.md': README });
    const first = await runMain(['generate'], dir);
    expect(first.code).toBe(0);
    // The count is the generated folder's; the project's own file is named apart.
    expect(first.stdout).toMatch(
      /^src\/generated: (\d+) files, \1 written, 0 unchanged; updated README\.md — 2 tools in/,
    );
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme.startsWith('# Notes\r\n\r\nWhat it does.\n')).toBe(true);
    expect(readme.endsWith(`${TABLE_END}\n\nThe end, kept as it is.`)).toBe(true);
    const rows = readme.split('\r\n').filter((l) => l.startsWith('| `'));
    expect(rows).toEqual([
      expect.stringMatching(
        /^\| `find_notes` \| Find notes \| Find notes \\\| by &lt;title&gt; &amp; tag\. Returns the best ones first\. \| read-only \| \d+ \|$/,
      ),
      expect.stringMatching(/^\| `drop_note` \| {2}\| Delete a note\. \| destructive, idempotent \| \d+ \|$/),
    ]);
    expect(readme).toMatch(/2 tools, \d+ tokens as a model reads them/);
    expect((await runMain(['check'], dir)).code).toBe(0);
    // Generate again: nothing to write.
    const mtime = fs.statSync(path.join(dir, 'README.md')).mtimeMs;
    expect((await runMain(['generate'], dir)).stdout).toMatch(
      /^src\/generated: (\d+) files, 0 written, \1 unchanged — /,
    );
    expect(fs.statSync(path.join(dir, 'README.md')).mtimeMs).toBe(mtime);

    fs.writeFileSync(path.join(dir, 'README.md'), readme.replace('Delete a note.', 'Delete a note!'));
    const check = await runMain(['check'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).toMatch(/README\.md:\d+:1 error stale-file/);
    // The spec changes: the table follows, and check holds it.
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC.replace('Delete a note.', 'Remove a note.'));
    expect((await runMain(['check'], dir)).code).toBe(1);
    expect((await runMain(['generate'], dir)).code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('| Remove a note. |');
    expect((await runMain(['check'], dir)).code).toBe(0);
  });

  it('refuses a file without markers, a missing one, a link and one that is not UTF-8, writing nothing', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { 'README.md': '# Notes\n\nNo table here.\n' },
        /README\.md:1:1 error TS051 README\.md has no <!-- toolspec:tools --> line/,
      ],
      [{}, /toolspec\.yaml:4:16 error TS051 options\.toolTables names README\.md, which does not exist/],
      [{ 'README.md': `${TABLE_START}\n` }, /README\.md:1:1 error TS051 .*without a <!-- \/toolspec:tools --> line/],
    ];
    for (const [files, message] of cases) {
      const dir = project({ 'toolspec.yaml': SPEC, ...files });
      const before = fs.readdirSync(dir).sort();
      for (const command of ['generate', 'check']) {
        const run = await runMain([command], dir);
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(message);
      }
      expect(fs.readdirSync(dir).sort()).toEqual(before);
      if (files['README.md'] !== undefined)
        expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(files['README.md']);
    }
    const latin1 = project({ 'toolspec.yaml': SPEC });
    const bytes = Buffer.from(`caf\xe9\n${TABLE_START}\n${TABLE_END}\n`, 'latin1');
    fs.writeFileSync(path.join(latin1, 'README.md'), bytes);
    expect((await runMain(['generate'], latin1)).stderr).toMatch(/README\.md, which is not UTF-8 text/);
    expect(fs.readFileSync(path.join(latin1, 'README.md'))).toEqual(bytes);
    const linked = project({ 'toolspec.yaml': SPEC, 'elsewhere.md': README });
    fs.symlinkSync(path.join(linked, 'elsewhere.md'), path.join(linked, 'README.md'));
    expect((await runMain(['generate'], linked)).stderr).toMatch(/README\.md, which is not a plain file/);
    expect(fs.readFileSync(path.join(linked, 'elsewhere.md'), 'utf8')).toBe(README);
  });

  it('takes only files of the project, outside the folders toolspec writes', async () => {
    for (const [value, message] of [
      ['../README.md', "must be a file below the spec's folder"],
      ['src/generated/README.md', 'is inside the generated or the handlers folder'],
    ] as const) {
      const dir = project({ 'toolspec.yaml': SPEC.replace('[README.md]', `["${value}"]`), 'README.md': README });
      const run = await runMain(['generate'], dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`TS016 options.toolTables "${value}" ${message}`);
    }
  });
});
