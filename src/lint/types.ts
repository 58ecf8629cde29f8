/**
 * Lint: what makes a valid spec a good one for models and clients. A rule looks at the ServerModel and reports
 * raw findings; lint.ts gives them their severity and applies the spec's suppressions (config.ts).
 */
import type { Severity, Span } from '../core/diagnostics.js';
import type { ServerModel } from '../pipeline/model.js';
import type { sourceLocator } from './positions.js';

/** Every rule, in the order they are documented. The ids are stable: options and suppressions name them. */
export const RULE_IDS = [
  'missing-description',
  'vague-description',
  'missing-argument-description',
  'duplicate-description',
  'long-tool-name',
  'mixed-name-style',
  'destructive-not-marked',
  'conflicting-hints',
  'open-input-schema',
  'schema-refs',
  'output-wrapped-for-2025',
  'legacy-execution',
  'missing-primitive-description',
  'undescribed-template-variable',
  'token-budget',
  'tool-search',
  'ignore-without-reason',
  'unused-ignore',
] as const;

export type RuleId = (typeof RULE_IDS)[number];

/** Rules about the lint options themselves: they cannot be suppressed per tool. */
export const CONFIG_RULES: readonly RuleId[] = ['ignore-without-reason', 'unused-ignore'];

/** What a rule reports at its span, before severity and suppressions. */
export interface RawFinding extends Span {
  rule: RuleId;
  /** The tools the finding is about (the one it is reported on first); empty for server-wide findings. */
  tools: string[];
  message: string;
  hint: string;
}

/** One finding, as printed and as JSON: a raw one with its severity. */
export interface LintFinding extends RawFinding {
  severity: Severity;
}

/** What a rule's check reports: the runner adds the rule's id. */
export type Found = Omit<RawFinding, 'rule'>;

/** Where things are written: positions inside a tool, a prompt or a resource, or anywhere in a file of the spec. */
export type Locator = ReturnType<typeof sourceLocator>;

export interface RuleContext {
  model: ServerModel;
  at: Locator;
  /** True when the spec's options.lint.ignore silences `rule` for `tool` (and records that the entry was used). */
  ignored(rule: RuleId, tool: string): boolean;
}

export interface Rule {
  id: RuleId;
  severity: Severity;
  /** One line for people: what the rule finds. */
  summary: string;
  /** Absent for the rules whose findings come from elsewhere: the token count, the lint options. */
  check?(ctx: RuleContext): Found[];
}
