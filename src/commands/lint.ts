/** `toolspec lint`: the lint rules over the spec and the token table (rules and budget: options.lint). */
import { renderGithub } from '../report/findings.js';
import * as api from '../lint/index.js';
import { renderSarif } from '../report/sarif.js';
import { byFormat, EXIT, loadForCommand } from './result.js';
import type { CommandResult, ReportFormat, SpecInput } from './result.js';

/** With `rules`, the list of the rules instead. */
export async function lintCommand(input: SpecInput & { format: ReportFormat; rules: boolean }): Promise<CommandResult> {
  if (input.rules) return { code: EXIT.ok, stdout: api.formatRules(input.style.out), stderr: '' };
  const { result, stderr, code } = await loadForCommand(input, input.format);
  if (!result.model) {
    const stdout = byFormat(input.format, {
      json: () => api.lintJson(input.spec, undefined, result.diagnostics),
      github: () => `${renderGithub(result.diagnostics, 'toolspec lint')}\n`,
      sarif: () => renderSarif(result.diagnostics, 'toolspec lint'),
      text: () => '',
    });
    return { code, stdout, stderr };
  }
  const lint = await api.lintLoaded({ ...result, model: result.model }, { tokens: true });
  const stdout = byFormat(input.format, {
    json: () => api.lintJson(input.spec, lint, result.diagnostics),
    github: () => (lint.findings.length ? `${api.formatLintGithub(lint.findings)}\n` : ''),
    sarif: () => renderSarif(lint.findings.map(api.asFinding), 'toolspec lint', api.ruleSummary),
    text: () => api.formatLintReport(input.spec, lint, result.sources, input.style.out),
  });
  return { code: lint.failed ? EXIT.lint : EXIT.ok, stdout, stderr };
}
