/**
 * The import rules of ARCHITECTURE.md (scripts/layers.mjs, on TypeScript's syntax tree): they hold for src/, and
 * each way of breaking one is caught, however the forbidden thing is reached.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/cli.js';

// @ts-expect-error: the rules are a plain JavaScript script (npm run typecheck runs it)
import { judge as judgeTree } from '../scripts/layers.mjs';

const judge = judgeTree as (src?: string) => { problems: string[] };

/** src/ with `text` appended to `file`: what the rules say of it. */
function judged(changes: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-layers-'));
  try {
    fs.cpSync(path.join(repoRoot, 'src'), dir, { recursive: true });
    for (const [file, text] of Object.entries(changes)) fs.appendFileSync(path.join(dir, file), `\n${text}\n`);
    const { problems } = judge(dir);
    expect(problems.length).toBeGreaterThan(0);
    return problems.join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('layers', () => {
  it('hold for src/, with no import loop', () => {
    expect(judge().problems).toEqual([]);
  });

  it('catch an emitter that imports validate, and a loop', () => {
    const out = judged({
      'pipeline/emit/stub.ts': "export { checkTools } from '../validate/tools.js';",
      'core/names.ts': "export type { Options } from './suggest.js';",
      'core/suggest.ts': "export type { Options } from './names.js';",
    });
    expect(out).toContain('src/pipeline/emit/stub.ts:');
    expect(out).toContain('imports src/pipeline/validate/tools.ts; pipeline/emit may import only');
    expect(out).toContain('import loop: src/core/names.ts → src/core/suggest.ts → back to the first');
  });

  it('catch printing, however it is reached', () => {
    const out = judged({
      'lint/lint.ts': "export const shout = () => console.log('x');",
      'diff/text.ts': "export const say = () => process['stdout'].write('x');",
      'check/report.ts': "export const err = () => globalThis.console.error('x');",
    });
    for (const file of ['lint/lint.ts', 'diff/text.ts', 'check/report.ts'])
      expect(out).toMatch(new RegExp(`src/${file.replace('.', '\\.')}:\\d+: prints; only the CLI prints`));
  });

  it('catch a disk write outside the writers: a named import, a namespace, an element access, fs.promises', () => {
    const out = judged({
      'pipeline/emit/text.ts': "import { writeFileSync as put } from 'node:fs';\nexport const a = () => put('x', '');",
      'lint/lint.ts': "import * as files from 'fs';\nexport const b = () => files['rmSync']('x');",
      'diff/text.ts': "import fsp from 'node:fs';\nexport const c = () => fsp.promises.writeFile('x', '');",
      'check/report.ts': "export const d = async () => (await import('node:fs/promises')).rm('x');",
    });
    expect(out).toMatch(/src\/pipeline\/emit\/text\.ts:\d+: imports node:fs; pipeline\/emit is pure/);
    for (const file of ['pipeline/emit/text.ts', 'lint/lint.ts', 'diff/text.ts'])
      expect(out).toMatch(new RegExp(`src/${file.replace(/[./]/g, '\\$&')}:\\d+: writes to the disk`));
    expect(out).toMatch(/src\/check\/report\.ts:\d+: loads the fs module dynamically/);
  });

  it('catch a pure stage that reaches threads, processes or process itself', () => {
    const out = judged({
      'pipeline/schema/forms.ts': "import { Worker } from 'node:worker_threads';\nexport const w = Worker;",
      'pipeline/emit/bindings.ts': "export const run = () => import('node:child_process');",
      'pipeline/model.ts': "export const home = process.env['HOME'];",
    });
    expect(out).toMatch(/src\/pipeline\/schema\/forms\.ts:\d+: imports node:worker_threads; pipeline\/schema is pure/);
    expect(out).toMatch(/src\/pipeline\/emit\/bindings\.ts:\d+: imports node:child_process; pipeline\/emit is pure/);
    expect(out).toMatch(/src\/pipeline\/model\.ts:\d+: touches process; pipeline\/model\.ts is pure/);
  });
});
