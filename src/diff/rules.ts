/**
 * The rules of `toolspec diff`: every kind of change it reports, with its class (docs/commands/diff.md says what
 * each one means) and its message for clients; and what every part of the diff shares: the subject it reads, the
 * change it reports. A rule's id never changes meaning once released. Schema rules that describe a set of values
 * getting smaller or larger flip for output schemas: narrowing what a client may send breaks clients, narrowing what
 * a tool returns does not.
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

/**
 * What a change means for clients, in one sentence, from the argument or output field it touches (`q`, quoted, ''
 * for the root; `subject`, in words), the prompt, resource or prompt argument it is about (`what`, e.g.
 * `prompt "summary"`) and the tool (quoted).
 */
type Message = string | ((m: { q: string; subject: string; what: string; tool: string; side: Side }) => string);

/**
 * A rule's class, or its class in an input schema (and outside schemas) and in an output schema; and its message
 * (none: the rule is about the set of values a schema accepts, or its callers say it).
 */
type Rule = readonly [ChangeClass | { input: ChangeClass; output: ChangeClass }, Message?];

const TEXT = 'models read this text to choose and call tools: check that the new wording still leads them right';
const CAUTION = 'clients may call the tool with less caution: make sure the handler lives up to the hint';
const METADATA = 'metadata only: calls and results are unchanged';

export const RULES = {
  // Tools
  TOOL_ADDED: ['compatible', ({ tool }) => `new tool ${tool}`],
  TOOL_REMOVED: [
    'breaking',
    ({ tool }) =>
      `clients that call ${tool} get an unknown-tool error; keep the tool (say it is deprecated in its description) or release a new major version`,
  ],
  TOOL_RENAMED: ['breaking'],
  TITLE_CHANGED: ['prompt', TEXT],
  DESCRIPTION_CHANGED: ['prompt', TEXT],
  INSTRUCTIONS_CHANGED: ['prompt', TEXT],
  READ_ONLY_HINT_OFF: [
    'breaking',
    'the tool may now modify its environment: clients may ask before each call, and agents limited to read-only tools stop using it',
  ],
  READ_ONLY_HINT_ON: ['compatible', CAUTION],
  DESTRUCTIVE_HINT_ON: ['breaking', 'the tool may now destroy data: clients may ask for confirmation before each call'],
  DESTRUCTIVE_HINT_OFF: ['compatible', CAUTION],
  IDEMPOTENT_HINT_OFF: ['breaking', 'repeating a call is no longer safe: clients stop retrying it'],
  IDEMPOTENT_HINT_ON: ['compatible', CAUTION],
  OPEN_WORLD_HINT_ON: ['breaking', 'the tool now reaches outside systems: clients may ask before each call'],
  OPEN_WORLD_HINT_OFF: ['compatible', CAUTION],
  TASK_SUPPORT_NARROWED: ['breaking', 'clients that call the tool the way it allowed before are rejected'],
  TASK_SUPPORT_WIDENED: ['compatible', 'clients may call the tool in more ways'],
  TASK_REQUIRED: [
    'breaking',
    'clients without the tasks extension (every 2025 client) get -32021 instead of a result; keep it task: optional, or release a new major version',
  ],
  TASK_MODE_CHANGED: [
    'compatible',
    'clients with the tasks extension may get a task handle where they got a result, or the reverse: they handle both',
  ],
  OUTPUT_SCHEMA_REMOVED: ['breaking', 'clients that read structuredContent get none'],
  OUTPUT_SCHEMA_ADDED: ['compatible', 'results now carry structuredContent'],
  ICONS_CHANGED: ['compatible', METADATA],
  META_CHANGED: ['compatible', METADATA],
  // Object properties: arguments in an input schema, fields in an output schema
  ARGUMENT_REQUIRED_ADDED: ['breaking', ({ q }) => `calls without ${q} are rejected`],
  ARGUMENT_ADDED: ['compatible', ({ q }) => `calls may pass ${q}`],
  ARGUMENT_REMOVED: ['breaking', ({ q }) => `calls that send ${q} are rejected`],
  ARGUMENT_REMOVED_STILL_ACCEPTED: [
    'compatible',
    ({ q }) => `calls that send ${q} still pass, but the tool no longer describes it`,
  ],
  ARGUMENT_MADE_REQUIRED: ['breaking', ({ q }) => `calls without ${q} are rejected`],
  ARGUMENT_MADE_OPTIONAL: ['compatible', ({ q }) => `calls may leave ${q} out`],
  OUTPUT_FIELD_ADDED: ['compatible', ({ q }) => `results may carry ${q}`],
  OUTPUT_FIELD_REMOVED: ['breaking', ({ q }) => `readers of ${q} no longer get it`],
  OUTPUT_FIELD_MADE_OPTIONAL: ['breaking', ({ q }) => `readers can no longer rely on ${q} being there`],
  OUTPUT_FIELD_MADE_REQUIRED: ['compatible', ({ q }) => `${q} is always there now`],
  ADDITIONAL_PROPERTIES_CLOSED: [
    NARROWS,
    ({ side, subject }) =>
      side === 'output'
        ? `${subject} carries no properties beyond those listed`
        : `calls that send properties not listed in ${subject} are rejected`,
  ],
  ADDITIONAL_PROPERTIES_OPENED: ['compatible', ({ subject }) => `${subject} accepts properties that are not listed`],
  // Values
  TYPE_NARROWED: [NARROWS],
  TYPE_WIDENED: [WIDENS],
  TYPE_CHANGED: ['breaking'],
  ENUM_ADDED: [NARROWS],
  ENUM_REMOVED: [WIDENS],
  ENUM_VALUE_REMOVED: [NARROWS],
  ENUM_VALUE_ADDED: [WIDENS],
  BOUNDS_TIGHTENED: [NARROWS],
  BOUNDS_RELAXED: [WIDENS],
  FORMAT_ADDED: [NARROWS],
  FORMAT_REMOVED: [WIDENS],
  FORMAT_CHANGED: ['breaking'],
  PATTERN_ADDED: [NARROWS],
  PATTERN_REMOVED: [WIDENS],
  PATTERN_CHANGED: ['breaking'],
  UNIQUE_ITEMS_ADDED: [NARROWS],
  UNIQUE_ITEMS_REMOVED: [WIDENS],
  CONSTRAINT_CHANGED: ['breaking'],
  SCHEMA_NARROWED: [NARROWS],
  SCHEMA_WIDENED: [WIDENS],
  SCHEMA_CHANGED_UNKNOWN: [
    'breaking',
    ({ subject }) =>
      `toolspec cannot tell whether ${subject} accepts more or fewer values, so it counts as breaking: review it`,
  ],
  // Text and annotations
  ARGUMENT_DESCRIPTION_CHANGED: ['prompt', TEXT],
  OUTPUT_DESCRIPTION_CHANGED: ['prompt', TEXT],
  DEFAULT_CHANGED: [
    'compatible',
    ({ side, q }) =>
      side === 'input'
        ? `calls that leave ${q || 'it'} out now get this default`
        : 'an annotation in an output schema: results are unchanged',
  ],
  // Prompts, resources and resource templates
  PROMPT_ADDED: ['compatible', ({ what }) => `new ${what}`],
  PROMPT_REMOVED: [
    'breaking',
    ({ what }) =>
      `clients that get ${what} receive an error; keep it (say it is deprecated in its description) or release a new major version`,
  ],
  PROMPT_ARGUMENT_ADDED: ['compatible', ({ what }) => `clients may pass ${what}`],
  PROMPT_ARGUMENT_REQUIRED_ADDED: ['breaking', ({ what }) => `prompts/get without ${what} is refused`],
  PROMPT_ARGUMENT_REMOVED: [
    'breaking',
    ({ what }) => `prompts/get that sends ${what} is refused as an unknown argument`,
  ],
  PROMPT_ARGUMENT_MADE_REQUIRED: ['breaking', ({ what }) => `prompts/get without ${what} is refused`],
  PROMPT_ARGUMENT_MADE_OPTIONAL: ['compatible', ({ what }) => `clients may leave ${what} out`],
  RESOURCE_ADDED: ['compatible', ({ what }) => `new ${what}`],
  RESOURCE_REMOVED: [
    'breaking',
    ({ what }) => `clients that read ${what} get "resource not found"; keep it or release a new major version`,
  ],
  RESOURCE_URI_CHANGED: ['breaking', ({ what }) => `clients that read ${what} at its old URI get "resource not found"`],
  RESOURCE_MIME_TYPE_CHANGED: ['breaking', ({ what }) => `readers of ${what} get content in another format`],
  PRIMITIVE_TEXT_CHANGED: [
    'prompt',
    'users and models read this text to pick a prompt or a resource: check that the new wording still leads them right',
  ],
  ANNOTATION_CHANGED: ['compatible', 'an annotation: no value is accepted or rejected differently'],
  // Authorization (the spec's auth and scopes)
  AUTH_ADDED: ['breaking', 'HTTP clients need a token from the issuer now; stdio is not affected'],
  AUTH_REMOVED: ['compatible', 'the server no longer checks tokens: anyone who reaches it over HTTP may call it'],
  AUTH_SERVER_CHANGED: ['breaking', 'clients must get new tokens, from the new issuer or for the new resource'],
  SCOPES_ADDED: ['breaking'],
  SCOPES_REMOVED: ['compatible'],
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

/** A change of `rule` on `side`: its message the rule's own unless given; its before and after only when there is one. */
export function changeOf(
  rule: RuleId,
  side: Side,
  tool: string | null,
  segments: Segments,
  detail: string,
  before?: unknown,
  after?: unknown,
  message = explain(rule, side, segments, tool),
): Change {
  const [r]: Rule = RULES[rule];
  const cls = typeof r === 'string' ? r : side === 'output' ? r.output : r.input;
  return { class: cls, rule, tool, segments, detail, message, ...sides(before, after) };
}

/** The rule's message for a change at `segments`; `what`: the prompt, resource or prompt argument it is about. */
export function explain(rule: RuleId, side: Side, segments: Segments, tool: string | null, what = ''): string {
  const name = fieldName(segments.slice(1));
  const q = JSON.stringify(name);
  const subject =
    side === 'output' ? (name ? `output field ${q}` : 'the output') : name ? `argument ${q}` : 'the arguments';
  const [cls, message = valueChange(cls, side, subject)]: Rule = RULES[rule];
  return typeof message === 'string' ? message : message({ q, subject, what, tool: JSON.stringify(tool), side });
}

/** The message of a rule about the set of values a schema accepts. */
function valueChange(cls: Rule[0], side: Side, subject: string): string {
  if (side === 'output') {
    if (cls === NARROWS) return `${subject} takes fewer values: safe for readers`;
    return `${subject} may hold values that readers have not seen before`;
  }
  if (cls === WIDENS) return `${subject} accepts more values`;
  if (cls === NARROWS) return `${subject} accepts fewer values: calls that passed before may be rejected`;
  return `${subject} accepts different values: calls that passed before may be rejected`;
}

/** `filters.lang`, `hits[].url`: the argument or field a path inside a schema points at ('' for the root). */
function fieldName(segments: Segments): string {
  let name = '';
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const next = segments[i + 1];
    if ((s === 'properties' || s === 'patternProperties') && next !== undefined) {
      name += `${name ? '.' : ''}${s === 'patternProperties' ? `/${String(next)}/` : String(next)}`;
      i++;
    } else if (s === 'items') name += '[]';
    else if (s === 'prefixItems' && typeof next === 'number') {
      name += `[${next}]`;
      i++;
    } else if (s === 'additionalProperties' || s === 'unevaluatedProperties') name += `${name ? '.' : ''}*`;
  }
  return name;
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
