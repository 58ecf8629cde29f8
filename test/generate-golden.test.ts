/**
 * Golden outputs: what `generate` produces for each spec, byte for byte, under test/fixtures/generate/<case>/expected
 * (generated files and handler stubs as a fresh project gets them). Refresh with `npx vitest run -u` and read the
 * diff. Every golden output is then type-checked in one program with the real compiler under strict settings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTypeScript } from '../src/emit/format.js';
import { generate } from '../src/emit/generate.js';
import { loadModel } from '../src/spec.js';
import { repoRoot } from './helpers/cli.js';
import { compile, tsFiles } from './helpers/project.js';

const goldens = path.join(repoRoot, 'test/fixtures/generate');
const CASES: Record<string, string> = {
  todo: 'specs/todo/toolspec.yaml',
  docs: 'specs/docs/toolspec.yaml',
  e2e: 'test/fixtures/e2e/toolspec.yaml',
  hostile: 'test/fixtures/generate/hostile/toolspec.yaml',
  options: 'test/fixtures/generate/options/toolspec.yaml',
};

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
      const { model, diagnostics } = loadModel(spec, { cwd: repoRoot });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const files = await generate(model!);
      const expectedDir = path.join(goldens, name, 'expected');
      for (const f of files) await expect(f.contents).toMatchFileSnapshot(path.join(expectedDir, f.path));
      // Emitters write prettier's shape without running it: every TypeScript file but the machine-made ones must be
      // exactly what the pinned prettier makes of it.
      for (const f of files.filter((x) => x.path.endsWith('.ts') && !/\/(types|validators)\.ts$/.test(x.path))) {
        expect(await formatTypeScript(f.contents), f.path).toBe(f.contents);
      }
      // Nothing in the golden folder that generate no longer produces.
      const produced = files.map((f) => f.path).sort();
      expect(listFiles(expectedDir).filter((f) => !produced.includes(f))).toEqual([]);
    });
  }

  it('gives the same bytes twice and does not mutate the model', async () => {
    const { model } = loadModel(CASES.docs!, { cwd: repoRoot });
    const before = structuredClone(model);
    const first = await generate(model!);
    const second = await generate(model!);
    expect(second).toEqual(first);
    expect(model).toEqual(before);
  });

  it('all golden outputs compile under strict TypeScript, in one program', () => {
    const files = Object.keys(CASES).flatMap((name) => tsFiles(path.join(goldens, name, 'expected')));
    expect(files.length).toBeGreaterThan(50);
    expect(compile(files)).toEqual([]);
  });
});
