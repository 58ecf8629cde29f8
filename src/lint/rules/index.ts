/** Every lint rule, in the order of RULE_IDS. */
import { tokenBudget, toolSearch } from '../tokens.js';
import { RULE_IDS, type Rule, type RuleId } from '../types.js';
import { conflictingHints, destructiveNotMarked, legacyExecution } from './annotations.js';
import {
  duplicateDescription,
  missingArgumentDescription,
  missingDescription,
  vagueDescription,
} from './descriptions.js';
import { longToolName, mixedNameStyle } from './names.js';
import { missingPrimitiveDescription, undescribedTemplateVariable } from './primitives.js';
import { openInputSchema, outputWrappedFor2025, schemaRefs } from './schemas.js';

const ignoreWithoutReason: Rule = {
  id: 'ignore-without-reason',
  severity: 'warning',
  summary: 'an options.lint.ignore entry without a reason',
};

const unusedIgnore: Rule = {
  id: 'unused-ignore',
  severity: 'warning',
  summary: 'an options.lint.ignore entry that silences nothing (or names a tool that does not exist)',
};

const ALL: Rule[] = [
  missingDescription,
  vagueDescription,
  missingArgumentDescription,
  duplicateDescription,
  longToolName,
  mixedNameStyle,
  destructiveNotMarked,
  conflictingHints,
  openInputSchema,
  schemaRefs,
  outputWrappedFor2025,
  legacyExecution,
  missingPrimitiveDescription,
  undescribedTemplateVariable,
  tokenBudget,
  toolSearch,
  ignoreWithoutReason,
  unusedIgnore,
];

export const RULES: readonly Rule[] = RULE_IDS.map((id) => ALL.find((r) => r.id === id)!);

export function ruleById(id: RuleId): Rule {
  return RULES.find((r) => r.id === id)!;
}
