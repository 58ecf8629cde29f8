/**
 * `toolspec check`, the drift check: regenerate in memory and compare with the disk, then hold every handler to
 * its contract; changes nothing in the project. When the local cache proves the generated files current, only the
 * handlers are read.
 */
import path from 'node:path';
import type { Finding } from '../check/findings.js';
import { formatFindingsGithub, formatFindingsJson, formatFindingsText } from '../check/report.js';
import { renderGithub, renderJson } from '../findings.js';
import { CheckWorker } from '../check/parallel.js';
import { verifiedState } from '../state.js';
import {
  EXIT,
  lintBeside,
  loadForCommand,
  openPieces,
  plural,
  PLAIN_STYLES,
  type CommandResult,
  type Styles,
} from './result.js';

export interface CheckInput {
  spec: string;
  /** No spec was named and none was found: where the search looked (src/discover.ts), for the message. */
  lookedIn?: string | undefined;
  cwd: string;
  format: 'text' | 'json' | 'github';
  /** Show a diff for each stale file. */
  diff: boolean;
  style?: Styles;
}

type Report = (
  findings: Finding[],
  tools: number,
  stderr?: string,
  lintFailed?: boolean,
  addLint?: (json: string) => string,
) => CommandResult;

export async function checkCommand(input: CheckInput): Promise<CommandResult> {
  const { spec, cwd, format } = input;
  const style = input.style ?? PLAIN_STYLES;
  const specPath = path.resolve(cwd, spec);
  const report: Report = (
    findings: Finding[],
    tools: number,
    stderr = '',
    lintFailed = false,
    addLint = (json: string) => json,
  ): CommandResult => {
    const code = findings.length || lintFailed ? EXIT.drift : EXIT.ok;
    let stdout: string;
    if (format === 'json') stdout = addLint(formatFindingsJson(findings, spec));
    else if (format === 'github') stdout = findings.length ? formatFindingsGithub(findings) : '';
    else if (!findings.length)
      stdout = `${spec}: no drift — generated files, handlers and spec agree (${plural(tools, 'tool')})\n`;
    else stdout = formatFindingsText(findings, style.out, { diff: input.diff });
    return { code, stdout, stderr };
  };

  const state = verifiedState(specPath);
  if (state) {
    const { checkHandlers } = await import('../check/handlers.js');
    return report(await checkHandlers(state, cwd, undefined, specPath), state.tools.length);
  }
  // No cache: the type checker starts on its declarations in a worker while the spec loads (check/parallel.ts).
  const worker = CheckWorker.start(path.dirname(specPath));
  try {
    return await fullCheck(input, report, worker);
  } finally {
    await worker?.close();
  }
}

async function fullCheck(input: CheckInput, report: Report, worker: CheckWorker | undefined): Promise<CommandResult> {
  const { spec, cwd, format } = input;
  const style = input.style ?? PLAIN_STYLES;
  const specPath = path.resolve(cwd, spec);
  // The pieces kept by earlier runs (verdicts, each tool's types) serve the load and the regeneration in memory.
  const pieces = await openPieces(spec, cwd);
  const loaded = await loadForCommand(
    spec,
    cwd,
    format === 'text' ? 'text' : 'json',
    style.err,
    input.lookedIn,
    pieces,
  );
  const { result } = loaded;
  if (!result.model) {
    pieces.save();
    let stdout = '';
    if (format === 'json')
      stdout = `${JSON.stringify({ ok: false, spec, findings: [], diagnostics: result.diagnostics.map(renderJson) }, null, 2)}\n`;
    if (format === 'github') {
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      stdout = errors.length ? `${renderGithub(errors, 'toolspec check')}\n` : '';
    }
    return { code: loaded.code, stdout, stderr: loaded.stderr };
  }
  const { checkProject } = await import('../check/check.js');
  const { lint, stderr } = await lintBeside(result, format, false, style.err);
  const { formatLintGithub, withLint } = await import('../lint/index.js');
  const lintLines = format === 'github' && lint.findings.length ? `${formatLintGithub(lint.findings)}\n` : '';
  // A spec that fails lint is never cached as proven: the next check must lint it again.
  const proven = lint.failed ? undefined : result.inputs;
  const findings = await checkProject(result.model, result.validators!, cwd, proven, specPath, worker, pieces);
  pieces.save();
  const r = report(findings, result.model.tools.length, loaded.stderr + stderr, lint.failed, (json) =>
    withLint(json, lint),
  );
  return { ...r, stdout: lintLines + r.stdout };
}
