/** The lint stage's public API: lint a loaded spec, and print the result. */
export { lintLoaded, RULES, ruleSummary, type LintResult } from './lint.js';
export {
  asFinding,
  formatLintCompact,
  formatLintFindings,
  formatLintGithub,
  formatLintReport,
  formatRules,
  lintJson,
  lintResultJson,
  lintSummary,
  withLint,
} from './report.js';
export { RULE_IDS, type LintFinding, type RuleId } from './types.js';
