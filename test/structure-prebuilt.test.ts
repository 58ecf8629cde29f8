/**
 * The build writes the spec's structure validators as ajv standalone code (scripts/build-structure.mjs), so no run
 * compiles the spec's schema. They must judge exactly as the compiled ones: the same verdict and the same errors
 * (with the schemas ajv's verbose mode hands to the messages) on good and bad specs.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ValidateFunction } from 'ajv';
import { getValidators } from '../src/pipeline/load/structure.js';
import { repoRoot } from './helpers/cli.js';

const built = createRequire(import.meta.url)(
  path.join(repoRoot, 'dist/src/pipeline/load/structure-validators.cjs'),
) as {
  main: ValidateFunction;
  include: ValidateFunction;
  schemaHash: string;
};

function specs(): unknown[] {
  const docs: unknown[] = [];
  for (const top of ['specs', 'test/fixtures']) {
    for (const f of fs.readdirSync(path.join(repoRoot, top), { recursive: true }) as string[]) {
      if (!/(^|\/)toolspec\.yaml$/.test(f) || f.includes('node_modules')) continue;
      try {
        docs.push(parse(fs.readFileSync(path.join(repoRoot, top, f), 'utf8')));
      } catch {
        // not YAML at all: the loader's business, not the structure check's
      }
    }
  }
  return docs;
}

// Every field of every error but the data (a spec with aliases can be circular), the schemas included.
const verdict = (v: ValidateFunction, doc: unknown) => ({
  ok: v(doc),
  errors: JSON.stringify((v.errors ?? []).map(({ data: _data, ...rest }) => rest)),
});

describe('prebuilt structure validators', () => {
  it('judge every spec in the repository, and broken ones, as the compiled validators do', () => {
    const compiled = getValidators(true);
    const docs = specs();
    const broken = [
      { toolspec: 2, server: { name: 1 }, tools: [{ name: 'x', inputSchema: 'no' }], extra: true },
      { toolspec: 1, server: { name: 's', version: '1' }, tools: [{ description: 3, examples: [{ arguments: [] }] }] },
      { toolspec: 1, server: { name: 's', version: '1' }, prompts: [{ name: 'p', arguments: [{ required: 'yes' }] }] },
      'not a mapping',
    ];
    let failing = 0;
    for (const doc of [...docs, ...broken]) {
      const want = verdict(compiled.main, doc);
      if (!want.ok) failing++;
      expect(verdict(built.main, doc)).toEqual(want);
      expect(verdict(built.include, doc)).toEqual(verdict(compiled.include, doc));
    }
    expect(docs.length).toBeGreaterThan(40);
    expect(built.schemaHash).toMatch(/^[0-9a-f]{64}$/);
    expect(failing).toBeGreaterThan(broken.length);
  });
});
