/**
 * types.ts is generated a piece at a time (each tool's definitions, each shared definition) so that a piece whose
 * input is unchanged is kept between runs. On every spec in the repository that loads: the pieces, joined, declare
 * every type they refer to (the real compiler, strict), and kept pieces give the same bytes as computed ones.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitTypes } from '../src/pipeline/emit/types.js';
import { loadModel } from '../src/compile.js';
import { repoRoot } from './helpers/cli.js';
import { compile } from './helpers/project.js';
import { memoryStore } from './helpers/store.js';

function specs(): string[] {
  const found: string[] = [];
  for (const top of ['specs', 'test/fixtures']) {
    for (const f of fs.readdirSync(path.join(repoRoot, top), { recursive: true }) as string[]) {
      if (/(^|\/)toolspec\.yaml$/.test(f) && !f.includes('node_modules')) found.push(path.join(top, f));
    }
  }
  return found.sort();
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-types-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

describe('types in pieces', () => {
  const loaded = specs()
    .map((spec) => ({ spec, result: loadModel(path.join(repoRoot, spec), { cwd: repoRoot }) }))
    .filter(({ result }) => result.model && result.model.tools.length);

  it('are whole TypeScript on every spec, shared $defs among them, and the same bytes when kept', async () => {
    expect(loaded.length).toBeGreaterThan(20);
    expect(loaded.some(({ result }) => result.model!.tools.some((t) => t.input.sharedDefs.length))).toBe(true);
    const files: string[] = [];
    let inPieces = 0;
    for (const [i, { result }] of loaded.entries()) {
      const store = memoryStore();
      const fresh = (await emitTypes(result.model!, store)).join('\n');
      // A spec the type generator cannot type piece by piece (untypable shapes) takes the whole-schema path.
      if (store.kept.size >= result.model!.tools.length) inPieces++;
      expect((await emitTypes(result.model!, store)).join('\n')).toBe(fresh);
      expect((await emitTypes(result.model!)).join('\n')).toBe(fresh);
      const file = path.join(out, `types${i}.ts`);
      fs.writeFileSync(file, fresh);
      files.push(file);
    }
    expect(inPieces).toBeGreaterThan(20);
    expect(compile(files)).toEqual([]);
  }, 30_000);

  it('take a kept piece as it is', async () => {
    const { model } = loaded.find(({ result }) => result.model!.tools.length > 1)!.result;
    const store = memoryStore();
    await emitTypes(model!, store);
    for (const [k, v] of store.kept) store.kept.set(k, `${v}// kept\n`);
    expect((await emitTypes(model!, store)).join('\n')).toContain('// kept');
  });
});

describe('a tool whose description alone changed', () => {
  it('is typed again without the type generator or the printer, to the bytes computed without a store', async () => {
    const spec = path.join(repoRoot, 'specs/docs/toolspec.yaml');
    const { model } = loadModel(spec, { cwd: repoRoot });
    const puts: string[] = [];
    const store = memoryStore((kind) => puts.push(kind));
    await emitTypes(model!, store);
    expect(puts.length).toBeGreaterThan(0);
    const edited = structuredClone(model!);
    edited.tools[0]!.definition.description = 'Edited: a description long enough to be wrapped by the printer, '.repeat(
      3,
    );
    puts.length = 0;
    const text = (await emitTypes(edited, store)).join('\n');
    expect(puts).toEqual([]);
    expect(text).toContain('Edited: a description');
    expect(text).toBe((await emitTypes(edited)).join('\n'));
  });
});
