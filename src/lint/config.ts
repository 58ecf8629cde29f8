/**
 * The spec's lint options at work: each rule's severity (options.lint.rules), per-tool suppressions
 * (options.lint.ignore, each with a reason), and findings about the suppressions themselves.
 */
import type { LintOptions } from '../core/options.js';
import type { JsonPath } from '../pipeline/load/source.js';
import { didYouMean } from '../core/suggest.js';
import { quoted } from './words.js';
import { CONFIG_RULES, type Locator, type RawFinding, type Rule, type RuleId } from './types.js';

export const ignoreWithoutReason: Rule = {
  id: 'ignore-without-reason',
  severity: 'warning',
  summary: 'an options.lint.ignore entry without a reason',
};

export const unusedIgnore: Rule = {
  id: 'unused-ignore',
  severity: 'warning',
  summary: 'an options.lint.ignore entry that silences nothing (or names a tool that does not exist)',
};

/** options.lint.ignore, keeping track of which entries (and which of their tools) silenced something. */
export class Suppressions {
  /** Per entry, the tools it silenced a finding for. */
  readonly #used: Set<string>[];

  constructor(private readonly entries: LintOptions['ignore']) {
    this.#used = entries.map(() => new Set());
  }

  /** True when an entry silences `rule` for `tool`. */
  matches(rule: RuleId, tool: string): boolean {
    const hits = this.entries.flatMap((e, i) => (e.rule === rule && e.tools.includes(tool) ? [i] : []));
    for (const i of hits) this.#used[i]!.add(tool);
    return hits.length > 0;
  }

  /** A finding is silenced when an entry for its rule names any of the tools it is about. */
  silences(f: RawFinding): boolean {
    return !CONFIG_RULES.includes(f.rule) && f.tools.map((t) => this.matches(f.rule, t)).some(Boolean);
  }

  /** Findings about the entries: no reason, a tool that does not exist, a tool for which nothing was silenced. */
  check(toolNames: readonly string[], active: (rule: RuleId) => boolean, at: Locator): RawFinding[] {
    const out: RawFinding[] = [];
    const report = (rule: RuleId, path: JsonPath, message: string, hint: string) =>
      out.push({ rule, tools: [], ...at.inSpec(path), message, hint });
    const known = new Set(toolNames);
    this.entries.forEach((e, i) => {
      const where = ['options', 'lint', 'ignore', i];
      if (!e.reason?.trim())
        report(
          'ignore-without-reason',
          [...where, 'rule'],
          `options.lint.ignore[${i}] silences ${e.rule} for ${e.tools.map(quoted).join(', ')} without a reason`,
          'add reason: "…" saying why the finding does not apply here, so the next reader need not guess',
        );
      if (!active(e.rule as RuleId))
        return void report(
          'unused-ignore',
          [...where, 'rule'],
          `options.lint.ignore[${i}] silences ${e.rule}, but that rule is off`,
          'remove the entry: options.lint.rules turns the rule off for every tool',
        );
      e.tools.forEach((tool, j) => {
        if (this.#used[i]!.has(tool)) return;
        const [message, hint] = known.has(tool)
          ? [
              `options.lint.ignore[${i}] silences ${e.rule} for ${quoted(tool)}, but the rule reports nothing there`,
              'remove it: what it silenced is gone',
            ]
          : [
              `options.lint.ignore[${i}] names ${quoted(tool)}, which is not a tool of this server`,
              didYouMean(tool, toolNames) || 'remove it, or correct the name',
            ];
        report('unused-ignore', [...where, 'tools', j], message, hint);
      });
    });
    return out;
  }
}
