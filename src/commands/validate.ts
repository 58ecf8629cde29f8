/** `toolspec validate`: load and check the spec, lint it, and say so; prints every problem at once. */
import { renderGithub, renderJson } from '../report/findings.js';
import * as api from '../lint/index.js';
import { renderSarif } from '../report/sarif.js';
import { EXIT, lintBeside, loadForCommand, countsOf, plural, served } from './result.js';
import type { CommandResult, ReportFormat, SpecInput } from './result.js';

export async function validateCommand(input: SpecInput & { format: ReportFormat }): Promise<CommandResult> {
  const { spec, format } = input;
  const loaded = await loadForCommand(input, format);
  const { result } = loaded;
  const valid = result.model !== undefined;
  const beside = valid ? await lintBeside(result, format, true, input.style.err) : undefined;
  const lint = beside?.lint;
  const stderr = loaded.stderr + (beside?.stderr ?? '');
  const code = lint?.failed ? EXIT.lint : loaded.code;
  let stdout = '';
  if (format === 'sarif') {
    const all = [...result.diagnostics, ...(lint?.findings ?? []).map(api.asFinding)];
    stdout = renderSarif(all, 'toolspec validate', api.ruleSummary);
  } else if (format === 'github') {
    const lines = [
      ...(result.diagnostics.length ? [renderGithub(result.diagnostics, 'toolspec validate')] : []),
      ...(lint?.findings.length ? [api.formatLintGithub(lint.findings)] : []),
    ];
    stdout = lines.length ? `${lines.join('\n')}\n` : '';
  } else if (format === 'json') {
    // `ok` as every command's JSON says it (true when the exit code is 0); `valid` kept for scripts that read it.
    stdout = `${JSON.stringify({ ok: code === EXIT.ok, valid, spec, ...(result.model ? countsOf(result.model) : { tools: null }), diagnostics: result.diagnostics.map(renderJson), lint: lint ? api.lintResultJson(lint) : null }, null, 2)}\n`;
  } else if (lint?.failed) {
    stdout = `${spec} is valid, but ${api.lintSummary(lint)}\n`;
  } else if (valid) {
    const counts = [
      plural(lint?.errors ?? 0, 'lint error'),
      plural(result.diagnostics.length + (lint?.warnings ?? 0), 'warning'),
    ].filter((c) => !c.startsWith('0 '));
    const warn = counts.length ? ` (${counts.join(', ')})` : '';
    stdout = `${spec} is valid: ${served(countsOf(result.model!))} in ${plural(result.files.length, 'file')}${warn}\n`;
  }
  return { code, stdout, stderr };
}
