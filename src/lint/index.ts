/** The lint stage's public API: lint a loaded spec, and print the result. */
import type { SourceFile } from '../pipeline/load/source.js';
import type { ServerModel } from '../pipeline/model.js';
import { lint, type LintResult } from './lint.js';
import { RULES } from './rules/index.js';
import { sourceLocator } from './positions.js';

export { lint, type LintResult } from './lint.js';
export { RULES } from './rules/index.js';

/** A lint rule's one-line summary, for a report that lists the rules it names (SARIF). */
export const ruleSummary = (id: string): string | undefined => RULES.find((r) => r.id === id)?.summary;
export {
  asFinding,
  formatLintCompact,
  formatLintFindings,
  formatLintGithub,
  formatLintReport,
  formatRules,
  formatTokenTable,
  lintJson,
  lintResultJson,
  lintSummary,
  withLint,
} from './report.js';
export type { TokenReport } from './tokens.js';
export { RULE_IDS, type LintFinding, type RuleId } from './types.js';

/** Lints what loadModel returned, with positions from the files it read. */
export function lintLoaded(
  loaded: { model: ServerModel; sources: ReadonlyMap<string, string>; parsed?: ReadonlyMap<string, SourceFile> },
  opts: { tokens?: boolean } = {},
): Promise<LintResult> {
  return lint(loaded.model, {
    locator: sourceLocator(loaded.model, loaded.sources, loaded.parsed),
    tokens: opts.tokens ?? false,
  });
}
