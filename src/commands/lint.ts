/** `toolspec lint`: the lint rules over the spec and the token table (rules and budget: options.lint). */
import { renderGithub } from '../report/findings.js';
import * as api from '../lint/index.js';
import { renderSarif } from '../report/sarif.js';
import { byFormat, EXIT, loadForCommand } from './result.js';
import type { CommandResult, ReportFormat, SpecInput } from './result.js';

/** With `rules`, the list of the rules instead. An invalid spec: its diagnostics, where a valid one has findings. */
export async function lintCommand(input: SpecInput & { format: ReportFormat; rules: boolean }): Promise<CommandResult> {
  if (input.rules) return { code: EXIT.ok, stdout: api.formatRules(input.style.out), stderr: '' };
  const { format, spec } = input;
  const { result, stderr, code } = await loadForCommand(input, format);
  const lint = result.model && (await api.lintLoaded({ ...result, model: result.model }, { tokens: true }));
  const reported = lint ? lint.findings.map(api.asFinding) : result.diagnostics;
  const stdout = byFormat(format, {
    json: () => api.lintJson(spec, lint, result.diagnostics),
    github: () => (reported.length ? `${renderGithub(reported, 'toolspec lint')}\n` : ''),
    sarif: () => renderSarif(reported, 'toolspec lint', api.ruleSummary),
    text: () => (lint ? api.formatLintReport(spec, lint, result.sources, input.style.out) : ''),
  });
  return { code: lint?.failed ? EXIT.lint : code, stdout, stderr };
}
