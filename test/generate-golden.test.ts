/**
 * Golden outputs: what `generate` produces for each spec, byte for byte, under test/fixtures/generate/<case>/expected
 * (generated files and handler stubs as a fresh project gets them), except the runtime files copied unchanged from
 * templates/runtime (type-checked there). Refresh with `npx vitest run -u` and read the diff; a missing golden fails.
 * Every whole output, runtime included, is then type-checked in one program with the real compiler, strictly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTypeScript } from '../src/pipeline/emit/format.js';
import { generate } from './helpers/generate.js';
import { EXAMPLES_RUNNER, STATIC_FILES } from '../src/pipeline/emit/templates.js';
import type { OutputFile } from '../src/pipeline/emit/generate.js';
import type { ServerModel } from '../src/pipeline/model.js';
import { loadModel } from '../src/compile.js';
import { repoRoot } from './helpers/cli.js';
import { compile, ENTRY_POINTS, tsFiles } from './helpers/project.js';
import { tempProject } from './helpers/tmp.js';

const goldens = path.join(repoRoot, 'test/fixtures/generate');
const CASES: Record<string, string> = {
  todo: 'specs/todo/toolspec.yaml',
  docs: 'specs/docs/toolspec.yaml',
  e2e: 'test/fixtures/e2e/toolspec.yaml',
  hostile: 'test/fixtures/generate/hostile/toolspec.yaml',
  options: 'test/fixtures/generate/options/toolspec.yaml',
  primitives: 'test/fixtures/generate/primitives/toolspec.yaml',
};

/** A runtime file generate copies from templates/runtime as it is. */
function isRuntimeCopy(model: ServerModel, file: string): boolean {
  return (
    path.posix.dirname(file) === model.options.generatedDir &&
    [...STATIC_FILES, EXAMPLES_RUNNER].includes(path.posix.basename(file))
  );
}

/** A generated file of code (formatted by prettier), not of data or ajv's machine-made code. */
const isCode = (f: OutputFile) => f.path.endsWith('.ts') && !/\/(manifest|validators)\.ts$/.test(f.path);

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

describe('generate: golden outputs', () => {
  for (const [name, spec] of Object.entries(CASES)) {
    it(name, async () => {
      const { model, validators, diagnostics } = loadModel(spec, { cwd: repoRoot });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const files = (await generate(model!, validators!)).filter((f) => !isRuntimeCopy(model!, f.path));
      const expectedDir = path.join(goldens, name, 'expected');
      for (const f of files) await expect(f.contents).toMatchFileSnapshot(path.join(expectedDir, f.path));
      // That each code file is exactly what prettier makes of the whole file is test/format.test.ts's, on these
      // cases and drawn ones.
      // Nothing in the golden folder that generate no longer produces.
      const produced = files.map((f) => f.path).sort();
      expect(listFiles(expectedDir).filter((f) => !produced.includes(f))).toEqual([]);
    });
  }

  it('formats servers of one tool and of none as prettier formats the whole file', async () => {
    const tool = (name: string) =>
      `  - name: ${name}\n    description: Add a note with the given text.\n    inputSchema: { type: object, properties: { text: { type: string, description: The text. } }, required: [text] }\n`;
    const specs = [
      `tools:\n${tool('a')}`,
      `tools:\n${tool('add_note')}`,
      `tools:\n${tool('a_very_long_tool_name_that_goes_on_and_on_for_quite_a_while_indeed_and_then_some')}`,
      `tools:\n  - name: a\n    description: Do a.\n    inputSchema: { type: object }\n`,
      'tools: []\n',
    ];
    for (const body of specs) {
      const p = tempProject({ 'toolspec.yaml': `toolspec: 1\nserver: { name: s, version: 1.0.0 }\n${body}` });
      try {
        const { model, validators } = loadModel('toolspec.yaml', { cwd: p.dir });
        const files = (await generate(model!, validators!)).filter((f) => !isRuntimeCopy(model!, f.path));
        for (const f of files.filter(isCode)) {
          expect(await formatTypeScript(f.contents), `${f.path} of ${body.split('\n')[1] ?? body}`).toBe(f.contents);
        }
      } finally {
        p.cleanup();
      }
    }
  });

  it('gives the same bytes twice, and for a clone of the model, and does not mutate the model', async () => {
    const { model, validators } = loadModel(CASES.docs!, { cwd: repoRoot });
    const before = structuredClone(model);
    const first = await generate(model!, validators!);
    const second = await generate(model!, validators!);
    expect(second).toEqual(first);
    expect(await generate(structuredClone(model!), structuredClone(validators!))).toEqual(first);
    // Loaded again (a fresh set of ajv instances, the same spec): the same bytes.
    const again = loadModel(CASES.docs!, { cwd: repoRoot });
    expect(await generate(again.model!, again.validators!)).toEqual(first);
    expect(model).toEqual(before);
  });

  describe("a change to one tool stays in that tool's output", () => {
    const spec = (defaultOfA: boolean, maxOfB: number, descriptionOfC: string) => `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: tool_a
    description: A.
    inputSchema:
      type: object
      properties:
        mode: { type: string, enum: [fast, slow]${defaultOfA ? ', default: fast' : ''} }
        when: { type: string, format: date }
  - name: tool_b
    description: B.
    inputSchema:
      type: object
      properties:
        text: { type: string, maxLength: ${maxOfB}, pattern: "^[a-z]+$" }
        tags: { type: array, items: { type: string, format: email }, uniqueItems: true }
  - name: tool_c
    description: C.
    inputSchema:
      type: object
      properties:
        q: { type: string, description: ${JSON.stringify(descriptionOfC)}, format: date }
      required: [q]
    outputSchema:
      type: object
      properties:
        n: { type: integer, description: ${JSON.stringify(descriptionOfC)} }
`;
    const validatorsOf = async (text: string) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-locality-'));
      try {
        fs.writeFileSync(path.join(dir, 'toolspec.yaml'), text);
        const { model, validators, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const file = (await generate(model!, validators!)).find((f) => f.path.endsWith('/validators.ts'))!;
        // Each export with its doc comment, by the tool it belongs to.
        const byTool: Record<string, string> = {};
        for (const part of file.contents.split(/\n\n(?=\/\*\* )/)) {
          const tool = /^\/\*\* (\S+?):/.exec(part)?.[1] ?? '(head)';
          byTool[tool] = (byTool[tool] ?? '') + part;
        }
        return byTool;
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    };

    it("removing one default changes only that tool's validator", async () => {
      const base = await validatorsOf(spec(true, 10, 'The query'));
      const changed = await validatorsOf(spec(false, 10, 'The query'));
      expect(Object.keys(changed)).toEqual(['(head)', 'tool_a', 'tool_b', 'tool_c']);
      expect(changed['tool_a']).not.toBe(base['tool_a']);
      for (const k of ['(head)', 'tool_b', 'tool_c']) expect(changed[k], k).toBe(base[k]);
    });

    it("a bound changes only its tool's validator; a description changes none", async () => {
      const base = await validatorsOf(spec(true, 10, 'The query'));
      const bound = await validatorsOf(spec(true, 11, 'The query'));
      expect(bound['tool_b']).not.toBe(base['tool_b']);
      for (const k of ['(head)', 'tool_a', 'tool_c']) expect(bound[k], k).toBe(base[k]);
      expect(await validatorsOf(spec(true, 10, 'What to look for'))).toEqual(base);
    });
  });

  // One program of every case, each with its typed client over the SDK client's declarations: a wider time limit
  // than the tier's 30 s default, which a loaded two-core machine can reach.
  it('every output compiles under strict TypeScript, in one program', async () => {
    // Inside the repository, so that its node_modules resolve.
    const scratch = path.join(repoRoot, 'test', '.tmp');
    fs.mkdirSync(scratch, { recursive: true });
    const dir = fs.mkdtempSync(path.join(scratch, 'golden-compile-'));
    try {
      for (const [name, spec] of Object.entries(CASES)) {
        const { model, validators } = loadModel(spec, { cwd: repoRoot });
        for (const f of await generate(model!, validators!)) {
          const target = path.join(dir, name, f.path);
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, f.contents);
        }
      }
      // Every case's files, but the server's transports and entry points (copies of templates/runtime that import
      // only server.ts, which every case keeps) in the first case alone: they are the costliest files to check.
      const first = Object.keys(CASES)[0]!;
      const files = tsFiles(dir).filter(
        (f) => path.relative(dir, f).startsWith(`${first}${path.sep}`) || !ENTRY_POINTS.has(path.basename(f)),
      );
      expect(files.length).toBeGreaterThan(50);
      expect(compile(files)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
