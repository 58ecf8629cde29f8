/**
 * One finding type for every command: validate's diagnostics, lint's findings, check's drift and diff's changes
 * come out of `--format json` as items of one shape and out of `--format github` as annotations of one form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const SPEC = `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: get_item
    description: Get one item by its id.
    inputSchema:
      type: object
      properties: { id: { type: integer, maximum: 50 } }
      required: [id]
  - name: x
    inputSchema: { type: object }
`;

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

function project(files: Record<string, string>): string {
  const p = tempProject(files);
  cleanups.push(p.cleanup);
  return p.dir;
}

const COMMON = ['code', 'severity', 'file', 'line', 'column'];

describe('every command reports one finding shape', () => {
  it('in JSON: code, severity, place and message first, whatever the command', async () => {
    const invalid = project({ 'toolspec.yaml': SPEC.replace('type: integer', 'type: intger') });
    const validate = JSON.parse((await runMain(['validate', '--format', 'json'], invalid)).stdout) as {
      diagnostics: Record<string, unknown>[];
    };
    const dir = project({ 'toolspec.yaml': SPEC, 'old.yaml': SPEC.replace('maximum: 50', 'maximum: 100') });
    const lint = JSON.parse((await runMain(['lint', '--format', 'json'], dir)).stdout) as {
      findings: Record<string, unknown>[];
    };
    const diff = JSON.parse((await runMain(['diff', 'old.yaml', 'toolspec.yaml', '--format', 'json'], dir)).stdout) as {
      changes: Record<string, unknown>[];
    };
    await runMain(['generate'], dir);
    fs.rmSync(path.join(dir, 'src/handlers/x.ts'));
    const check = JSON.parse((await runMain(['check', '--format', 'json'], dir)).stdout) as {
      findings: Record<string, unknown>[];
    };
    const items = { validate: validate.diagnostics, lint: lint.findings, diff: diff.changes, check: check.findings };
    for (const [command, list] of Object.entries(items)) {
      expect(list.length, command).toBeGreaterThan(0);
      for (const item of list) {
        expect(Object.keys(item).slice(0, COMMON.length), command).toEqual(COMMON);
        expect(item['message'], command).toEqual(expect.any(String));
      }
    }
    expect(items.diff[0]).toMatchObject({ code: 'BOUNDS_TIGHTENED', severity: 'error', class: 'breaking' });
  });

  it('on GitHub: one annotation per finding, titled with the command and the code', async () => {
    const dir = project({ 'toolspec.yaml': SPEC, 'old.yaml': SPEC.replace('maximum: 50', 'maximum: 100') });
    const lint = await runMain(['lint', '--format', 'github'], dir);
    expect(lint.stdout).toMatch(/^::warning file=toolspec\.yaml,line=\d+,col=\d+,title=toolspec lint%3A [a-z-]+::/m);
    const diff = await runMain(['diff', 'old.yaml', 'toolspec.yaml', '--format', 'github'], dir);
    expect(diff.stdout).toMatch(
      /^::error file=toolspec\.yaml,line=8,col=\d+,title=toolspec diff%3A BOUNDS_TIGHTENED::/m,
    );
    await runMain(['generate'], dir);
    // A handler gone is drift.
    fs.rmSync(path.join(dir, 'src/handlers/x.ts'));
    const check = await runMain(['check', '--format', 'github'], dir);
    expect(check.stdout).toMatch(
      /^::error file=src\/handlers\/x\.ts,line=1,col=1,title=toolspec check%3A missing-handler::.*%0Ahint: /m,
    );
  });
});
