/**
 * check without the local cache checks the handlers in a worker thread, against the contract on disk, while the
 * main thread regenerates (src/check/parallel.ts). These tests hold it to the in-process check: the same findings,
 * and the worker's answer thrown away whenever the contract on disk is not what the spec generates now. The worker
 * module is the built one (dist/), as the CLI runs it; npm test builds first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkHandlers } from '../src/check/handlers.js';
import { subjectOf } from '../src/check/subject.js';
import { generate } from '../src/emit/generate.js';
import { loadModel } from '../src/spec.js';
import { writeOutput } from '../src/write.js';
import { repoRoot, runCli, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';

const fixtures = path.join(repoRoot, 'test/fixtures/check');
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

/** A generated copy of the check tests' base project, never checked before (no local cache of it). */
async function baseProject(): Promise<string> {
  const p = scratchCopy(path.join(fixtures, 'base'), 'check-worker');
  cleanups.push(p.cleanup);
  const { model, validators } = loadModel('toolspec.yaml', { cwd: p.dir });
  writeOutput(model!.rootDir, model!.options, await generate(model!, validators!));
  return p.dir;
}

const edit = (dir: string, file: string, from: string, to: string) => {
  const abs = path.join(dir, file);
  const text = fs.readFileSync(abs, 'utf8');
  if (!text.includes(from)) throw new Error(`mutation did not apply to ${file}`);
  fs.writeFileSync(abs, text.replace(from, to));
};

/** The same mutation on two fresh copies: check by the built CLI (worker) and in this process (no worker). */
async function bothWays(
  mutate: (dir: string) => void,
): Promise<{ cli: unknown; inProcess: unknown; code: number | null }> {
  const a = await baseProject();
  const b = await baseProject();
  mutate(a);
  mutate(b);
  const cli = runCli(['check', '--format', 'json'], a);
  const inProcess = await runMain(['check', '--format', 'json'], b);
  expect(cli.stderr).toBe(inProcess.stderr);
  expect(cli.code).toBe(inProcess.code);
  return { cli: JSON.parse(cli.stdout), inProcess: JSON.parse(inProcess.stdout), code: inProcess.code };
}

describe('toolspec check without the cache: handlers checked in a worker', () => {
  it('the worker finds what the in-process check finds', async () => {
    const dir = await baseProject();
    edit(dir, 'src/handlers/delete_note.ts', "args: ToolInputs['delete_note']", 'args: { id: string }');
    edit(dir, 'src/handlers/add_note.ts', 'return `note ${notes.length} added`;', 'return notes.length;');
    const { model } = loadModel('toolspec.yaml', { cwd: dir });
    const subject = subjectOf(model!);
    const { CheckWorker } = (await import(
      path.join(repoRoot, 'dist/src/check/parallel.js')
    )) as typeof import('../src/check/parallel.js');
    // Two cores given, whatever this machine has: the worker itself is under test here.
    const worker = CheckWorker.start(dir, 2)!;
    expect(worker).toBeDefined();
    try {
      const early = worker.check(subject, dir, undefined);
      const inWorker = await early.findings;
      expect(new Set(inWorker.map((f) => f.tool))).toEqual(new Set(['add_note', 'delete_note']));
      expect(inWorker).toEqual(await checkHandlers(subject, dir));
    } finally {
      await worker.close();
    }
  });

  it('the built CLI reports the same findings as the in-process check: clean, and a handler that no longer fits', async () => {
    const clean = await bothWays(() => {});
    expect(clean.code).toBe(0);
    expect(clean.cli).toEqual(clean.inProcess);

    const broken = await bothWays((d) =>
      edit(
        d,
        'toolspec.yaml',
        'limit: { type: integer, minimum: 1, default: 10 }',
        'limit: { type: string, default: "10" }',
      ),
    );
    expect(broken.code).toBe(1);
    expect(broken.cli).toEqual(broken.inProcess);
    // The contract on disk still says integer, and the handler fits it: the finding comes from the spec's contract.
    expect(JSON.stringify(broken.cli)).toContain('search_notes');
  });

  it('a contract edited by hand on disk: the handler is judged against what the spec generates, not the edit', async () => {
    // On disk delete_note's id becomes a string, which its handler's `args.id - 1` cannot take; the spec says integer.
    const stale = await bothWays((d) =>
      edit(
        d,
        'src/generated/types.ts',
        'export interface DeleteNoteInput {\n  id: number',
        'export interface DeleteNoteInput {\n  id: string',
      ),
    );
    expect(stale.code).toBe(1);
    expect(stale.cli).toEqual(stale.inProcess);
    const findings = (stale.cli as { findings: { code: string; file: string }[] }).findings;
    expect(findings.map((f) => `${f.code} ${f.file}`)).toEqual(['stale-file src/generated/types.ts']);
  });
});

describe('the head start the worker takes while the spec loads', () => {
  it('a handler edited after the program was built ahead is checked as it is now', async () => {
    const { warmCompiler } = await import('../src/check/contracts.js');
    const dir = await baseProject();
    const { model } = loadModel('toolspec.yaml', { cwd: dir });
    const subject = subjectOf(model!);
    const clean = await checkHandlers(subject, dir);
    expect(clean).toEqual([]);

    // Built ahead and taken as it is: the same (clean) answer.
    await warmCompiler(dir);
    expect(await checkHandlers(subject, dir)).toEqual(clean);

    // Built ahead, then a handler changes: the program is not taken, and the change is found.
    await warmCompiler(dir);
    edit(dir, 'src/handlers/delete_note.ts', "args: ToolInputs['delete_note']", 'args: { id: string }');
    const after = await checkHandlers(subject, dir);
    expect(after.map((f) => `${f.kind} ${f.tool}`)).toContain('handler-contract delete_note');
    expect(after).toEqual(await checkHandlers(subject, dir)); // built afresh: nothing ahead any more
  });
});
