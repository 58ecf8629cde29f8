/**
 * The rules of `toolspec diff`: every kind of change it reports, with its class (docs/commands/diff.md says what
 * each one means), and what every part of the diff shares: the subject it reads, the change it reports. A rule's id
 * never changes meaning once released. Schema rules that describe a set of values getting smaller or larger flip for
 * output schemas: narrowing what a client may send breaks clients, narrowing what a tool returns does not.
 */
import type { AuthModel, PromptModel, ResourceModel, ServerInfo, ToolModel } from '../pipeline/model.js';

/** What the diff reads of a server: its instructions, tools, prompts, resources and authorization. */
export interface DiffSubject {
  server: Pick<ServerInfo, 'instructions'>;
  tools: readonly ToolModel[];
  prompts?: readonly PromptModel[];
  resources?: readonly ResourceModel[];
  auth?: AuthModel;
}

export type ChangeClass = 'breaking' | 'compatible' | 'prompt';
/** Which schema a change is in; `tool` for everything outside the two schemas. */
export type Side = 'input' | 'output' | 'tool';

/** Fewer values accepted: breaks callers of an input, safe for readers of an output. */
export const NARROWS = { input: 'breaking', output: 'compatible' } as const;
/** More values accepted: safe for callers of an input, breaks readers of an output. */
export const WIDENS = { input: 'compatible', output: 'breaking' } as const;

/** A rule's class; or its class in an input schema (and outside schemas), and in an output schema. */
type Rule = ChangeClass | { input: ChangeClass; output: ChangeClass };

export const RULES = {
  // Tools
  TOOL_ADDED: 'compatible',
  TOOL_REMOVED: 'breaking',
  TOOL_RENAMED: 'breaking',
  TITLE_CHANGED: 'prompt',
  DESCRIPTION_CHANGED: 'prompt',
  INSTRUCTIONS_CHANGED: 'prompt',
  READ_ONLY_HINT_OFF: 'breaking',
  READ_ONLY_HINT_ON: 'compatible',
  DESTRUCTIVE_HINT_ON: 'breaking',
  DESTRUCTIVE_HINT_OFF: 'compatible',
  IDEMPOTENT_HINT_OFF: 'breaking',
  IDEMPOTENT_HINT_ON: 'compatible',
  OPEN_WORLD_HINT_ON: 'breaking',
  OPEN_WORLD_HINT_OFF: 'compatible',
  TASK_SUPPORT_NARROWED: 'breaking',
  TASK_SUPPORT_WIDENED: 'compatible',
  TASK_REQUIRED: 'breaking',
  TASK_MODE_CHANGED: 'compatible',
  OUTPUT_SCHEMA_REMOVED: 'breaking',
  OUTPUT_SCHEMA_ADDED: 'compatible',
  ICONS_CHANGED: 'compatible',
  META_CHANGED: 'compatible',
  // Object properties: arguments in an input schema, fields in an output schema
  ARGUMENT_REQUIRED_ADDED: 'breaking',
  ARGUMENT_ADDED: 'compatible',
  ARGUMENT_REMOVED: 'breaking',
  ARGUMENT_REMOVED_STILL_ACCEPTED: 'compatible',
  ARGUMENT_MADE_REQUIRED: 'breaking',
  ARGUMENT_MADE_OPTIONAL: 'compatible',
  OUTPUT_FIELD_ADDED: 'compatible',
  OUTPUT_FIELD_REMOVED: 'breaking',
  OUTPUT_FIELD_MADE_OPTIONAL: 'breaking',
  OUTPUT_FIELD_MADE_REQUIRED: 'compatible',
  ADDITIONAL_PROPERTIES_CLOSED: NARROWS,
  ADDITIONAL_PROPERTIES_OPENED: 'compatible',
  // Values
  TYPE_NARROWED: NARROWS,
  TYPE_WIDENED: WIDENS,
  TYPE_CHANGED: 'breaking',
  ENUM_ADDED: NARROWS,
  ENUM_REMOVED: WIDENS,
  ENUM_VALUE_REMOVED: NARROWS,
  ENUM_VALUE_ADDED: WIDENS,
  BOUNDS_TIGHTENED: NARROWS,
  BOUNDS_RELAXED: WIDENS,
  FORMAT_ADDED: NARROWS,
  FORMAT_REMOVED: WIDENS,
  FORMAT_CHANGED: 'breaking',
  PATTERN_ADDED: NARROWS,
  PATTERN_REMOVED: WIDENS,
  PATTERN_CHANGED: 'breaking',
  UNIQUE_ITEMS_ADDED: NARROWS,
  UNIQUE_ITEMS_REMOVED: WIDENS,
  CONSTRAINT_CHANGED: 'breaking',
  SCHEMA_NARROWED: NARROWS,
  SCHEMA_WIDENED: WIDENS,
  SCHEMA_CHANGED_UNKNOWN: 'breaking',
  // Text and annotations
  ARGUMENT_DESCRIPTION_CHANGED: 'prompt',
  OUTPUT_DESCRIPTION_CHANGED: 'prompt',
  DEFAULT_CHANGED: 'compatible',
  // Prompts, resources and resource templates
  PROMPT_ADDED: 'compatible',
  PROMPT_REMOVED: 'breaking',
  PROMPT_ARGUMENT_ADDED: 'compatible',
  PROMPT_ARGUMENT_REQUIRED_ADDED: 'breaking',
  PROMPT_ARGUMENT_REMOVED: 'breaking',
  PROMPT_ARGUMENT_MADE_REQUIRED: 'breaking',
  PROMPT_ARGUMENT_MADE_OPTIONAL: 'compatible',
  RESOURCE_ADDED: 'compatible',
  RESOURCE_REMOVED: 'breaking',
  RESOURCE_URI_CHANGED: 'breaking',
  RESOURCE_MIME_TYPE_CHANGED: 'breaking',
  PRIMITIVE_TEXT_CHANGED: 'prompt',
  ANNOTATION_CHANGED: 'compatible',
  // Authorization (the spec's auth and scopes)
  AUTH_ADDED: 'breaking',
  AUTH_REMOVED: 'compatible',
  AUTH_SERVER_CHANGED: 'breaking',
  SCOPES_ADDED: 'breaking',
  SCOPES_REMOVED: 'compatible',
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];

/** A JSON path inside a tool definition (or inside `server` for server-level changes). */
export type Segments = readonly (string | number)[];

export interface Change {
  class: ChangeClass;
  rule: RuleId;
  /** The tool's name (the new name for a renamed tool), or null for a change to the server. */
  tool: string | null;
  /** The JSON path inside the tool definition, e.g. ["inputSchema", "properties", "limit", "maximum"]. */
  segments: Segments;
  /** What changed, shortly: "50 → 20", "added (required)". */
  detail: string;
  /** What it means for clients, one sentence. */
  message: string;
  /** The values on the old and the new side, when there is one. */
  before?: unknown;
  after?: unknown;
  /** Where to point in the new spec (the tool, or the deepest part of the path written in its file). */
  file?: string;
  line?: number;
  column?: number;
}

/** A change of `rule` on `side`; its before and after only when there is one. */
export function changeOf(
  rule: RuleId,
  side: Side,
  tool: string | null,
  segments: Segments,
  detail: string,
  message: string,
  before?: unknown,
  after?: unknown,
): Change {
  const r: Rule = RULES[rule];
  const cls = typeof r === 'string' ? r : side === 'output' ? r.output : r.input;
  return { class: cls, rule, tool, segments, detail, message, ...sides(before, after) };
}

/** `before` and `after`, each only when there is one. */
export const sides = (before: unknown, after: unknown) => ({
  ...(before !== undefined && { before }),
  ...(after !== undefined && { after }),
});

export const CLASS_ORDER: readonly ChangeClass[] = ['breaking', 'compatible', 'prompt'];

/** `inputSchema.properties.limit.maximum`; names that are not plain identifiers in brackets, indexes too. */
export function formatPath(segments: Segments): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** RFC 6901, for machines. */
export function jsonPointer(segments: Segments): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
