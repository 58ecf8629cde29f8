/**
 * toolspec lint: one golden case per rule under test/fixtures/lint/<case>/ (toolspec.yaml → expected.txt, what
 * `toolspec lint` prints), each with tools the rule must fire for and tools it must leave alone; suppression,
 * severity, failOn, the token budget and table, lint options the spec schema rejects, positions in included files,
 * JSON (expected.json). Refresh with `npx vitest run test/lint.test.ts -u`, then read the diff. The built CLI is run
 * for exit codes, and for lint beside validate, generate and check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatLintCompact,
  formatLintReport,
  lintJson,
  lintLoaded,
  RULES,
  RULE_IDS,
  type LintFinding,
  type RuleId,
} from '../src/lint/index.js';
import { nameStyle, restyle } from '../src/lint/rules/names.js';
import { countSummary, PLAIN } from '../src/report/text.js';
import { renderTexts } from '../src/report/findings.js';
import { loadModel } from '../src/compile.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { scratchCopy } from './helpers/project.js';
import { tempProject } from './helpers/tmp.js';

const fixtures = path.join(repoRoot, 'test/fixtures/lint');
const cases = fs
  .readdirSync(fixtures)
  .filter((d) => fs.statSync(path.join(fixtures, d)).isDirectory())
  .sort();
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

/** Cases whose report includes the token table. */
const withTokens = (name: string) => name.startsWith('tokens-') || name === 'json-output';

async function lintCase(name: string) {
  const loaded = loadModel('toolspec.yaml', { cwd: path.join(fixtures, name) });
  if (!loaded.model) return { loaded, result: undefined };
  const result = await lintLoaded({ model: loaded.model, sources: loaded.sources }, { tokens: withTokens(name) });
  return { loaded, result };
}

/** Per rule case: the tools the rule reports, exactly; the fixture's other tools are the ones it must not report. */
const FIRES: Partial<Record<string, { rule: RuleId; tools: string[] }>> = {
  'missing-description': { rule: 'missing-description', tools: ['search_pages', 'list_pages'] },
  'vague-description': { rule: 'vague-description', tools: ['get_user', 'find_orders', 'user_profile'] },
  'missing-argument-description': { rule: 'missing-argument-description', tools: ['search_orders', 'place_order'] },
  'duplicate-description': { rule: 'duplicate-description', tools: ['find_notes', 'lookup_notes'] },
  'long-tool-name': {
    rule: 'long-tool-name',
    tools: ['search_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
  },
  'mixed-name-style': { rule: 'mixed-name-style', tools: ['getOrder', 'cancel-order', 'refund_orderItem'] },
  'destructive-not-marked': { rule: 'destructive-not-marked', tools: ['delete_file', 'remove_tag', 'dropTable'] },
  'conflicting-hints': { rule: 'conflicting-hints', tools: ['read_log'] },
  'open-input-schema': { rule: 'open-input-schema', tools: ['status', 'debug'] },
  'schema-refs-bundle': { rule: 'schema-refs', tools: ['get_weather', 'get_forecast'] },
  'schema-refs-inline': { rule: 'schema-refs', tools: ['list_folders'] },
  'legacy-execution': { rule: 'legacy-execution', tools: ['export_report'] },
  'output-wrapped-for-2025': { rule: 'output-wrapped-for-2025', tools: ['list_primes'] },
  'missing-primitive-description': { rule: 'missing-primitive-description', tools: ['summarise', 'index', 'note'] },
  'undescribed-template-variable': { rule: 'undescribed-template-variable', tools: ['note'] },
  'tokens-budget': { rule: 'token-budget', tools: ['(server)', 'get_report'] },
  'tool-search': { rule: 'tool-search', tools: ['(server)'] },
  clean: { rule: 'missing-description', tools: [] },
};

/** The tools a rule reported on (the first tool of each finding: the one it is about). */
const reported = (findings: readonly LintFinding[], rule: RuleId) => [
  ...new Set(findings.filter((f) => f.rule === rule).map((f) => f.tools[0] ?? '(server)')),
];

describe('toolspec lint: golden cases', () => {
  it('has a case for every rule', async () => {
    const covered = new Set([...Object.values(FIRES).map((c) => c!.rule), 'ignore-without-reason', 'unused-ignore']);
    expect(RULE_IDS.filter((id) => !covered.has(id))).toEqual([]);
  });

  for (const name of cases) {
    it(name, async () => {
      const { loaded, result } = await lintCase(name);
      const dir = path.join(fixtures, name);
      const text = result
        ? formatLintReport('toolspec.yaml', result, loaded.sources, PLAIN)
        : `${renderTexts(loaded.diagnostics, PLAIN, loaded.sources)}\n\n${countSummary(loaded.diagnostics)}\n`;
      await expect(text).toMatchFileSnapshot(path.join(dir, 'expected.txt'));
      if (name === 'json-output')
        await expect(lintJson('toolspec.yaml', result, loaded.diagnostics)).toMatchFileSnapshot(
          path.join(dir, 'expected.json'),
        );
      const fires = FIRES[name];
      if (fires) {
        expect(result, 'a rule case must be a valid spec').toBeDefined();
        const tools =
          fires.rule === 'schema-refs'
            ? result!.findings.filter((f) => f.rule === 'schema-refs').flatMap((f) => f.tools)
            : reported(result!.findings, fires.rule);
        expect(tools).toEqual(fires.tools);
      }
    });
  }
});

describe('rules', () => {
  it('a clean spec has no finding and passes', async () => {
    const { result } = await lintCase('clean');
    expect(result!.findings).toEqual([]);
    expect(result!.failed).toBe(false);
  });

  it('conflicting-hints is an error by default, every other rule but token-budget a warning', async () => {
    expect(RULES.filter((r) => r.severity === 'error').map((r) => r.id)).toEqual(['conflicting-hints', 'token-budget']);
  });

  it('names the argument, nested and in array items, and points at it', async () => {
    const { result } = await lintCase('missing-argument-description');
    expect(result!.findings.map((f) => `${f.line}:${f.column} ${f.message}`)).toEqual([
      '18:9 argument "query" of tool "search_orders" has no description',
      '23:13 argument "filters.tag" of tool "search_orders" has no description',
      '27:9 argument "region" of tool "search_orders" has no description',
      '41:15 argument "items[].sku" of tool "place_order" has no description',
    ]);
  });

  it('points into the included file a finding is about', async () => {
    const { result } = await lintCase('include-positions');
    expect(result!.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`)).toEqual([
      'tools/notes.yaml:7:9 missing-argument-description',
      'tools/notes.yaml:15:18 vague-description',
    ]);
  });

  it('without the files, points at the tool', async () => {
    const { loaded } = await lintCase('include-positions');
    const result = await lintLoaded({ model: loaded.model! });
    expect(result.findings.map((f) => `${f.file}:${f.line}:${f.column}`)).toEqual([
      'tools/notes.yaml:2:5',
      'tools/notes.yaml:14:5',
    ]);
  });

  it('tells name styles apart and renames into the server style', async () => {
    expect(
      [
        'list_orders',
        'cancel-order',
        'getOrder',
        'GetOrder',
        'GET_ORDER',
        'ping',
        'billing.send_invoice',
        'refund_orderItem',
      ].map(nameStyle),
    ).toEqual([
      'snake_case',
      'kebab-case',
      'camelCase',
      'PascalCase',
      'SCREAMING_SNAKE_CASE',
      'lower',
      'snake_case',
      'mixed',
    ]);
    expect(restyle('getHTTPStatus', 'snake_case')).toBe('get_http_status');
    expect(restyle('billing.send_invoice', 'camelCase')).toBe('billing.sendInvoice');
  });

  it('escapes control characters from the spec in its messages', async () => {
    const p = tempProject({
      'toolspec.yaml': `toolspec: 1\nserver: { name: s, version: 1.0.0 }\ntools:\n  - name: echo\n    description: "Echo\\e[2J."\n    inputSchema: { type: object, properties: { "a\\e[2J\\a": { type: string } }, additionalProperties: false }\n`,
    });
    cleanups.push(p.cleanup);
    const loaded = loadModel('toolspec.yaml', { cwd: p.dir });
    const result = await lintLoaded({ model: loaded.model!, sources: loaded.sources });
    const text = formatLintCompact(result.findings, PLAIN);
    expect(text).toContain('argument "a\\u001b[2J\\u0007" of tool "echo" has no description');
    expect(text).toContain('is too short (3 words): "Echo\\u001b[2J."');
    expect(text).not.toMatch(/[\0-\x08\x0b-\x1f\x7f]/);
  });

  it('does not change the model', async () => {
    const { loaded } = await lintCase('tokens-table');
    const before = structuredClone(loaded.model);
    await lintLoaded({ model: loaded.model!, sources: loaded.sources }, { tokens: true });
    expect(loaded.model).toEqual(before);
  });
});

describe('options.lint', () => {
  it('sets severities per rule, and fails on an error', async () => {
    const { result } = await lintCase('severity');
    expect(result!.findings.map((f) => `${f.rule} ${f.severity}`)).toEqual([
      'missing-description error',
      'conflicting-hints warning',
    ]);
    expect(result!.failed).toBe(true);
  });

  it('failOn: warning fails on a warning; never does not fail on an error', async () => {
    expect((await lintCase('fail-on-warning')).result).toMatchObject({ errors: 0, warnings: 1, failed: true });
    expect((await lintCase('fail-on-never')).result).toMatchObject({ errors: 1, failed: false });
  });

  it('ignore silences a rule for the tools it names, and reports entries without a reason or without effect', async () => {
    const { result } = await lintCase('suppression');
    const rules = result!.findings.map((f) => f.rule);
    // destructive-not-marked still fires for delete_note, but not for drop_draft (ignored with a reason).
    expect(reported(result!.findings, 'destructive-not-marked')).toEqual(['delete_note']);
    expect(reported(result!.findings, 'missing-description')).toEqual([]); // ignored without a reason: still silenced
    expect(rules.filter((r) => r === 'ignore-without-reason')).toHaveLength(1);
    expect(rules.filter((r) => r === 'unused-ignore')).toHaveLength(3);
    expect(result!.findings.find((f) => f.message.includes('serch_notes'))!.hint).toBe('did you mean "search_notes"?');
  });

  it('an unknown rule id or severity is an error of the spec, with "did you mean"', async () => {
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: path.join(fixtures, 'unknown-rule') });
    expect(model).toBeUndefined();
    expect(diagnostics.map((d) => `${d.code} ${d.message} ${d.hint ?? ''}`.trim())).toEqual([
      'TS006 unknown field "missing-descripton" in options.lint.rules did you mean "missing-description"?',
      'TS009 "options.lint.rules.long-tool-name" must be one of "off", "warning", "error", not "warn"',
    ]);
  });

  it('the spec schema lists exactly the rule ids (rules) and the ones a tool can ignore (ignore[].rule)', async () => {
    const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schema/toolspec.schema.json'), 'utf8'));
    const lintSchema = schema.definitions.lint;
    expect(Object.keys(lintSchema.properties.rules.properties)).toEqual([...RULE_IDS]);
    expect(lintSchema.properties.ignore.items.properties.rule.enum).toEqual(
      RULE_IDS.filter((id) => id !== 'ignore-without-reason' && id !== 'unused-ignore'),
    );
  });

  it('docs/commands/lint.md documents every rule', async () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'docs/commands/lint.md'), 'utf8');
    expect(RULE_IDS.filter((id) => !readme.includes(`\`${id}\``))).toEqual([]);
  });
});

describe('token budget', () => {
  it('counts each tool, sorts the largest first and sums them', async () => {
    const { result } = await lintCase('tokens-table');
    const t = result!.tokens!;
    expect(t.encoding).toBe('o200k_base');
    expect(t.tools.map((x) => x.name)).toEqual(['transfer_money', 'get_balance', 'list_accounts']);
    expect(t.tools.map((x) => x.tokens)).toEqual([...t.tools.map((x) => x.tokens)].sort((a, b) => b - a));
    expect(t.total).toBe(t.tools.reduce((n, x) => n + x.tokens, 0));
    // Inlining Money twice beats bundling it once here: the alternative differs only for the tool with refs.
    const [transfer, balance] = t.tools;
    expect(transfer!.alternative).not.toBe(transfer!.inputSchema);
    expect(balance!.alternative).toBe(balance!.inputSchema);
  });

  it('an overrun of the total or of a tool is an error, unless ignored for that tool', async () => {
    const { result } = await lintCase('tokens-budget');
    const budget = result!.findings.filter((f) => f.rule === 'token-budget');
    expect(budget.map((f) => `${f.severity} ${f.tools.join(',') || '(total)'}`)).toEqual([
      'error (total)',
      'error get_report',
    ]);
    // describe_everything is over too (the table says so) but ignored with a reason.
    expect(result!.tokens!.tools.find((t) => t.name === 'describe_everything')!.overBudget).toBeGreaterThan(0);
    expect(result!.failed).toBe(true);
  });

  it('counts with cl100k_base when the spec says so', async () => {
    const { loaded } = await lintCase('tokens-table');
    const model = {
      ...loaded.model!,
      options: { ...loaded.model!.options, lint: { ...loaded.model!.options.lint, encoding: 'cl100k_base' as const } },
    };
    const other = await lintLoaded({ model }, { tokens: true });
    expect(other.tokens!.encoding).toBe('cl100k_base');
    expect(other.tokens!.models).toBe('GPT-4 and GPT-3.5');
  });
});

describe('toolspec lint (built CLI)', () => {
  const run = (name: string, ...args: string[]) =>
    runMain(['lint', `test/fixtures/lint/${name}/toolspec.yaml`, ...args], repoRoot);

  it('exits 0 with warnings, 1 with errors, 2 on an invalid spec', async () => {
    const warn = await run('vague-description');
    expect(warn.code).toBe(0);
    expect(warn.stdout).toContain('test/fixtures/lint/vague-description/toolspec.yaml:8:18 warning vague-description');
    expect(warn.stdout.trimEnd().split('\n').at(-1)).toBe(
      'lint: 0 errors, 3 warnings — passes (options.lint.failOn: error)',
    );
    expect((await run('conflicting-hints')).code).toBe(1);
    expect((await run('tokens-budget')).code).toBe(1);
    const invalid = await run('unknown-rule');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('hint: did you mean "missing-description"?');
    expect(invalid.stdout).toBe('');
  });

  it('prints JSON with --format json, with the same exit codes', async () => {
    const ok = await run('json-output', '--format', 'json');
    expect(ok.code).toBe(0);
    const body = JSON.parse(ok.stdout);
    expect(body).toMatchObject({
      ok: true,
      valid: true,
      errors: 0,
      warnings: 1,
      tokens: { encoding: 'o200k_base', budget: { perTool: 60 } },
    });
    const invalid = await run('unknown-rule', '--format', 'json');
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      ok: false,
      valid: false,
      findings: [],
      tokens: null,
      diagnostics: [{ code: 'TS006' }, { code: 'TS009' }],
    });
    expect((await run('conflicting-hints', '--format', 'json')).code).toBe(1);
  });

  it('lists the rules with --rules', async () => {
    const r = await runMain(['lint', '--rules'], repoRoot);
    expect(r.code).toBe(0);
    for (const rule of RULES) expect(r.stdout).toMatch(new RegExp(`^  ${rule.id} +${rule.severity} +\\S`, 'm'));
  });

  it('lints the docs example: a token table of its 14 tools, the $ref note and its 2025-only execution field', async () => {
    const r = await runMain(['lint', 'specs/docs/toolspec.yaml'], repoRoot);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^specs\/docs\/\S+ (warning|error) \S+/gm)!.map((l) => l.split(' ')[2])).toEqual([
      'schema-refs',
      'legacy-execution',
    ]);
    expect(r.stdout).toMatch(/^ {2}tool +tokens +share +description +inputSchema +if bundled +change$/m);
    expect(r.stdout.match(/^ {2}[a-z_]+ +\d+ +\d+%/gm)).toHaveLength(15); // 14 tools and the total
  });
});

describe('lint beside validate, generate and check (built CLI)', () => {
  /** A project from a lint fixture, in the repository so that check's type checker finds node_modules. */
  const project = (name: string) => {
    const p = scratchCopy(path.join(fixtures, name), `lint-${name}`);
    cleanups.push(p.cleanup);
    return p.dir;
  };

  it('validate prints findings with code frames, and fails (exit 1) when they reach failOn', async () => {
    const warn = await runMain(['validate'], project('vague-description'));
    expect(warn.code).toBe(0);
    expect(warn.stdout).toBe('toolspec.yaml is valid: 7 tools in 1 file (3 warnings)\n');
    expect(warn.stderr).toContain(
      'toolspec.yaml:8:18 warning vague-description description of tool "get_user" only repeats its name',
    );
    expect(warn.stderr).toContain('  8 |     description: Gets the user.');
    const fail = await runMain(['validate', '--format', 'json'], project('severity'));
    expect(fail.code).toBe(1);
    expect(JSON.parse(fail.stdout)).toMatchObject({ valid: true, lint: { failed: true, errors: 1, warnings: 1 } });
  });

  it('generate prints warnings one per line and writes; a lint error fails it (exit 1) and nothing is written', async () => {
    const dir = project('vague-description');
    const warn = await runMain(['generate'], dir);
    expect(warn.code).toBe(0);
    expect(warn.stderr.split('\n')).toEqual([
      'toolspec.yaml:8:18 warning vague-description description of tool "get_user" only repeats its name: "Gets the user."',
      'toolspec.yaml:11:18 warning vague-description description of tool "find_orders" is too short (3 words): "Finds open orders."',
      'toolspec.yaml:14:18 warning vague-description description of tool "user_profile" does not say what the tool does (no verb): "The profile of the current user with name, email address …"',
      'lint: 0 errors, 3 warnings — passes (options.lint.failOn: error); `toolspec lint` shows hints and the token table',
      '',
    ]);
    expect(fs.existsSync(path.join(dir, 'src/generated/manifest.json'))).toBe(true);

    const failing = project('severity');
    const fail = await runMain(['generate'], failing);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain(
      'lint: 1 error, 1 warning — fails (options.lint.failOn: error); nothing was written;',
    );
    expect(fs.existsSync(path.join(failing, 'src'))).toBe(false);
    expect(JSON.parse((await runMain(['generate', '--format', 'json'], failing)).stdout)).toMatchObject({
      ok: false,
      lint: { failed: true },
    });
  });

  it('check fails (exit 1) on a lint error with no drift, in every format', async () => {
    const dir = project('fail-on-never');
    expect((await runMain(['generate'], dir)).code).toBe(0);
    // Raise the bar after generating: the drift check loads the changed spec and lints it.
    const spec = path.join(dir, 'toolspec.yaml');
    fs.writeFileSync(spec, fs.readFileSync(spec, 'utf8').replace('lint: { failOn: never }', 'lint: { failOn: error }'));
    const text = await runMain(['check'], dir);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(
      'toolspec.yaml:9:40 error conflicting-hints tool "read_log" is marked both readOnlyHint: true and destructiveHint: true',
    );
    const json = await runMain(['check', '--format', 'json'], dir);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      lint: { failed: true, findings: [{ code: 'conflicting-hints' }] },
    });
    const github = await runMain(['check', '--format', 'github'], dir);
    expect(github.code).toBe(1);
    expect(github.stdout).toMatch(
      /^::error file=toolspec\.yaml,line=9,col=40,title=toolspec lint%3A conflicting-hints::tool "read_log"/m,
    );
  });
});

describe('many warnings beside generate', () => {
  it('past 20, generate sums warnings up by rule and lint lists every one', async () => {
    const tools = Array.from(
      { length: 25 },
      (_, i) => `  - name: tool_${i}\n    inputSchema: { type: object, additionalProperties: false }\n`,
    ).join('');
    const p = tempProject({ 'toolspec.yaml': `toolspec: 1\nserver: { name: s, version: 1.0.0 }\ntools:\n${tools}` });
    cleanups.push(p.cleanup);
    const generate = await runMain(['generate'], p.dir);
    expect(generate.code).toBe(0);
    expect(generate.stderr).toContain('25 lint warnings by rule (`toolspec lint` lists every one):');
    expect(generate.stderr).toMatch(/^ {2}missing-description {2}\s+25 warnings, first at toolspec\.yaml:4:11$/m);
    expect(generate.stderr.match(/warning missing-description/g)).toBeNull();
    const all = await runMain(['lint'], p.dir);
    expect(all.stdout.match(/warning missing-description/g)).toHaveLength(25);
  });
});
