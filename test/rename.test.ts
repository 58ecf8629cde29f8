/**
 * Renamed tools keep the user's code: `renamedFrom` in the spec (validated), generate moving the handler module and
 * rewriting its reference to the tool, generate asking (exit 2, nothing written) when a vanished tool's handler sits
 * beside a new tool without one, `--new-stubs`, a target that exists already, an interrupted move; and what check
 * says in each state. In-process through main(), in scratch projects inside the repository (so check's type checker
 * resolves the generated code's packages).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rewriteHandler } from '../src/write/renames.js';
import { repoRoot, runCli, runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

const SPEC = `toolspec: 1
server: { name: notes, version: 1.0.0 }
tools:
  - name: search
    description: Search the notes by a word in their text.
    inputSchema:
      type: object
      properties: { query: { type: string, description: The word to look for. } }
      required: [query]
      additionalProperties: false
  - name: add
    description: Add a note with the given text to the notes.
    inputSchema:
      type: object
      properties: { text: { type: string, description: The note's text. } }
      required: [text]
      additionalProperties: false
`;

/** The user's implementation of `search`: its tool named in Handler<'search'>, its input type imported by name. */
const IMPLEMENTATION = `import type { Handler } from '../generated/contract.js';
import type { SearchInput } from '../generated/types.js';

const NOTES = ['buy milk', 'call mum'];
const matching = (args: SearchInput) => NOTES.filter((n) => n.includes(args.query));

export const handler: Handler<'search'> = async (args) => matching(args).join('\\n') || 'no note matches';
`;
const MOVED = IMPLEMENTATION.replace("Handler<'search'>", "Handler<'search_all'>").replaceAll(
  'SearchInput',
  'SearchAllInput',
);

const RENAMED = SPEC.replace('  - name: search\n', '  - name: search_all\n');
const DECLARED = SPEC.replace('  - name: search\n', '  - name: search_all\n    renamedFrom: search\n');

/** A generated project whose `search` handler is written, inside the repository. */
async function project(): Promise<string> {
  const base = path.join(repoRoot, 'test', '.tmp');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, 'rename-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
  expect((await runMain(['generate'], dir)).code).toBe(0);
  fs.writeFileSync(path.join(dir, 'src/handlers/search.ts'), IMPLEMENTATION);
  return dir;
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const exists = (dir: string, file: string) => fs.existsSync(path.join(dir, file));
const spec = (dir: string, text: string) => fs.writeFileSync(path.join(dir, 'toolspec.yaml'), text);

/** Every file below dir (but the spec) with its bytes and mtime. */
function snapshot(dir: string): Record<string, { text: string; mtime: number }> {
  const out: Record<string, { text: string; mtime: number }> = {};
  for (const f of (fs.readdirSync(path.join(dir, 'src'), { recursive: true }) as string[]).sort()) {
    const abs = path.join(dir, 'src', f);
    if (fs.statSync(abs).isFile()) out[f] = { text: fs.readFileSync(abs, 'utf8'), mtime: fs.statSync(abs).mtimeMs };
  }
  return out;
}

describe('renaming a tool keeps its handler', () => {
  it('search → search_all: generate asks, then moves the implementation on renamedFrom, and check ends clean', async () => {
    const dir = await project();
    expect((await runMain(['check'], dir)).code).toBe(0);

    // Renamed in the spec, nothing said: check asks one question at the new tool, and no summary leads to a stub.
    spec(dir, RENAMED);
    const asked = await runMain(['check'], dir);
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain(
      'toolspec.yaml:4:5 error unconfirmed-rename search_all tool "search_all" has no handler, and src/handlers/search.ts is the handler of "search", which the spec no longer has: was "search" renamed to "search_all"? If it is, add "renamedFrom: search" to tool "search_all" (toolspec.yaml:4:5)',
    );
    expect(asked.stdout).not.toContain('missing-handler');
    expect(asked.stdout).not.toContain('orphan-handler');
    expect(asked.stdout).toMatch(
      /\n\d+ problems: a rename to confirm in the spec first \(generate stops until then\): toolspec\.yaml:4:5; `toolspec generate` fixes \d+ after that\n$/,
    );

    // generate stops: exit 2, the question with the exact line and where it goes, nothing written.
    const before = snapshot(dir);
    const stopped = await runMain(['generate'], dir);
    expect(stopped.code).toBe(2);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toContain(
      'toolspec.yaml:4:5 error TS044 tool "search_all" has no handler, and src/handlers/search.ts is the handler of "search", which the spec no longer has: was "search" renamed to "search_all"?',
    );
    expect(stopped.stderr).toContain(
      'hint: if it is, add "renamedFrom: search" to tool "search_all" (toolspec.yaml:4:5), and generate moves the handler with your code to src/handlers/search_all.ts; if "search_all" is a new tool, run toolspec generate --new-stubs to create its stub',
    );
    expect(stopped.stderr).toMatch(/1 rename to confirm; nothing was written\n$/);
    expect(snapshot(dir)).toEqual(before);
    const json = await runMain(['generate', '--format', 'json'], dir);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: 'TS044', line: 4, column: 5 }] });

    // Declared: check says generate will move it, and that is all generate has to fix.
    spec(dir, DECLARED);
    const pending = await runMain(['check'], dir);
    expect(pending.code).toBe(1);
    expect(pending.stdout).toContain(
      'src/handlers/search.ts:1:1 error renamed-handler search_all handler search.ts will be moved to search_all.ts by toolspec generate ("search" was renamed to "search_all"); its code is kept',
    );
    expect(pending.stdout).not.toContain('a person');
    expect(pending.stdout).toMatch(/\n(\d+) problems: `toolspec generate` fixes \1\n$/);

    const moved = await runMain(['generate'], dir);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain(
      'moved src/handlers/search.ts to src/handlers/search_all.ts: renamed tool, your code kept\n',
    );
    expect(moved.stdout).not.toContain('created');
    expect(exists(dir, 'src/handlers/search.ts')).toBe(false);
    expect(read(dir, 'src/handlers/search_all.ts')).toBe(MOVED);
    expect(read(dir, 'src/generated/manifest.json')).not.toContain('renamedFrom'); // never sent to clients

    const clean = await runMain(['check'], dir);
    expect(clean.stdout).toBe('toolspec.yaml: no drift — generated files, handlers and spec agree (2 tools)\n');
    expect(clean.code).toBe(0);
    // renamedFrom left in the spec is harmless: nothing more to move, nothing created.
    const again = await runMain(['generate'], dir);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/moved|created/);
    expect(read(dir, 'src/handlers/search_all.ts')).toBe(MOVED);
  });

  it('--new-stubs creates the new stub and keeps the old handler; check says to move its code, not to delete it', async () => {
    const dir = await project();
    spec(dir, RENAMED);
    const r = await runMain(['generate', '--new-stubs'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('created src/handlers/search_all.ts: a stub to fill in\n');
    expect(read(dir, 'src/handlers/search.ts')).toBe(IMPLEMENTATION);

    const check = await runMain(['check'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'src/handlers/search.ts:1:1 error orphan-handler handler of "search", a tool the spec does not have; if "search_all" is that tool renamed, its handler search_all.ts exists already: move the code you want from search.ts into it, then remove search.ts',
    );
    expect(check.stdout).toMatch(/\n1 problem: a handler needs a person: src\/handlers\/search\.ts\n$/);
  });

  it("asks once, listing them, when several new tools sit beside a vanished tool's handler", async () => {
    const dir = await project();
    const tool = (name: string) =>
      `  - name: ${name}\n    description: A tool that has nothing to do with the old ones.\n    inputSchema: { type: object, additionalProperties: false }\n`;
    // The search tool replaced by two tools whose names are nothing like it.
    spec(
      dir,
      SPEC.replace(
        SPEC.slice(SPEC.indexOf('  - name: search'), SPEC.indexOf('  - name: add')),
        tool('open_note') + tool('close_note'),
      ),
    );
    const before = snapshot(dir);
    const r = await runMain(['generate'], dir);
    expect(r.code).toBe(2);
    const asked = r.stderr.split('\n').filter((l) => l.includes(' error TS044 '));
    expect(asked).toEqual([
      'toolspec.yaml:4:5 error TS044 2 tools have no handler ("open_note", "close_note"), and the handlers of tools the spec no longer has are there: src/handlers/search.ts ("search"); was one of those tools renamed to one of these?',
    ]);
    expect(r.stderr).toContain('run toolspec generate --new-stubs to create their stubs');
    expect(r.stderr).toMatch(/1 rename to confirm; nothing was written\n$/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('asks only about tools that vanished in this edit: a handler left from an earlier one is not a question', async () => {
    const dir = await project();
    const searchTool = SPEC.slice(SPEC.indexOf('  - name: search'), SPEC.indexOf('  - name: add'));
    // search goes, and the next generate drops it (its handler stays, the user's code).
    spec(dir, SPEC.replace(searchTool, ''));
    expect((await runMain(['generate'], dir)).code).toBe(0);
    expect(exists(dir, 'src/handlers/search.ts')).toBe(true);
    // A later edit adds a tool: not a rename of search, which was gone before it.
    spec(
      dir,
      SPEC.replace(
        searchTool,
        '  - name: open_note\n    description: Open a note by its title.\n    inputSchema: { type: object, additionalProperties: false }\n',
      ),
    );
    const r = await runMain(['generate'], dir);
    expect(r.stderr).not.toContain('TS044');
    expect(r.code).toBe(0);
    expect(exists(dir, 'src/handlers/open_note.ts')).toBe(true);
    expect(read(dir, 'src/handlers/search.ts')).toBe(IMPLEMENTATION);
    // check says the old handler is an orphan, not a rename to confirm.
    const check = await runMain(['check'], dir);
    expect(check.stdout).toContain('orphan-handler');
    expect(check.stdout).not.toContain('unconfirmed-rename');
  });

  it('leaves both files when the renamed tool has a handler already, and says so', async () => {
    const dir = await project();
    spec(dir, RENAMED);
    expect((await runMain(['generate', '--new-stubs'], dir)).code).toBe(0);
    const stub = read(dir, 'src/handlers/search_all.ts');
    spec(dir, DECLARED);
    const r = await runMain(['generate'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'src/handlers/search.ts was not moved to src/handlers/search_all.ts, which exists already; both are kept: move what you need from search.ts into search_all.ts, then remove search.ts\n',
    );
    expect(read(dir, 'src/handlers/search.ts')).toBe(IMPLEMENTATION);
    expect(read(dir, 'src/handlers/search_all.ts')).toBe(stub);

    const check = await runMain(['check'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      'src/handlers/search.ts:1:1 error orphan-handler search_all handler of "search", which the spec renamed to "search_all", but search_all.ts exists too, so generate kept both: move the code you want from search.ts into search_all.ts, then remove search.ts',
    );
  });

  it('moves nothing when generate writes nothing (lint fails)', async () => {
    const dir = await project();
    spec(
      dir,
      `${DECLARED}options:\n  lint: { failOn: warning, rules: { vague-description: error } }\n`.replace(
        'Search the notes by a word in their text.',
        'Search.',
      ),
    );
    const r = await runMain(['generate'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error vague-description');
    expect(r.stderr).toContain('nothing was written');
    expect(read(dir, 'src/handlers/search.ts')).toBe(IMPLEMENTATION);
    expect(exists(dir, 'src/handlers/search_all.ts')).toBe(false);
  });

  it('a move killed before the old file is removed leaves the code in both, and the next generate finishes it', async () => {
    const dir = await project();
    spec(dir, DECLARED);
    const crashed = runCli(['generate'], dir, { TOOLSPEC_FAILPOINT: 'handler-moved' });
    expect(crashed.code).toBe(null); // killed
    expect(read(dir, 'src/handlers/search.ts')).toBe(IMPLEMENTATION);
    expect(read(dir, 'src/handlers/search_all.ts')).toBe(MOVED);
    const r = await runMain(['generate'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('moved src/handlers/search.ts to src/handlers/search_all.ts');
    expect(exists(dir, 'src/handlers/search.ts')).toBe(false);
    expect(read(dir, 'src/handlers/search_all.ts')).toBe(MOVED);
    expect((await runMain(['check'], dir)).code).toBe(0);
  });
});

describe('the moved module: its references to the tool renamed, the rest kept byte for byte', () => {
  it('rewrites Handler<>, indexed contract types and imported type names from the generated folder only', async () => {
    const text = [
      'import type { ToolInputs, ToolResults as R } from "../generated/contract.js";',
      "import type { SearchOutput as Out, SearchArguments } from '../generated/types.js';",
      "import type { SearchInput } from './my-types.js'; // not generated: left alone",
      '',
      "// Handler<'search'> in a comment, and the word search in a string: left alone",
      'export function handler(args: ToolInputs[\'search\'], raw?: SearchArguments): R["search"] & Out {',
      "  return { text: 'search ' + String(raw) + String(args) } as never;",
      '}',
      'export type Same = SearchInput;',
      '',
    ].join('\n');
    const out = await rewriteHandler(text, {
      from: 'search',
      tool: 'search_all',
      typeName: 'SearchAll',
      target: '/p/src/handlers/search_all.ts',
      generatedDir: '/p/src/generated',
    });
    expect(out).toBe(
      text
        .replace("ToolInputs['search']", "ToolInputs['search_all']")
        .replace('R["search"]', 'R["search_all"]')
        .replace('SearchOutput as Out', 'SearchAllOutput as Out')
        .replaceAll('SearchArguments', 'SearchAllArguments'),
    );
  });
});

describe('renamedFrom is validated', () => {
  const validate = async (tools: string) => {
    const p = tempProject({ 'toolspec.yaml': `toolspec: 1\nserver: { name: s, version: 1.0.0 }\ntools:\n${tools}` });
    cleanups.push(p.cleanup);
    return runMain(['validate'], p.dir);
  };
  const tool = (name: string, extra = '') =>
    `  - name: ${name}\n    description: A tool that does one thing well.\n    inputSchema: { type: object }\n${extra}`;

  it('takes a name or a list of names', async () => {
    expect((await validate(tool('b', '    renamedFrom: a\n'))).code).toBe(0);
    expect((await validate(tool('c', '    renamedFrom: [b, a]\n'))).code).toBe(0);
  });

  it('refuses a former name that is not a tool name, the tool itself, a current tool, or claimed twice', async () => {
    const bad = await validate(tool('b', '    renamedFrom: "not a name"\n'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'toolspec.yaml:7:18 error TS043 renamedFrom names "not a name", which is not a valid tool name',
    );
    const inList = await validate(tool('b', '    renamedFrom: [a, "x/y"]\n'));
    expect(inList.stderr).toContain(
      'toolspec.yaml:7:22 error TS043 renamedFrom names "x/y", which is not a valid tool name',
    );
    const self = await validate(tool('b', '    renamedFrom: b\n'));
    expect(self.stderr).toContain('toolspec.yaml:7:18 error TS043 tool "b" names itself in renamedFrom');
    const current = await validate(tool('a') + tool('b', '    renamedFrom: a\n'));
    expect(current.code).toBe(2);
    expect(current.stderr).toContain(
      'toolspec.yaml:10:18 error TS043 renamedFrom names "a", which is a tool of this spec (toolspec.yaml:4:11)',
    );
    const twice = await validate(tool('b', '    renamedFrom: a\n') + tool('c', '    renamedFrom: [z, a]\n'));
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('toolspec.yaml:11:22 error TS043 tools "b" and "c" both say they were "a"');
    const wrongType = await validate(tool('b', '    renamedFrom: 3\n'));
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toContain('toolspec.yaml:7:18 error TS008');
  });
});
