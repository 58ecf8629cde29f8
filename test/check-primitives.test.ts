/**
 * The drift check covers prompts and resources as it covers tools: a missing handler module, one the spec no longer
 * has, and a module that does not fit its contract (the handler's types, a `complete` export the spec asks for),
 * The project is test/fixtures/e2e-primitives, every handler written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

async function project(): Promise<string> {
  const p = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e-primitives'), 'check-primitives');
  cleanups.push(p.cleanup);
  const gen = await runMain(['generate'], p.dir);
  expect(gen.code).toBe(0);
  // The summary counts them beside the tools.
  expect(gen.stdout).toMatch(/ — 2 tools, 2 prompts, 4 resources in \d+ ms\n/);
  // Their stubs are not created: every handler is written already.
  expect(gen.stdout).not.toContain('created');
  return p.dir;
}

const edit = (dir: string, file: string, from: string | RegExp, to: string) => {
  const abs = path.join(dir, file);
  const text = fs.readFileSync(abs, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`mutation did not apply to ${file}`);
  fs.writeFileSync(abs, next);
};

interface JsonFinding {
  code: string;
  file: string;
  line: number;
  message: string;
}
const findingsOf = (stdout: string) =>
  (JSON.parse(stdout) as { findings?: JsonFinding[]; items?: JsonFinding[] }).findings ??
  (JSON.parse(stdout) as { items: JsonFinding[] }).items;

describe('toolspec check: prompts and resources', () => {
  it('finds nothing in a project whose handlers fit', async () => {
    const dir = await project();
    const r = await runMain(['check'], dir);
    expect(r.stdout + r.stderr).toContain('no drift');
    expect(r.code).toBe(0);
  });

  it('reports a missing module, a module of nothing, and modules that miss their contract', async () => {
    const dir = await project();
    expect((await runMain(['check'], dir)).code).toBe(0);
    fs.rmSync(path.join(dir, 'src/handlers/prompts/ask_first.ts'));
    fs.writeFileSync(path.join(dir, 'src/handlers/resources/gone.ts'), 'export const handler = () => "x";\n');
    edit(dir, 'src/handlers/resources/note.ts', 'export const complete', 'export const completion');
    edit(
      dir,
      'src/handlers/prompts/summarise_notes.ts',
      "export const handler: PromptHandler<'summarise_notes'> = ({ topic, style }) =>",
      'export const handler = ({ topic, style }: { topic: number; style?: string }) =>',
    );
    const r = await runMain(['check', '--format', 'json'], dir);
    expect(r.code).toBe(1);
    const found = findingsOf(r.stdout).map((f) => `${f.code} ${f.file}:${f.line} ${f.message}`);
    expect(found).toEqual([
      expect.stringMatching(
        /^missing-handler src\/handlers\/prompts\/ask_first\.ts:1 prompt "ask_first" has no handler module/,
      ),
      expect.stringMatching(
        /^handler-contract src\/handlers\/prompts\/summarise_notes\.ts:3 the module of prompt "summarise_notes" does not fit its contract: .*number/,
      ),
      expect.stringMatching(
        /^orphan-handler src\/handlers\/resources\/gone\.ts:1 handler of "gone", a resource the spec does not have/,
      ),
      expect.stringMatching(
        /^handler-contract src\/handlers\/resources\/note\.ts:4 the module of resource "note" does not fit its contract: .*'complete' is missing/,
      ),
    ]);
    expect(r.stdout).not.toContain(dir);
  });

  it('sees a stale primitives.ts like any generated file', async () => {
    const dir = await project();
    edit(dir, 'toolspec.yaml', 'description: One note, by id.', 'description: One note, by its id.');
    const r = await runMain(['check'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('src/generated/primitives.ts');
  });

  it('generate creates a missing prompt or resource stub, in a folder it makes, and never overwrites one', async () => {
    const dir = await project();
    fs.rmSync(path.join(dir, 'src/handlers/prompts'), { recursive: true });
    const note = fs.readFileSync(path.join(dir, 'src/handlers/resources/note.ts'), 'utf8');
    const r = await runMain(['generate'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('created src/handlers/prompts/summarise_notes.ts: a stub to fill in');
    expect(r.stdout).toContain('created src/handlers/prompts/ask_first.ts: a stub to fill in');
    expect(fs.readFileSync(path.join(dir, 'src/handlers/prompts/ask_first.ts'), 'utf8')).toContain(
      "export const handler: PromptHandler<'ask_first'>",
    );
    expect(fs.readFileSync(path.join(dir, 'src/handlers/resources/note.ts'), 'utf8')).toBe(note);
  });
});
