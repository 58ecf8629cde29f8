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

  it('in SARIF 2.1.0: one result per finding of the JSON, with its rule, level and place', async () => {
    type Sarif = {
      version: string;
      runs: {
        tool: {
          driver: { name: string; version: string; rules: { id: string; shortDescription?: { text: string } }[] };
        };
        properties: { command: string };
        results: {
          ruleId: string;
          ruleIndex: number;
          level: string;
          message: { text: string };
          locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: Record<string, number> } }[];
        }[];
      }[];
    };
    const LEVEL: Record<string, string> = { error: 'error', warning: 'warning', notice: 'note' };
    /** The SARIF of `args` and the findings of the same command's --format json (`key`: its list). */
    const both = async (args: string[], dir: string, key: string) => {
      const sarif = await runMain([...args, '--format', 'sarif'], dir);
      const json = await runMain([...args, '--format', 'json'], dir);
      expect(sarif.code, sarif.stderr).toBe(json.code);
      const items = (JSON.parse(json.stdout) as Record<string, Record<string, unknown>[]>)[key]!;
      return { log: JSON.parse(sarif.stdout) as Sarif, items };
    };
    const invalid = project({ 'toolspec.yaml': SPEC.replace('type: integer', 'type: intger') });
    const dir = project({ 'toolspec.yaml': SPEC, 'old.yaml': SPEC.replace('maximum: 50', 'maximum: 100') });
    const runs = {
      validate: await both(['validate'], invalid, 'diagnostics'),
      lint: await both(['lint'], dir, 'findings'),
      diff: await both(['diff', 'old.yaml', 'toolspec.yaml'], dir, 'changes'),
    };
    for (const [command, { log, items }] of Object.entries(runs)) {
      expect(log.version).toBe('2.1.0');
      const [run] = log.runs;
      expect(run!.tool.driver.name).toBe('toolspec');
      expect(run!.properties.command).toBe(`toolspec ${command}`);
      expect(run!.results.length, command).toBe(items.length);
      expect(items.length, command).toBeGreaterThan(0);
      run!.results.forEach((r, i) => {
        const item = items[i]!;
        expect(r.ruleId).toBe(item['code']);
        expect(run!.tool.driver.rules[r.ruleIndex]!.id).toBe(r.ruleId);
        expect(r.level).toBe(LEVEL[item['severity'] as string]);
        expect(r.message.text.startsWith(item['message'] as string)).toBe(true);
        const place = r.locations![0]!.physicalLocation;
        expect(place.artifactLocation.uri).toBe(item['file']);
        expect(place.region).toMatchObject({ startLine: item['line'], startColumn: item['column'] });
      });
    }
    // Lint's rules are described by their summaries.
    expect(runs.lint.log.runs[0]!.tool.driver.rules.every((r) => r.shortDescription?.text)).toBe(true);
    // check: its drift beside lint's findings, exit 1 as ever.
    await runMain(['generate'], dir);
    fs.rmSync(path.join(dir, 'src/handlers/x.ts'));
    const check = await runMain(['check', '--format', 'sarif'], dir);
    expect(check.code).toBe(1);
    const missing = (JSON.parse(check.stdout) as Sarif).runs[0]!.results.find((r) => r.ruleId === 'missing-handler');
    expect(missing).toMatchObject({
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'src/handlers/x.ts' } } }],
    });
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
