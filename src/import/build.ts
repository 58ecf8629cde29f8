/**
 * From what the server sent to the data of a spec: the server block from its initialize result, each tool with
 * every field of MCP's Tool object kept as sent, and output options only where the server's behaviour needs them
 * (its tools/list page size). Fields MCP does not define cannot be kept: they are left out, and said so.
 */
import { hasScheme, parseUriTemplate } from '../../templates/runtime/uri-template.js';
import { MAX_TEXT_CHARS } from '../pipeline/load/limits.js';
import type { Listing } from './listing.js';

/** One thing to tell the user: about one tool (by name, or by position when it has no usable name), or the server. */
export interface ImportNote {
  severity: 'error' | 'warning';
  /** The tool's name, or `#3` for the third tool when it has no name; undefined for the server. */
  tool?: string;
  /** A prompt, resource or resource template the note is about, as the user reads it: `prompt "summarise"`. */
  about?: string;
  message: string;
  hint?: string;
}

export interface SpecData {
  server: Record<string, unknown>;
  options?: Record<string, unknown>;
  $defs?: Record<string, unknown>;
  tools: Record<string, unknown>[];
  prompts?: Record<string, unknown>[];
  resources?: Record<string, unknown>[];
  resourceTemplates?: Record<string, unknown>[];
}

/** MCP's Tool fields (2025-11-25), in the order the spec writes them when the server's order is not kept. */
const TOOL_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'icons',
  'execution',
  '_meta',
];
const ANNOTATION_FIELDS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const ICON_FIELDS = ['src', 'mimeType', 'sizes', 'theme'];
const EXECUTION_FIELDS = ['taskSupport'];
const SERVER_FIELDS = ['name', 'version', 'title', 'description', 'websiteUrl', 'icons'];

export interface BuildInput {
  listing: Listing;
  /** --name and --server-version, which win over what the server says. */
  name?: string;
  version?: string;
  /** For a file, which has no server info: the name to use when --name is not given. */
  fallbackName: string;
}

export interface Built {
  data: SpecData;
  /** The tools as generate must reproduce them: what the server sent, less the fields that cannot be kept. */
  expected: Record<string, unknown>[];
  /** Each tool's position in the server's list (0-based): entries that are not tools are not in `data.tools`. */
  positions: number[];
  notes: ImportNote[];
  /** The server paginated: its page size, which options.pageSize keeps. */
  pageSize?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function buildSpec(input: BuildInput): Built {
  const { listing } = input;
  const notes: ImportNote[] = [];
  const tools: Record<string, unknown>[] = [];
  const positions: number[] = [];
  listing.tools.forEach((raw, i) => {
    const tool = cleanTool(raw, i, notes);
    if (!tool) return;
    tools.push(tool);
    positions.push(i);
  });

  const info = listing.serverInfo ?? {};
  const server: Record<string, unknown> = {};
  for (const key of SERVER_FIELDS) if (info[key] !== undefined) server[key] = structuredClone(info[key]);
  if (input.name !== undefined) server['name'] = input.name;
  if (input.version !== undefined) server['version'] = input.version;
  if (server['name'] === undefined) server['name'] = input.fallbackName;
  if (server['version'] === undefined) server['version'] = '0.0.0';
  if (listing.instructions !== undefined) server['instructions'] = listing.instructions;
  // name and version first, as people write them.
  const ordered: Record<string, unknown> = { name: server['name'], version: server['version'], ...server };

  const data: SpecData = { server: ordered, tools };
  const kept = primitives(listing, notes);
  for (const key of ['prompts', 'resources', 'resourceTemplates'] as const) if (kept[key].length) data[key] = kept[key];
  const paged = listing.pageSizes.length > 1 && listing.pageSizes[0]! > 0;
  const pageSize = paged ? listing.pageSizes[0]! : undefined;
  // Schemas that refer with $ref are kept as the server sent them (options.refs: bundle); inlining, the default,
  // would send other bytes. Read crudely, so that any doubt keeps them as sent.
  const refers = JSON.stringify(tools).includes('"$ref":');
  if (pageSize !== undefined || refers)
    data.options = { ...(pageSize === undefined ? {} : { pageSize }), ...(refers ? { refs: 'bundle' } : {}) };
  return { data, expected: structuredClone(tools), positions, notes, ...(pageSize === undefined ? {} : { pageSize }) };
}

/** A copy of the tool with the fields MCP defines, as sent; undefined (with an error) when it is not a tool at all. */
function cleanTool(raw: unknown, index: number, notes: ImportNote[]): Record<string, unknown> | undefined {
  const position = `#${index + 1}`;
  if (!isRecord(raw)) {
    notes.push({
      severity: 'error',
      tool: position,
      message: `the ${ordinal(index + 1)} tool is not an object but ${JSON.stringify(raw)?.slice(0, 60)}`,
    });
    return undefined;
  }
  const name = raw['name'];
  if (typeof name !== 'string') {
    notes.push({
      severity: 'error',
      tool: position,
      message: `the ${ordinal(index + 1)} tool has no name (a string)`,
      hint: 'every MCP tool needs a unique name',
    });
    return undefined;
  }
  const tool: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!TOOL_FIELDS.includes(key)) {
      notes.push({
        severity: 'warning',
        tool: name,
        message: `field "${key}" is not part of MCP's Tool object and was left out`,
      });
      continue;
    }
    if (value === undefined) continue;
    tool[key] = structuredClone(value);
  }
  keepKnown(tool, 'annotations', ANNOTATION_FIELDS, name, notes);
  keepKnown(tool, 'execution', EXECUTION_FIELDS, name, notes);
  if (Array.isArray(tool['icons'])) {
    tool['icons'].forEach((icon, i) => keepKnownIn(icon, ICON_FIELDS, `icons[${i}]`, name, notes));
  }
  return tool;
}

function keepKnown(
  tool: Record<string, unknown>,
  field: string,
  known: string[],
  name: string,
  notes: ImportNote[],
): void {
  keepKnownIn(tool[field], known, field, name, notes);
}

function keepKnownIn(value: unknown, known: string[], where: string, name: string, notes: ImportNote[]): void {
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    delete value[key];
    notes.push({
      severity: 'warning',
      tool: name,
      message: `${where}.${key} is not part of MCP's Tool object and was left out`,
    });
  }
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MIME = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(;.*)?$/;
const pick = (raw: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(keys.flatMap((k) => (raw[k] === undefined ? [] : [[k, structuredClone(raw[k])]])));

/**
 * The server's prompts, resources and resource templates as the spec writes them: MCP's fields, as sent. One whose
 * name cannot name a handler module, whose arguments are not identifiers, or whose URI or template toolspec cannot
 * serve is left out, and said so: the import keeps what generate can reproduce.
 */
function primitives(listing: Listing, notes: ImportNote[]) {
  const out = {
    prompts: [] as Record<string, unknown>[],
    resources: [] as Record<string, unknown>[],
    resourceTemplates: [] as Record<string, unknown>[],
  };
  const leave = (what: string, why: string): void => {
    notes.push({ severity: 'warning', about: what, message: `left out: ${why}`, hint: 'add it to the spec by hand' });
  };
  /** `prompt "summarise"`, or `prompt #2` when it has no name to show. */
  const label = (kind: string, raw: unknown, i: number) =>
    isRecord(raw) && typeof raw['name'] === 'string' ? `${kind} ${JSON.stringify(raw['name'])}` : `${kind} #${i + 1}`;
  /** A text longer than a spec may hold (its loader would refuse the whole spec for it): where, or undefined. */
  const tooLong = (value: unknown, at = ''): string | undefined => {
    if (typeof value === 'string') return value.length > MAX_TEXT_CHARS ? at || 'a value' : undefined;
    if (Array.isArray(value)) return value.map((v, i) => tooLong(v, `${at}[${i}]`)).find(Boolean);
    if (isRecord(value))
      return Object.entries(value)
        .map(([k, v]) => tooLong(v, at ? `${at}.${k}` : k))
        .find(Boolean);
    return undefined;
  };
  const names = { prompt: new Set<string>(), resource: new Set<string>() };
  const named = (kind: 'prompt' | 'resource', raw: Record<string, unknown>, what: string): string | undefined => {
    const name = raw['name'];
    if (typeof name !== 'string' || !NAME.test(name)) {
      leave(what, `its name ${JSON.stringify(name)} cannot name a handler module (1 to 128 of A-Z a-z 0-9 _ - .)`);
      return undefined;
    }
    if (names[kind].has(name)) {
      leave(what, `another ${kind} has the name ${JSON.stringify(name)}`);
      return undefined;
    }
    names[kind].add(name);
    return name;
  };
  (listing.prompts ?? []).forEach((raw, i) => {
    const what = label('prompt', raw, i);
    if (!isRecord(raw)) return leave(what, 'it is not an object');
    const long = tooLong(raw);
    if (long) return leave(what, `its ${long} is longer than ${MAX_TEXT_CHARS} characters, more than a spec may hold`);
    if (!named('prompt', raw, what)) return;
    const args = Array.isArray(raw['arguments']) ? raw['arguments'] : [];
    if (!args.every((a) => isRecord(a) && typeof a['name'] === 'string' && IDENTIFIER.test(a['name']))) {
      leave(what, 'an argument name is not an identifier, which the handler receives it as');
      return;
    }
    const prompt = pick(raw, ['name', 'title', 'description', 'icons', '_meta']);
    if (args.length)
      prompt['arguments'] = args.map((a) =>
        pick(a as Record<string, unknown>, ['name', 'title', 'description', 'required']),
      );
    out.prompts.push(prompt);
  });
  const resource = (raw: unknown, i: number, kind: 'resources' | 'resourceTemplates'): void => {
    const field = kind === 'resources' ? 'uri' : 'uriTemplate';
    const what = label(kind === 'resources' ? 'resource' : 'resource template', raw, i);
    if (!isRecord(raw)) return leave(what, 'it is not an object');
    const long = tooLong(raw);
    if (long) return leave(what, `its ${long} is longer than ${MAX_TEXT_CHARS} characters, more than a spec may hold`);
    const uri = raw[field];
    if (typeof uri !== 'string' || !hasScheme(uri))
      return leave(what, `its ${field} ${JSON.stringify(uri)?.slice(0, 200)} has no scheme`);
    if (/[\s\u0000-\u001f\u007f]/u.test(uri))
      return leave(what, `its ${field} ${JSON.stringify(uri).slice(0, 200)} holds white space or a control character`);
    if (kind === 'resourceTemplates') {
      const parsed = parseUriTemplate(uri);
      if ('error' in parsed) return leave(what, `its uriTemplate: ${parsed.error.message}`);
    }
    if (raw['mimeType'] !== undefined && (typeof raw['mimeType'] !== 'string' || !MIME.test(raw['mimeType'])))
      return leave(what, `its mimeType ${JSON.stringify(raw['mimeType'])} is not a MIME type`);
    if (!named('resource', raw, what)) return;
    out[kind].push(
      pick(raw, [
        field,
        'name',
        'title',
        'description',
        'mimeType',
        ...(kind === 'resources' ? ['size'] : []),
        'icons',
        'annotations',
        '_meta',
      ]),
    );
  };
  (listing.resources ?? []).forEach((raw, i) => resource(raw, i, 'resources'));
  (listing.resourceTemplates ?? []).forEach((raw, i) => resource(raw, i, 'resourceTemplates'));
  return out;
}
