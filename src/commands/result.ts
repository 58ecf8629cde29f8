/**
 * What every command returns: what to print on stdout and stderr and the exit code. Commands never print; the
 * CLI (src/cli.ts) writes these out. Shared steps of several commands live here too: loading a spec with its
 * diagnostics, and the lint that validate, generate and check run beside their own work.
 */
import type { LintResult } from '../lint/lint.js';
import { countSummary, PLAIN, plural, type Style } from '../report/text.js';
import { renderTexts } from '../report/findings.js';
import type { CompileOptions, Compiled, LoadResult } from '../compile.js';

export { plural };

/** 0 fine · 1 drift found, lint fails (options.lint.failOn), diff finds a breaking change or a called tool fails · 2 invalid spec, config or usage · 3 internal error. */
export const EXIT = { ok: 0, drift: 1, lint: 1, failed: 1, invalid: 2, internal: 3 } as const;

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Exit 2 with `stderr` and nothing on stdout: a usage error, or a spec or project that cannot be used. */
export const invalid = (stderr: string): CommandResult => ({ code: EXIT.invalid, stdout: '', stderr });

/** The style of each stream (colour on terminals). */
export type Styles = Record<'out' | 'err', Style>;

export const PLAIN_STYLES: Styles = { out: PLAIN, err: PLAIN };

/** What the commands that load a spec take. */
export interface SpecInput {
  spec: string;
  /** No spec was named and none was found: where the search looked (src/core/discover.ts), for the message. */
  lookedIn?: string | undefined;
  cwd: string;
  style: Styles;
}

/** How the commands that report findings print them: for people, for machines, as GitHub annotations, as SARIF. */
export type ReportFormat = 'text' | 'json' | 'github' | 'sarif';

/** What the command prints in `format`: only the renderer of that format runs. */
export const byFormat = (format: ReportFormat, render: Record<ReportFormat, () => string>): string => render[format]();

/**
 * A spec compiled from the disk without a cache (compile.ts; with `stubs`, its files too), with its diagnostics as
 * text (code frames) for stderr when the format is text.
 */
export async function loadForCommand(
  { spec, cwd, lookedIn, style }: SpecInput,
  format: string,
  stubs?: CompileOptions['stubs'],
): Promise<{ result: Compiled; stderr: string; code: number }> {
  const { compile } = await import('../compile.js');
  const result = await compile(spec, { cwd, lookedIn, ...(stubs ? { stubs } : {}) });
  let stderr =
    format === 'text' && result.diagnostics.length
      ? `${renderTexts(result.diagnostics, style.err, result.sources)}\n\n`
      : '';
  if (result.model) return { result, stderr, code: EXIT.ok };
  if (format === 'text') {
    // (These commands write nothing whatever happens: the summary does not say "nothing was written", as generate's does.)
    stderr += `${countSummary(result.diagnostics)} in ${spec}${result.files.length > 1 ? ' and the files it includes' : ''}\n`;
  }
  return { result, stderr, code: EXIT.invalid };
}

/**
 * Lints a loaded spec beside validate, check and generate: findings for stderr (validate with code frames, the
 * others one line each, and `failing` after the summary when they reach options.lint.failOn), and whether they do.
 */
export async function lintBeside(
  result: LoadResult,
  format: string,
  frames: boolean,
  style: Style,
  failing = '',
): Promise<{ lint: LintResult; stderr: string }> {
  const api = await import('../lint/index.js');
  const lint = await api.lintLoaded({ ...result, model: result.model! });
  if (format !== 'text' || !lint.findings.length) return { lint, stderr: '' };
  const stderr = frames
    ? `${api.formatLintFindings(lint.findings, style, result.sources)}\n\n`
    : `${api.formatLintCompact(lint.findings, style)}\n${api.lintSummary(lint)}${lint.failed ? failing : ''}; \`toolspec lint\` shows hints and the token table\n`;
  return { lint, stderr };
}

/** "3 tools, 1 prompt, 2 resources": what a spec serves (prompts and resources when it has any). */
export function served(counts: { tools: number; prompts?: number; resources?: number }): string {
  return [
    plural(counts.tools, 'tool'),
    ...(counts.prompts ? [plural(counts.prompts, 'prompt')] : []),
    ...(counts.resources ? [plural(counts.resources, 'resource')] : []),
  ].join(', ');
}

/** The counts `served` takes, from a model. */
export const countsOf = (model: { tools: unknown[]; prompts: unknown[]; resources: unknown[] }) => ({
  tools: model.tools.length,
  prompts: model.prompts.length,
  resources: model.resources.length,
});
