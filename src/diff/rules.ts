/**
 * The rules of `toolspec diff`: every kind of change it reports, with its class. A rule's id never changes
 * meaning once released. Schema rules that describe a set of values getting smaller or larger flip for output
 * schemas: narrowing what a client may send breaks clients, narrowing what a tool returns does not.
 */

export type ChangeClass = 'breaking' | 'compatible' | 'prompt';
/** Which schema a change is in; `tool` for everything outside the two schemas. */
export type Side = 'input' | 'output' | 'tool';

interface Rule {
  /** The class in an input schema and outside schemas. */
  input: ChangeClass;
  /** The class in an output schema. */
  output: ChangeClass;
  /** One line for the docs. */
  doc: string;
}

const both = (c: ChangeClass, doc: string): Rule => ({ input: c, output: c, doc });
/** Fewer values accepted: breaks callers of an input, safe for readers of an output. */
const narrows = (doc: string): Rule => ({ input: 'breaking', output: 'compatible', doc });
/** More values accepted: safe for callers of an input, breaks readers of an output. */
const widens = (doc: string): Rule => ({ input: 'compatible', output: 'breaking', doc });

export const RULES = {
  // Tools
  TOOL_ADDED: both('compatible', 'a tool was added'),
  TOOL_REMOVED: both('breaking', 'a tool was removed: clients calling it get an unknown-tool error'),
  TOOL_RENAMED: both(
    'breaking',
    'a tool was renamed (the new spec says renamedFrom, or a tool was removed and one with the same schemas added): breaking for callers of the old name',
  ),
  TITLE_CHANGED: both('prompt', "a tool's title or annotations.title changed"),
  DESCRIPTION_CHANGED: both('prompt', "a tool's description changed"),
  INSTRUCTIONS_CHANGED: both('prompt', "the server's instructions changed"),
  READ_ONLY_HINT_OFF: both('breaking', 'readOnlyHint turned off: the tool may now modify its environment'),
  READ_ONLY_HINT_ON: both('compatible', 'readOnlyHint turned on'),
  DESTRUCTIVE_HINT_ON: both(
    'breaking',
    'destructiveHint turned on (explicitly, or by removing destructiveHint: false)',
  ),
  DESTRUCTIVE_HINT_OFF: both('compatible', 'destructiveHint turned off'),
  IDEMPOTENT_HINT_OFF: both('breaking', 'idempotentHint turned off: retrying a call is no longer safe'),
  IDEMPOTENT_HINT_ON: both('compatible', 'idempotentHint turned on'),
  OPEN_WORLD_HINT_ON: both(
    'breaking',
    'openWorldHint turned on (explicitly, or by removing openWorldHint: false): the tool now reaches outside systems',
  ),
  OPEN_WORLD_HINT_OFF: both('compatible', 'openWorldHint turned off'),
  TASK_SUPPORT_NARROWED: both(
    'breaking',
    'execution.taskSupport no longer allows a way of calling the tool that it allowed',
  ),
  TASK_SUPPORT_WIDENED: both('compatible', 'execution.taskSupport allows more ways of calling the tool'),
  TASK_REQUIRED: both(
    'breaking',
    'the tool runs only as a task now (task: required): clients without the tasks extension get -32021',
  ),
  TASK_MODE_CHANGED: both(
    'compatible',
    "the tool's task changed otherwise (added as optional, made optional, removed): clients with the tasks extension may get a task handle or a result, and handle both",
  ),
  OUTPUT_SCHEMA_REMOVED: both('breaking', 'the output schema was removed: clients no longer get structuredContent'),
  OUTPUT_SCHEMA_ADDED: both('compatible', 'an output schema was added'),
  ICONS_CHANGED: both('compatible', "the tool's icons changed"),
  META_CHANGED: both('compatible', "the tool's _meta changed"),
  // Object properties: arguments in an input schema, fields in an output schema
  ARGUMENT_REQUIRED_ADDED: both('breaking', 'a required argument was added: calls without it are rejected'),
  ARGUMENT_ADDED: both('compatible', 'an optional argument was added'),
  ARGUMENT_REMOVED: both(
    'breaking',
    'an argument was removed and extra arguments are rejected (or must match a schema it does not)',
  ),
  ARGUMENT_REMOVED_STILL_ACCEPTED: both(
    'compatible',
    'an argument was removed, but extra arguments are accepted, so calls that send it still pass',
  ),
  ARGUMENT_MADE_REQUIRED: both('breaking', 'an optional argument became required'),
  ARGUMENT_MADE_OPTIONAL: both('compatible', 'a required argument became optional'),
  OUTPUT_FIELD_ADDED: both('compatible', 'an output field was added'),
  OUTPUT_FIELD_REMOVED: both('breaking', 'an output field was removed'),
  OUTPUT_FIELD_MADE_OPTIONAL: both(
    'breaking',
    'a required output field became optional: readers can no longer rely on it',
  ),
  OUTPUT_FIELD_MADE_REQUIRED: both('compatible', 'an optional output field became required'),
  ADDITIONAL_PROPERTIES_CLOSED: {
    input: 'breaking',
    output: 'compatible',
    doc: 'additionalProperties (or unevaluatedProperties) closed: extra properties are rejected',
  },
  ADDITIONAL_PROPERTIES_OPENED: both(
    'compatible',
    'additionalProperties (or unevaluatedProperties) opened: extra properties are accepted (readers of an output ignore fields they do not know)',
  ),
  // Values
  TYPE_NARROWED: narrows('the type accepts fewer kinds of value (e.g. [string, null] → string, number → integer)'),
  TYPE_WIDENED: widens('the type accepts more kinds of value'),
  TYPE_CHANGED: both('breaking', 'the type changed to one that is neither narrower nor wider (e.g. string → integer)'),
  ENUM_ADDED: narrows('enum or const added where any value was accepted'),
  ENUM_REMOVED: widens('enum or const removed: any value is accepted'),
  ENUM_VALUE_REMOVED: narrows('values removed from an enum (or a const changed)'),
  ENUM_VALUE_ADDED: widens('values added to an enum'),
  BOUNDS_TIGHTENED: narrows(
    'a bound added or tightened: minimum, maximum, exclusive*, minLength, maxLength, minItems, maxItems, minProperties, maxProperties, minContains, maxContains, multipleOf',
  ),
  BOUNDS_RELAXED: widens('a bound removed or relaxed'),
  FORMAT_ADDED: narrows('format added'),
  FORMAT_REMOVED: widens('format removed'),
  FORMAT_CHANGED: both('breaking', 'format changed'),
  PATTERN_ADDED: narrows('pattern added'),
  PATTERN_REMOVED: widens('pattern removed'),
  PATTERN_CHANGED: both(
    'breaking',
    'pattern changed (toolspec cannot tell whether one regular expression accepts more than another)',
  ),
  UNIQUE_ITEMS_ADDED: narrows('uniqueItems turned on'),
  UNIQUE_ITEMS_REMOVED: widens('uniqueItems turned off'),
  CONSTRAINT_CHANGED: both(
    'breaking',
    'a constraint changed to one that is neither narrower nor wider (e.g. multipleOf 2 → 3)',
  ),
  SCHEMA_NARROWED: narrows(
    'a subschema accepts fewer values: an allOf member or patternProperties entry added, an anyOf/oneOf branch removed, a subschema became false',
  ),
  SCHEMA_WIDENED: widens(
    'a subschema accepts more values: an allOf member removed, an anyOf/oneOf branch added, a subschema became true',
  ),
  SCHEMA_CHANGED_UNKNOWN: both(
    'breaking',
    'a change toolspec cannot classify (not, if/then/else, dependencies, overlapping oneOf branches, …): treated as breaking; review it',
  ),
  // Text and annotations
  ARGUMENT_DESCRIPTION_CHANGED: both('prompt', 'a description or title inside the input schema changed'),
  OUTPUT_DESCRIPTION_CHANGED: both('prompt', 'a description or title inside the output schema changed'),
  DEFAULT_CHANGED: both(
    'compatible',
    'a default value added, removed or changed: calls that leave the argument out behave differently',
  ),
  // Prompts, resources and resource templates
  PROMPT_ADDED: both('compatible', 'a prompt was added'),
  PROMPT_REMOVED: both('breaking', 'a prompt was removed: clients that get it receive an error'),
  PROMPT_ARGUMENT_ADDED: both('compatible', 'an optional prompt argument was added'),
  PROMPT_ARGUMENT_REQUIRED_ADDED: both(
    'breaking',
    'a required prompt argument was added: prompts/get without it is refused',
  ),
  PROMPT_ARGUMENT_REMOVED: both(
    'breaking',
    'a prompt argument was removed: prompts/get that sends it is refused as unknown',
  ),
  PROMPT_ARGUMENT_MADE_REQUIRED: both('breaking', 'an optional prompt argument became required'),
  PROMPT_ARGUMENT_MADE_OPTIONAL: both('compatible', 'a required prompt argument became optional'),
  RESOURCE_ADDED: both('compatible', 'a resource or resource template was added'),
  RESOURCE_REMOVED: both(
    'breaking',
    'a resource or resource template was removed: reading it gives "resource not found"',
  ),
  RESOURCE_URI_CHANGED: both(
    'breaking',
    "a resource's URI or a template's uriTemplate changed: the old URIs are not found",
  ),
  RESOURCE_MIME_TYPE_CHANGED: both(
    'breaking',
    "a resource's (or template's) mimeType changed: readers get another format",
  ),
  PRIMITIVE_TEXT_CHANGED: both(
    'prompt',
    'the title or description of a prompt, a prompt argument, a resource or a template changed',
  ),
  ANNOTATION_CHANGED: both(
    'compatible',
    'a schema annotation changed: examples, deprecated, readOnly, writeOnly, content*, x-*',
  ),
  // Authorization (the spec's auth and scopes)
  AUTH_ADDED: both('breaking', 'auth was added: HTTP clients without a token of its issuer get 401'),
  AUTH_REMOVED: both('compatible', 'auth was removed: the server takes requests without tokens'),
  AUTH_SERVER_CHANGED: both(
    'breaking',
    "auth's issuer or resource changed: tokens from the old issuer, or for the old resource, are refused",
  ),
  SCOPES_ADDED: both(
    'breaking',
    'a tool, prompt or resource needs a scope it did not (its own scopes, or auth.scopes): tokens without it get 403',
  ),
  SCOPES_REMOVED: both('compatible', 'a tool, prompt or resource no longer needs a scope'),
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];

export function classOf(rule: RuleId, side: Side): ChangeClass {
  return side === 'output' ? RULES[rule].output : RULES[rule].input;
}

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
  /** The value on the old side, when there is one. */
  before?: unknown;
  /** The value on the new side, when there is one. */
  after?: unknown;
  /** Where to point in the new spec (the tool, or the deepest part of the path written in its file). */
  file?: string;
  line?: number;
  column?: number;
}

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
