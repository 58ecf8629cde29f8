/**
 * What check type-checks besides the handlers: the project's modules they import (shared code), where a contract
 * change can break code as surely as in a handler, and nothing else the tsconfig includes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from './helpers/generate.js';
import { loadModel } from '../src/compile.js';
import { writeOutput } from '../src/write/write.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

async function baseProject(): Promise<string> {
  const p = scratchCopy(path.join(repoRoot, 'test/fixtures/check/base'), 'check-reach');
  cleanups.push(p.cleanup);
  await regenerate(p.dir);
  return p.dir;
}

async function regenerate(dir: string): Promise<void> {
  const { model, validators } = loadModel('toolspec.yaml', { cwd: dir });
  writeOutput(model!.rootDir, model!.options, await generate(model!, validators!));
}

const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};
const edit = (dir: string, file: string, from: string, to: string) => {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  if (!text.includes(from)) throw new Error(`mutation did not apply to ${file}`);
  fs.writeFileSync(path.join(dir, file), text.replace(from, to));
};

/** search_notes takes its page size from a shared module, typed from the contract. */
function withHelper(dir: string): void {
  write(
    dir,
    'src/lib/paging.ts',
    "import type { ToolInputs } from '../generated/contract.js';\n\nexport function pageSize(args: ToolInputs['search_notes']): number {\n  return args.limit ?? 10;\n}\n",
  );
  edit(dir, 'src/handlers/search_notes.ts', '.slice(0, args.limit)', '.slice(0, pageSize(args))');
  edit(
    dir,
    'src/handlers/search_notes.ts',
    "import { notes } from './notes.js';",
    "import { pageSize } from '../lib/paging.js';\nimport { notes } from './notes.js';",
  );
}

describe('check reads the modules the handlers import, and only those', () => {
  it('reports what a contract change breaks in a module a handler imports, with or without the local cache', async () => {
    const dir = await baseProject();
    withHelper(dir);
    expect((await runMain(['check'], dir)).code).toBe(0);

    // limit becomes a string: the handler still fits (it passes args on), the shared module no longer compiles.
    edit(
      dir,
      'toolspec.yaml',
      'limit: { type: integer, minimum: 1, default: 10 }',
      'limit: { type: string, default: "10" }',
    );
    await regenerate(dir);
    for (const run of ['first', 'second (handlers already read once)']) {
      const r = await runMain(['check'], dir);
      expect(r.code, run).toBe(1);
      expect(r.stdout, run).toMatch(
        /^ {2}src\/lib\/paging\.ts:4:3 error handler-contract .*'string' is not assignable to type 'number'/m,
      );
    }
  });

  it('does not type-check a file the tsconfig includes that no handler reaches', async () => {
    const dir = await baseProject();
    write(
      dir,
      'tsconfig.json',
      '{ "compilerOptions": { "strict": true, "module": "NodeNext", "moduleResolution": "NodeNext", "noEmit": true }, "include": ["src"] }\n',
    );
    write(dir, 'src/scripts/seed.ts', "const count: number = 'three';\nexport { count };\n");
    const r = await runMain(['check'], dir);
    expect(r.stdout).toContain('no drift');
    expect(r.code).toBe(0);
  });

  it('reports a module imported by a tool handler and a prompt module once', async () => {
    const p = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e-primitives'), 'check-reach');
    cleanups.push(p.cleanup);
    expect((await runMain(['generate'], p.dir)).code).toBe(0);
    write(p.dir, 'src/lib/shared.ts', 'export const shared = (n: number): string => n;\n');
    fs.appendFileSync(
      path.join(p.dir, 'src/handlers/touch_note.ts'),
      "import { shared } from '../lib/shared.js';\nexport const label = shared(1);\n",
    );
    fs.appendFileSync(
      path.join(p.dir, 'src/handlers/prompts/ask_first.ts'),
      "import { shared } from '../../lib/shared.js';\nexport const label = shared(2);\n",
    );
    const r = await runMain(['check', '--format', 'json'], p.dir);
    expect(r.code).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: { code: string; file: string; line: number }[] }).findings;
    expect(
      findings.map((f) => `${f.code} ${f.file}:${f.line}`),
      r.stdout,
    ).toEqual(['handler-contract src/lib/shared.ts:1']);
  });

  it("reports an error in a tool's handler once, with its tool, when a prompt module imports the handler too", async () => {
    const p = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e-primitives'), 'check-reach');
    cleanups.push(p.cleanup);
    expect((await runMain(['generate'], p.dir)).code).toBe(0);
    fs.appendFileSync(path.join(p.dir, 'src/handlers/touch_note.ts'), 'export const label: string = 1;\n');
    fs.appendFileSync(
      path.join(p.dir, 'src/handlers/prompts/ask_first.ts'),
      "import { label } from '../touch_note.js';\nexport const again = label;\n",
    );
    const r = await runMain(['check', '--format', 'json'], p.dir);
    expect(r.code).toBe(1);
    const findings = (
      JSON.parse(r.stdout) as { findings: { code: string; file: string; line: number; tool?: string }[] }
    ).findings;
    expect(
      findings.map((f) => `${f.code} ${f.file}:${f.line} ${f.tool ?? '-'}`),
      r.stdout,
    ).toEqual(['handler-contract src/handlers/touch_note.ts:8 touch_note']);
  });
});
