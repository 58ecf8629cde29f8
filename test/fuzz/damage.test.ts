/**
 * Random damage: valid specs (specs/todo, specs/docs with its includes, the golden inputs of generate) are broken
 * at random — lines and keys deleted or duplicated, values retyped, bytes truncated, control characters, invalid
 * UTF-8, a BOM or tabs injected — and fed to the CLI (`validate` or `generate`) in process, in a temp copy of the
 * project. Whatever the damage: exit 0 or 2 (or 1: valid, but failing lint), never 3 and never a throw; on 2 a file:line:col diagnostic, no stack
 * trace, and not one byte written; on 0 a generate really produced its generated folder. A few cases also run
 * through the built CLI. Reproduce a failure with the FUZZ_SEED (and FUZZ_PATH) that fast-check prints.
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../src/compile.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { fuzzParams, fuzzTimeout, seed } from './config.js';
import { runMain, type InProcessRun } from './damage-cli.js';
import { applyAll, damageArb, invalidUtf8Arb, isValidUtf8, type Mutation } from './damage-mutations.js';

interface Source {
  name: string;
  /** The project folder, relative to the repository; its `expected/` golden folder is left out of the copy. */
  from: string;
  /** The spec files that damage may hit, main first. */
  files: string[];
  /** Cases in CI. */
  runs: number;
}

const SOURCES: Source[] = [
  { name: 'todo', from: 'specs/todo', files: ['toolspec.yaml'], runs: 24 },
  {
    name: 'docs',
    from: 'specs/docs',
    files: [
      'toolspec.yaml',
      'tools/10-changelog.yaml',
      'tools/20-reference.yaml',
      'tools/30-bookmarks.yaml',
      'tools/40-feedback.yaml',
    ],
    runs: 12,
  },
  { name: 'hostile', from: 'test/fixtures/generate/hostile', files: ['toolspec.yaml'], runs: 16 },
  { name: 'options', from: 'test/fixtures/generate/options', files: ['toolspec.yaml'], runs: 16 },
];

interface Case {
  file: string;
  command: 'validate' | 'generate';
  damage: Mutation[];
}

const caseArb = (s: Source): fc.Arbitrary<Case> =>
  fc.record({
    file: fc.constantFrom(...s.files),
    command: fc.constantFrom('validate' as const, 'generate' as const),
    damage: damageArb,
  });

/** Each source, generated once (so a damaged generate has a generated folder to leave alone); copied per case. */
const templates = new Map<string, string>();
const scratch: string[] = [];

beforeAll(async () => {
  for (const s of SOURCES) {
    const dir = tempDir(s.name);
    fs.cpSync(path.join(repoRoot, s.from), dir, { recursive: true, filter: (p) => path.basename(p) !== 'expected' });
    const r = await runMain(['generate', 'toolspec.yaml'], dir);
    expect(r.code, `${s.name}: ${r.stderr}`).toBe(0);
    templates.set(s.name, dir);
  }
}, 120_000);
afterAll(() => scratch.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('damaged specs: exit 0 or 2, a diagnostic, nothing half-written', () => {
  for (const s of SOURCES) {
    it(
      `${s.name}: validate and generate survive random damage`,
      async () => {
        await fc.assert(
          fc.asyncProperty(caseArb(s), async (c) => {
            const project = copyOf(s.name);
            try {
              damage(project, c);
              const before = snapshot(project);
              const r = await runMain([c.command, 'toolspec.yaml'], project);
              expectSaneOutcome(project, c.command, r, before);
            } finally {
              fs.rmSync(project, { recursive: true, force: true });
            }
          }),
          fuzzParams(s.runs),
        );
      },
      fuzzTimeout(60_000),
    );
  }
});

describe('a damaged file that is not UTF-8', () => {
  it(
    'the loader says so, at the file, with a diagnostic',
    async () => {
      const arb = fc.record({ source: fc.constantFrom('todo', 'docs'), file: fc.nat(), damage: invalidUtf8Arb });
      await fc.assert(
        fc.asyncProperty(arb, async ({ source, file, damage: mutations }) => {
          const files = SOURCES.find((s) => s.name === source)!.files;
          const rel = files[file % files.length]!;
          const project = copyOf(source);
          try {
            const target = path.join(project, rel);
            const bytes = applyAll(fs.readFileSync(target), mutations);
            fc.pre(!isValidUtf8(bytes));
            fs.writeFileSync(target, bytes);
            const r = await runMain(['validate', 'toolspec.yaml'], project);
            expect(r.code, r.stdout + r.stderr).toBe(2);
            const diagnostics = r.stderr
              .split('\n')
              .filter((l) => l.startsWith(`${rel}:`) && / error TS\d{3} /.test(l));
            expect(
              diagnostics.some((l) => /UTF-?8/i.test(l)),
              r.stderr,
            ).toBe(true);
          } finally {
            fs.rmSync(project, { recursive: true, force: true });
          }
        }),
        fuzzParams(8),
      );
    },
    fuzzTimeout(40_000),
  );
});

describe('damaged specs through the built CLI', () => {
  const todo = SOURCES[0]!;
  const cases: Case[] = [
    // A duplicated comment line: still valid, so generate writes (exit 0).
    { file: 'toolspec.yaml', command: 'generate', damage: [{ kind: 'duplicateLines', at: 0, count: 1 }] },
    // Cut in the middle of the first tool: invalid (exit 2).
    { file: 'toolspec.yaml', command: 'generate', damage: [{ kind: 'truncate', at: 700 }] },
    // And three random cases of this run's seed.
    ...fc.sample(caseArb(todo), { seed, numRuns: 3 }),
  ];
  it.each(cases.map((c) => [JSON.stringify(c), c] as const))(
    '%s: same exit code and diagnostics as in process',
    async (_name, c) => {
      const inProcess = copyOf(todo.name);
      const built = copyOf(todo.name);
      try {
        damage(inProcess, c);
        damage(built, c);
        const before = snapshot(built);
        const a = await runMain([c.command, 'toolspec.yaml'], inProcess);
        const b = runCli([c.command, 'toolspec.yaml'], built);
        expect(b.code).toBe(a.code);
        expect(b.stderr).toBe(a.stderr);
        expectSaneOutcome(built, c.command, { code: b.code ?? -1, stdout: b.stdout, stderr: b.stderr }, before);
      } finally {
        fs.rmSync(inProcess, { recursive: true, force: true });
        fs.rmSync(built, { recursive: true, force: true });
      }
    },
  );
  it('the fixed cases cover both outcomes', async () => {
    const codes: number[] = [];
    for (const c of cases.slice(0, 2)) {
      const p = copyOf(todo.name);
      try {
        damage(p, c);
        codes.push((await runMain([c.command, 'toolspec.yaml'], p)).code);
      } finally {
        fs.rmSync(p, { recursive: true, force: true });
      }
    }
    expect(codes).toEqual([0, 2]);
  });
});

/** Damage this suite found, each as its smallest case. */
describe('damage found by this suite', () => {
  it('options.generatedDir naming an existing file is a diagnostic (exit 2), not an internal error', async () => {
    const project = copyOf('options');
    try {
      const spec = path.join(project, 'toolspec.yaml');
      fs.writeFileSync(
        spec,
        fs.readFileSync(spec, 'utf8').replace('generatedDir: lib/mcp', 'generatedDir: toolspec.yaml'),
      );
      const before = snapshot(project);
      const r = await runMain(['generate', 'toolspec.yaml'], project);
      expectSaneOutcome(project, 'generate', r, before);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolspec\.yaml:5:\d+ error TS\d{3} .*generatedDir/m);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it('control characters from the spec are not echoed raw to the terminal in diagnostics', async () => {
    const project = copyOf('todo');
    try {
      // ESC [2J clears a terminal; BEL rings it. Here they sit in front of a key, which makes it unknown.
      const spec = path.join(project, 'toolspec.yaml');
      fs.writeFileSync(
        spec,
        fs.readFileSync(spec, 'utf8').replace('    title: Add item', '    \u001b[2J\u0007title: Add item'),
      );
      const r = await runMain(['validate', 'toolspec.yaml'], project);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolspec\.yaml:13:5 error TS006 /m);
      expect(r.stderr).not.toMatch(/[\0-\x08\x0b-\x1f\x7f]/);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});

/** The invariants every run must keep, whatever the damage. */
function expectSaneOutcome(
  project: string,
  command: Case['command'],
  r: InProcessRun,
  before: Map<string, string>,
): void {
  const output = `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  // 1: the spec is valid but fails lint at its configured level (damage can make a tool read-only and destructive).
  expect([0, 1, 2], output).toContain(r.code);
  expect(r.stderr, 'a stack trace').not.toMatch(/\n\s+at /);
  if (r.code === 1) {
    expect(r.stderr, output).toMatch(/:\d+:\d+ error [a-z-]+ /);
    expect(changes(before, snapshot(project)), 'files written by a run that failed lint').toEqual([]);
    return;
  }
  if (r.code === 2) {
    expect(r.stderr, output).toMatch(/:\d+:\d+ error TS\d{3}/);
    expect(changes(before, snapshot(project)), 'files written by a run that failed').toEqual([]);
    return;
  }
  if (command === 'validate') {
    expect(changes(before, snapshot(project)), 'files written by validate').toEqual([]);
    return;
  }
  // generate exited 0: the spec as it now is has a model, and its generated folder holds it.
  const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: project });
  expect(model, JSON.stringify(diagnostics)).toBeDefined();
  const generated = path.join(project, model!.options.generatedDir);
  const manifest = JSON.parse(fs.readFileSync(path.join(generated, 'manifest.json'), 'utf8')) as {
    tools: { name: string }[];
  };
  expect(manifest.tools.map((t) => t.name)).toEqual(model!.tools.map((t) => t.name));
  for (const f of [
    'contract.ts',
    'dispatcher.ts',
    'registry.ts',
    'server.ts',
    'tools.ts',
    'types.ts',
    'validators.ts',
  ]) {
    expect(fs.readFileSync(path.join(generated, f), 'utf8'), f).toMatch(/^\/\/ generated by toolspec from /);
  }
  for (const t of model!.tools)
    expect(fs.existsSync(path.join(project, model!.options.handlersDir, `${t.name}.ts`)), t.name).toBe(true);
}

function damage(project: string, c: Case): void {
  const target = path.join(project, c.file);
  fs.writeFileSync(target, applyAll(fs.readFileSync(target), c.damage));
}

function tempDir(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `toolspec-damage-${name}-`));
  // The generate cache goes to the nearest node_modules: this one, so it is removed with the project.
  fs.mkdirSync(path.join(dir, 'node_modules'));
  scratch.push(dir);
  return dir;
}

/** A fresh copy of a source's generated project (without its cache). */
function copyOf(name: string): string {
  const dir = tempDir(name);
  fs.cpSync(templates.get(name)!, dir, { recursive: true, filter: (p) => !p.includes(`${path.sep}node_modules`) });
  return dir;
}

/** Every file of the project outside node_modules, with the hash of its bytes. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = path.join(e.parentPath, e.name);
    if (!e.isFile() || path.relative(dir, abs).split(path.sep)[0] === 'node_modules') continue;
    files.set(path.relative(dir, abs), createHash('sha256').update(fs.readFileSync(abs)).digest('hex'));
  }
  return files;
}

function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const all = new Set([...before.keys(), ...after.keys()]);
  return [...all]
    .filter((f) => before.get(f) !== after.get(f))
    .map((f) => `${f}: ${!before.has(f) ? 'created' : !after.has(f) ? 'removed' : 'changed'}`)
    .sort();
}
