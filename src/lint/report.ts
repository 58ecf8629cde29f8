/** Lint results for people (findings with code frames, the token table), for machines (JSON) and for GitHub. */
import type { Diagnostic } from '../core/diagnostics.js';
import { renderGithub, renderJson, renderText, renderTexts, type Finding } from '../report/findings.js';
import { PLAIN, plural, visible, type Style } from '../report/text.js';
import { RULES, type LintResult } from './lint.js';
import type { TokenReport } from './tokens.js';
import type { LintFinding } from './types.js';

/** Findings as validate prints diagnostics: file:line:col, severity, rule id, message, code frame, hint. */
export function formatLintFindings(
  findings: readonly LintFinding[],
  style: Style,
  sources: ReadonlyMap<string, string>,
): string {
  return renderTexts(findings.map(asFinding), style, sources);
}

/** Past this many, the commands that lint on the side sum warnings up by rule. */
export const LINT_BRIEF_MAX = 20;

/**
 * One line per finding, for the commands that lint on the side (generate, check). Past LINT_BRIEF_MAX findings,
 * errors are still listed one by one and warnings are summed up by rule, with where each rule fires first: a
 * 500-tool spec does not bury the run's own output under hundreds of lines on every generate.
 */
export function formatLintCompact(findings: readonly LintFinding[], style: Style): string {
  const line = (f: LintFinding) => renderText(asFinding(f), style, { compact: true });
  if (findings.length <= LINT_BRIEF_MAX) return findings.map(line).join('\n');
  const errors = findings.filter((f) => f.severity === 'error');
  const byRule = new Map<string, LintFinding[]>();
  for (const f of findings) if (f.severity !== 'error') byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
  const width = Math.max(...[...byRule.keys()].map((r) => r.length));
  const summary = [...byRule].map(
    ([rule, list]) =>
      `  ${style.dim(rule.padEnd(width))}  ${style.yellow(String(list.length).padStart(4))} ${list.length === 1 ? 'warning' : 'warnings'}, first at ${visible(`${list[0]!.file}:${list[0]!.line}:${list[0]!.column}`)}`,
  );
  return [
    ...errors.map(line),
    `${findings.length - errors.length} lint warnings by rule (\`toolspec lint\` lists every one):`,
    ...summary,
  ].join('\n');
}

/** "lint: 1 error, 2 warnings — fails (options.lint.failOn: error)". */
export function lintSummary(result: LintResult): string {
  const verdict = result.failed ? 'fails' : 'passes';
  return `lint: ${plural(result.errors, 'error')}, ${plural(result.warnings, 'warning')} — ${verdict} (options.lint.failOn: ${result.failOn})`;
}

function formatTokenTable(report: TokenReport, style: Style): string {
  const perTool = report.budget.perTool;
  const pct = (n: number) => `${report.total ? Math.round((n / report.total) * 100) : 0}%`;
  const alt = report.alternativeRefs === 'inline' ? 'if inlined' : 'if bundled';
  const change = (now: number, other: number) => (now === other ? ['-', ''] : [String(other), signed(other - now)]);
  const sum = (key: 'description' | 'inputSchema' | 'alternative') => report.tools.reduce((n, t) => n + t[key], 0);
  // The last row sums the tools up.
  const sums = {
    name: 'total',
    tokens: report.total,
    description: sum('description'),
    inputSchema: sum('inputSchema'),
    alternative: sum('alternative'),
    overBudget: 0,
  };
  const [head, ...rows] = table(
    [
      ['tool', 'tokens', 'share', 'description', 'inputSchema', alt, 'change', ...(perTool ? ['over budget'] : [])],
      ...[...report.tools, sums].map((t) => [
        t.name,
        String(t.tokens),
        t === sums ? '100%' : pct(t.tokens),
        String(t.description),
        String(t.inputSchema),
        ...change(t.inputSchema, t.alternative),
        ...(perTool ? [t.overBudget ? `+${t.overBudget}` : ''] : []),
      ]),
    ],
    (c) => c > 0,
  );
  const totalRow = rows.pop()!;
  const out = [
    `${style.bold('Tokens')} a model reads of each tool: ${report.counted.join(', ')}, as compact JSON.`,
    `Counted with ${report.encoding} (${report.models}); other models count differently, so take them as an estimate.`,
    '',
    style.dim(head!),
    ...rows,
    style.bold(totalRow),
    '',
  ];
  const saved = report.total - report.alternativeTotal;
  out.push(
    saved === 0
      ? `options.refs: ${report.refs}; no schema changes with options.refs: ${report.alternativeRefs}.`
      : `options.refs: ${report.refs}; with options.refs: ${report.alternativeRefs} the tools would take ${report.alternativeTotal} tokens (${signed(-saved)}, ${signed(Math.round((-saved / report.total) * 1000) / 10)}%).`,
  );
  const { total } = report.budget;
  if (total || perTool) {
    const over = report.tools.filter((t) => t.overBudget).length;
    const parts = [];
    if (total)
      parts.push(
        `${report.total} of ${total} tokens in all${report.total > total ? ` (over by ${report.total - total})` : ''}`,
      );
    if (perTool) parts.push(`${perTool} per tool${over ? ` (${plural(over, 'tool')} over)` : ''}`);
    out.push(`Budget (options.lint.budget): ${parts.join('; ')}.`);
  } else {
    out.push('No budget: set options.lint.budget.total and .perTool to fail when the tools outgrow them.');
  }
  out.push(
    `The whole tools/list result, with titles, output schemas, annotations and icons, is ${report.payload} tokens.`,
  );
  const items = [...(report.prompts ?? []), ...(report.resources ?? [])];
  if (items.length) {
    const [head, ...rows] = table(
      [['kind', 'name', 'tokens'], ...items.map((i) => [i.kind, i.name, String(i.tokens)])],
      (c) => c === 2,
    );
    out.push(
      '',
      `${style.bold('Prompts and resources')}, apart from the tools (not in the budget): clients show them to the user, and a model reads one when it is used. Each list entry as compact JSON.`,
      '',
      style.dim(head!),
      ...rows,
    );
  }
  return out.join('\n');
}

/** Rows as columns, two spaces in front and between, the columns `right` names aligned right. */
function table(rows: string[][], right: (column: number) => boolean): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    `  ${r.map((cell, c) => (right(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ')}`.trimEnd(),
  );
}

/** `toolspec lint --format json`. */
export function lintJson(spec: string, result: LintResult | undefined, diagnostics: readonly Diagnostic[]): string {
  const body = {
    ok: result ? !result.failed : false,
    valid: result !== undefined,
    spec,
    ...(result && { failOn: result.failOn, errors: result.errors, warnings: result.warnings }),
    findings: result ? result.findings.map((f) => renderJson(asFinding(f))) : [],
    tokens: result?.tokens ?? null,
    diagnostics: diagnostics.map(renderJson),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** check's JSON report with the lint result beside the drift findings; `ok` only when both pass. */
export function withLint(json: string, result: LintResult): string {
  const body = JSON.parse(json) as Record<string, unknown>;
  return `${JSON.stringify({ ...body, ok: body['ok'] === true && !result.failed, lint: lintResultJson(result) }, null, 2)}\n`;
}

/** A lint result as check's and validate's JSON hold it: findings in the shape every command reports. */
export function lintResultJson(result: LintResult): Record<string, unknown> {
  return { ...result, findings: result.findings.map((f) => renderJson(asFinding(f))) };
}

/** `toolspec lint`: the findings with code frames, the token table, and the verdict. */
export function formatLintReport(
  spec: string,
  result: LintResult,
  sources: ReadonlyMap<string, string>,
  style: Style,
): string {
  const parts: string[] = [];
  if (result.findings.length) parts.push(formatLintFindings(result.findings, style, sources));
  if (result.tokens) parts.push(formatTokenTable(result.tokens, style));
  parts.push(result.findings.length ? lintSummary(result) : `${spec}: no lint findings`);
  return `${parts.join('\n\n')}\n`;
}

/** `toolspec lint --rules`. */
export function formatRules(style: Style = PLAIN): string {
  const width = Math.max(...RULES.map((r) => r.id.length));
  const lines = RULES.map(
    (r) =>
      `  ${r.id.padEnd(width)}  ${(r.severity === 'error' ? style.red : style.yellow)(r.severity.padEnd(7))}  ${r.summary}`,
  );
  return `${style.bold('Lint rules')} (id, default severity, what it finds); set them in options.lint.rules: { <id>: off | warning | error }\n\n${lines.join('\n')}\n`;
}

/** GitHub workflow commands: findings show on the pull request's lines. */
export function formatLintGithub(findings: readonly LintFinding[]): string {
  return renderGithub(findings.map(asFinding), 'toolspec lint');
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/** A lint finding as every command reports one: the rule id is its code. */
export function asFinding(f: LintFinding): Finding {
  const { rule, tools, ...rest } = f;
  return { ...rest, code: rule, data: { tools } };
}
