/** What each change means for clients, in one sentence, naming the argument or output field it touches. */
import { NARROWS, RULES, WIDENS, type RuleId, type Segments, type Side } from './rules.js';

/** `filters.lang`, `hits[].url`: the argument or field a path inside a schema points at ('' for the root). */
export function fieldName(segments: Segments): string {
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

/** `what`: the prompt, resource or prompt argument a change of one of those is about, e.g. `prompt "summary"`. */
export function explain(rule: RuleId, side: Side, segments: Segments, tool: string | null, what = ''): string {
  const name = fieldName(segments.slice(1));
  const q = JSON.stringify(name);
  const subject =
    side === 'output' ? (name ? `output field ${q}` : 'the output') : name ? `argument ${q}` : 'the arguments';
  switch (rule) {
    case 'TOOL_ADDED':
      return `new tool ${JSON.stringify(tool)}`;
    case 'TOOL_REMOVED':
      return `clients that call ${JSON.stringify(tool)} get an unknown-tool error; keep the tool (say it is deprecated in its description) or release a new major version`;
    case 'TITLE_CHANGED':
    case 'DESCRIPTION_CHANGED':
    case 'INSTRUCTIONS_CHANGED':
    case 'ARGUMENT_DESCRIPTION_CHANGED':
    case 'OUTPUT_DESCRIPTION_CHANGED':
      return 'models read this text to choose and call tools: check that the new wording still leads them right';
    case 'READ_ONLY_HINT_OFF':
      return 'the tool may now modify its environment: clients may ask before each call, and agents limited to read-only tools stop using it';
    case 'DESTRUCTIVE_HINT_ON':
      return 'the tool may now destroy data: clients may ask for confirmation before each call';
    case 'IDEMPOTENT_HINT_OFF':
      return 'repeating a call is no longer safe: clients stop retrying it';
    case 'OPEN_WORLD_HINT_ON':
      return 'the tool now reaches outside systems: clients may ask before each call';
    case 'READ_ONLY_HINT_ON':
    case 'DESTRUCTIVE_HINT_OFF':
    case 'IDEMPOTENT_HINT_ON':
    case 'OPEN_WORLD_HINT_OFF':
      return 'clients may call the tool with less caution: make sure the handler lives up to the hint';
    case 'TASK_SUPPORT_NARROWED':
      return 'clients that call the tool the way it allowed before are rejected';
    case 'TASK_SUPPORT_WIDENED':
      return 'clients may call the tool in more ways';
    case 'TASK_REQUIRED':
      return 'clients without the tasks extension (every 2025 client) get -32021 instead of a result; keep it task: optional, or release a new major version';
    case 'TASK_MODE_CHANGED':
      return 'clients with the tasks extension may get a task handle where they got a result, or the reverse: they handle both';
    case 'OUTPUT_SCHEMA_REMOVED':
      return 'clients that read structuredContent get none';
    case 'OUTPUT_SCHEMA_ADDED':
      return 'results now carry structuredContent';
    case 'ICONS_CHANGED':
    case 'META_CHANGED':
      return 'metadata only: calls and results are unchanged';
    case 'ARGUMENT_REQUIRED_ADDED':
    case 'ARGUMENT_MADE_REQUIRED':
      return `calls without ${q} are rejected`;
    case 'ARGUMENT_ADDED':
      return `calls may pass ${q}`;
    case 'ARGUMENT_REMOVED':
      return `calls that send ${q} are rejected`;
    case 'ARGUMENT_REMOVED_STILL_ACCEPTED':
      return `calls that send ${q} still pass, but the tool no longer describes it`;
    case 'ARGUMENT_MADE_OPTIONAL':
      return `calls may leave ${q} out`;
    case 'OUTPUT_FIELD_ADDED':
      return `results may carry ${q}`;
    case 'OUTPUT_FIELD_REMOVED':
      return `readers of ${q} no longer get it`;
    case 'OUTPUT_FIELD_MADE_OPTIONAL':
      return `readers can no longer rely on ${q} being there`;
    case 'OUTPUT_FIELD_MADE_REQUIRED':
      return `${q} is always there now`;
    case 'ADDITIONAL_PROPERTIES_CLOSED':
      return side === 'output'
        ? `${subject} carries no properties beyond those listed`
        : `calls that send properties not listed in ${subject} are rejected`;
    case 'ADDITIONAL_PROPERTIES_OPENED':
      return `${subject} accepts properties that are not listed`;
    case 'SCHEMA_CHANGED_UNKNOWN':
      return `toolspec cannot tell whether ${subject} accepts more or fewer values, so it counts as breaking: review it`;
    case 'DEFAULT_CHANGED':
      return side === 'input'
        ? `calls that leave ${q || 'it'} out now get this default`
        : 'an annotation in an output schema: results are unchanged';
    case 'ANNOTATION_CHANGED':
      return 'an annotation: no value is accepted or rejected differently';
    case 'PROMPT_ADDED':
    case 'RESOURCE_ADDED':
      return `new ${what}`;
    case 'PROMPT_REMOVED':
      return `clients that get ${what} receive an error; keep it (say it is deprecated in its description) or release a new major version`;
    case 'RESOURCE_REMOVED':
      return `clients that read ${what} get "resource not found"; keep it or release a new major version`;
    case 'RESOURCE_URI_CHANGED':
      return `clients that read ${what} at its old URI get "resource not found"`;
    case 'RESOURCE_MIME_TYPE_CHANGED':
      return `readers of ${what} get content in another format`;
    case 'PROMPT_ARGUMENT_REQUIRED_ADDED':
    case 'PROMPT_ARGUMENT_MADE_REQUIRED':
      return `prompts/get without ${what} is refused`;
    case 'PROMPT_ARGUMENT_REMOVED':
      return `prompts/get that sends ${what} is refused as an unknown argument`;
    case 'PROMPT_ARGUMENT_ADDED':
      return `clients may pass ${what}`;
    case 'PROMPT_ARGUMENT_MADE_OPTIONAL':
      return `clients may leave ${what} out`;
    case 'PRIMITIVE_TEXT_CHANGED':
      return 'users and models read this text to pick a prompt or a resource: check that the new wording still leads them right';
    default:
      return valueChange(rule, side, subject);
  }
}

/** Rules about the set of values a schema accepts. */
function valueChange(rule: RuleId, side: Side, subject: string): string {
  const narrower = RULES[rule] === NARROWS;
  if (side === 'output') {
    if (narrower) return `${subject} takes fewer values: safe for readers`;
    return `${subject} may hold values that readers have not seen before`;
  }
  if (RULES[rule] === WIDENS) return `${subject} accepts more values`;
  if (narrower) return `${subject} accepts fewer values: calls that passed before may be rejected`;
  return `${subject} accepts different values: calls that passed before may be rejected`;
}
