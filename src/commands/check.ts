/**
 * `toolspec check`, the drift check: load the spec, regenerate in memory and compare with the disk, then hold every
 * handler to its contract; changes nothing in the project and reads no cache.
 */
import { asFinding, formatFindingsGithub, formatFindingsJson, formatFindingsText } from '../check/report.js';
import { renderGithub, renderJson } from '../report/findings.js';
import { formatLintGithub, withLint, asFinding as lintFinding, ruleSummary } from '../lint/index.js';
import { renderSarif } from '../report/sarif.js';
import { EXIT, lintBeside, loadForCommand, countsOf, served } from './result.js';
import type { CommandResult, ReportFormat, SpecInput } from './result.js';

/** `diff`: show a diff for each stale file. */
export async function checkCommand(input: SpecInput & { format: ReportFormat; diff: boolean }): Promise<CommandResult> {
  const { spec, cwd, format, style } = input;
  // Every file the spec generates, no stub: the handlers that are there are checked, missing ones reported.
  const loaded = await loadForCommand(input, format === 'text' ? 'text' : 'json', () => false);
  const { result } = loaded;
  if (!result.model) {
    let stdout = '';
    if (format === 'json')
      stdout = `${JSON.stringify({ ok: false, spec, findings: [], diagnostics: result.diagnostics.map(renderJson) }, null, 2)}\n`;
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    if (format === 'github') stdout = errors.length ? `${renderGithub(errors, 'toolspec check')}\n` : '';
    if (format === 'sarif') stdout = renderSarif(errors, 'toolspec check');
    return { code: loaded.code, stdout, stderr: loaded.stderr };
  }
  const { checkProject } = await import('../check/check.js');
  const { lint, stderr } = await lintBeside(result, format, false, style.err);
  const findings = await checkProject(result.model, result.output!, cwd);
  const reported = () => [...lint.findings.map(lintFinding), ...findings.map(asFinding)];
  let stdout: string;
  if (format === 'json') stdout = withLint(formatFindingsJson(findings, spec), lint);
  else if (format === 'sarif') stdout = renderSarif(reported(), 'toolspec check', ruleSummary);
  else if (format === 'github')
    stdout = (lint.findings.length ? `${formatLintGithub(lint.findings)}\n` : '') + formatFindingsGithub(findings);
  else if (!findings.length)
    stdout = `${spec}: no drift — generated files, handlers and spec agree (${served(countsOf(result.model))})\n`;
  else stdout = formatFindingsText(findings, style.out, { diff: input.diff });
  return { code: findings.length || lint.failed ? EXIT.drift : EXIT.ok, stdout, stderr: loaded.stderr + stderr };
}
