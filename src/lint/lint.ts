/**
 * lintLoaded(loaded): every rule over the ServerModel, at the severities the spec's options give them, minus what the
 * spec's suppressions silence, plus the token count when asked for or when the spec sets a budget. Pure but for
 * loading the tokenizer.
 */
import { sortByPlace } from '../core/diagnostics.js';
import type { SourceFile } from '../pipeline/load/source.js';
import type { ServerModel } from '../pipeline/model.js';
import * as config from './config.js';
import { sourceLocator } from './positions.js';
import * as annotations from './rules/annotations.js';
import * as descriptions from './rules/descriptions.js';
import * as names from './rules/names.js';
import * as schemas from './rules/schemas.js';
import * as tokenCount from './tokens.js';
import { RULE_IDS, type LintFinding, type RawFinding, type Rule, type RuleContext, type RuleId } from './types.js';

/** Every lint rule: what the rule modules export with a rule's id, in the order of RULE_IDS. */
export const RULES: readonly Rule[] = [annotations, config, descriptions, names, schemas, tokenCount]
  .flatMap((m) => Object.values(m).filter((x): x is Rule => RULE_IDS.includes((x as Partial<Rule>).id as RuleId)))
  .sort((a, b) => RULE_IDS.indexOf(a.id) - RULE_IDS.indexOf(b.id));

/** A lint rule's one-line summary, for a report that lists the rules it names (SARIF). */
export const ruleSummary = (id: string): string | undefined => RULES.find((r) => r.id === id)?.summary;

export type LintResult = Awaited<ReturnType<typeof lintLoaded>>;

/**
 * Lints what loadModel returned, with positions from the files it read (without them, each finding at its tool).
 * Tokens are counted when `opts.tokens` asks for the table, else only when the spec sets a budget or a context
 * window (options.lint.toolSearch).
 */
export async function lintLoaded(
  loaded: { model: ServerModel; sources?: ReadonlyMap<string, string>; parsed?: ReadonlyMap<string, SourceFile> },
  opts: { tokens?: boolean } = {},
) {
  const { model } = loaded;
  const at = sourceLocator(model, loaded.sources, loaded.parsed);
  const options = model.options.lint;
  // The spec's choice, else the rule's default.
  const level = (id: RuleId) => options.rules[id] ?? RULES.find((r) => r.id === id)!.severity;
  const active = (id: RuleId) => level(id) !== 'off';
  const suppressions = new config.Suppressions(options.ignore);
  const ctx: RuleContext = { model, at, ignored: (rule, tool) => suppressions.matches(rule, tool) };

  const raw: RawFinding[] = [];
  for (const rule of RULES)
    if (rule.check && active(rule.id)) raw.push(...rule.check(ctx).map((f) => ({ rule: rule.id, ...f })));
  const budgeted = active('token-budget') && (options.budget.total > 0 || options.budget.perTool > 0);
  const searched = active('tool-search') && options.toolSearch.contextWindow > 0;
  const tokens = opts.tokens || budgeted || searched ? await tokenCount.countTokens(model) : undefined;
  if (tokens && budgeted) raw.push(...tokenCount.budgetFindings(tokens, model, at));
  if (tokens && searched) raw.push(...tokenCount.searchFindings(tokens, model, at));

  const kept = raw.filter((f) => !suppressions.silences(f));
  const names = [...model.tools, ...model.prompts, ...model.resources].map((t) => t.name);
  kept.push(...suppressions.check(names, active, at).filter((f) => active(f.rule)));

  const findings: LintFinding[] = kept.map((f) => ({ ...f, severity: level(f.rule) as LintFinding['severity'] }));
  sortByPlace(findings, model.files, (f) => f.rule);
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  // True when the findings reach options.lint.failOn: the command fails.
  const failed = options.failOn === 'error' ? errors > 0 : options.failOn === 'warning' ? findings.length > 0 : false;
  // The tokens are present when counted: always for `toolspec lint`, elsewhere only when the spec sets a budget.
  return { findings, errors, warnings, failOn: options.failOn, failed, ...(tokens ? { tokens } : {}) };
}
