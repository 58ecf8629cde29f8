/**
 * From what the server sent to the data of a spec. What an import reads, whatever the source (a running server, or
 * a saved file, which gives only the tools), is a Listing: the server's identity and its lists, exactly as sent.
 * The spec takes the server block from its initialize result, each tool with every field of MCP's Tool object kept
 * as sent, and output options only where the server's behaviour needs them (its tools/list page size). Fields MCP
 * does not define cannot be kept: they are left out, and said so.
 */
import fs from 'node:fs';
import { hasScheme, parseUriTemplate } from '../../templates/runtime/uri-template.js';
import { UserError } from '../core/diagnostics.js';
import { MAX_TEXT_CHARS } from '../pipeline/load/limits.js';
import { isObject } from '../pipeline/schema/keywords.js';

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

export interface Listing {
  /** The initialize result's serverInfo; undefined for a file. */
  serverInfo?: Record<string, unknown>;
  instructions?: string;
  /** Whether the server declared the tools capability (true for a file). */
  declaresTools: boolean;
  /** The tools, in the server's order, as sent. */
  tools: unknown[];
  /** Tools per tools/list page, in page order (one entry when the server does not paginate). */
  pageSizes: number[];
  /** The prompts, resources and resource templates, as sent, when the server declares them (a running server only). */
  prompts?: unknown[];
  resources?: unknown[];
  resourceTemplates?: unknown[];
}

/** Files larger than this are refused: a tools/list result is a few MiB at most. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A saved tools/list result (`{ tools, nextCursor? }`), a whole JSON-RPC response with that result, or an array of
 * tools.
 */
export function listFromFile(file: string, shown: string): Listing {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES)
      throw new UserError(`${shown} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB; it is not a tools/list result`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `cannot find ${shown}` : `cannot read ${shown} (${code ?? String(e)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(
      `${shown} is not JSON: ${(e as Error).message}\n  hint: save the result of tools/list, e.g. the "result" of its JSON-RPC response, or an array of tools`,
    );
  }
  if (isObject(data) && isObject(data['result'])) data = data['result'];
  const tools = Array.isArray(data) ? data : isObject(data) ? data['tools'] : undefined;
  if (!Array.isArray(tools)) {
    throw new UserError(
      `${shown} holds no tools: expected a tools/list result ({ "tools": [...] }), a JSON-RPC response with one, or an array of tools`,
    );
  }
  return { declaresTools: true, tools, pageSizes: [tools.length] };
}

/** MCP's Tool fields (2025-11-25), in the order the spec writes them when the server's order is not kept. */
const TOOL_FIELDS = 'name title description inputSchema outputSchema annotations icons execution _meta'.split(' ');
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

/**
 * The spec's data; each tool's position in the server's list (0-based: entries that are not tools are not in
 * `data.tools`); and when the server paginated, its page size, which options.pageSize keeps.
 */
export function buildSpec(input: BuildInput) {
  const { listing } = input;
  const notes: ImportNote[] = [];
  const cleaned = listing.tools.map((raw, i) => cleanTool(raw, i, notes));
  const positions = cleaned.flatMap((tool, i) => (tool ? [i] : []));
  const tools = positions.map((i) => cleaned[i]!);

  const { name = input.fallbackName, version = '0.0.0', ...info } = pick(listing.serverInfo ?? {}, SERVER_FIELDS);
  // name and version first, as people write them; --name and --server-version win over what the server says.
  const server: Record<string, unknown> = { name: input.name ?? name, version: input.version ?? version, ...info };
  if (listing.instructions !== undefined) server['instructions'] = listing.instructions;

  const kept = primitives(listing, notes);
  const paged = listing.pageSizes.length > 1 && listing.pageSizes[0]! > 0;
  const pageSize = paged ? listing.pageSizes[0]! : undefined;
  // Schemas that refer with $ref are kept as the server sent them (options.refs: bundle); inlining, the default,
  // would send other bytes. Read crudely, so that any doubt keeps them as sent.
  const refers = JSON.stringify(tools).includes('"$ref":');
  const options = { ...(pageSize === undefined ? {} : { pageSize }), ...(refers ? { refs: 'bundle' } : {}) };
  const data = { server, ...(Object.keys(options).length ? { options } : {}), tools, ...kept };
  return { data, positions, notes, ...(pageSize === undefined ? {} : { pageSize }) };
}

/** A copy of the tool with the fields MCP defines, as sent; undefined (with an error) when it is not a tool at all. */
function cleanTool(raw: unknown, index: number, notes: ImportNote[]): Record<string, unknown> | undefined {
  const position = `#${index + 1}`;
  if (!isObject(raw)) {
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
  const tool = structuredClone(raw);
  keepKnown(tool, TOOL_FIELDS, undefined, name, notes);
  keepKnown(tool['annotations'], ANNOTATION_FIELDS, 'annotations', name, notes);
  keepKnown(tool['execution'], EXECUTION_FIELDS, 'execution', name, notes);
  if (Array.isArray(tool['icons'])) {
    tool['icons'].forEach((icon, i) => keepKnown(icon, ICON_FIELDS, `icons[${i}]`, name, notes));
  }
  return tool;
}

/** Drops (and notes) the keys of `value` that MCP does not define there: the tool's own (`where` undefined), or a part's. */
function keepKnown(value: unknown, known: string[], where: string | undefined, name: string, notes: ImportNote[]) {
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    delete value[key];
    const field = where === undefined ? `field "${key}"` : `${where}.${key}`;
    notes.push({
      severity: 'warning',
      tool: name,
      message: `${field} is not part of MCP's Tool object and was left out`,
    });
  }
}

const SUFFIXES: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
const ordinal = (n: number) => `${n}${SUFFIXES[new Intl.PluralRules('en', { type: 'ordinal' }).select(n)]}`;

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RESOURCE_FIELDS = ['name', 'title', 'description', 'mimeType', 'size', 'icons', 'annotations', '_meta'];
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
    isObject(raw) && typeof raw['name'] === 'string' ? `${kind} ${JSON.stringify(raw['name'])}` : `${kind} #${i + 1}`;
  /** A text longer than a spec may hold (its loader would refuse the whole spec for it): where, or undefined. */
  const tooLong = (value: unknown, at = ''): string | undefined => {
    if (typeof value === 'string') return value.length > MAX_TEXT_CHARS ? at || 'a value' : undefined;
    if (Array.isArray(value)) return value.map((v, i) => tooLong(v, `${at}[${i}]`)).find(Boolean);
    if (isObject(value))
      return Object.entries(value)
        .map(([k, v]) => tooLong(v, at ? `${at}.${k}` : k))
        .find(Boolean);
    return undefined;
  };
  const names = { prompt: new Set<string>(), resource: new Set<string>() };
  /** True when the name can name a handler module and no other of its kind has it (which it then takes). */
  const named = (kind: 'prompt' | 'resource', raw: Record<string, unknown>, what: string): boolean => {
    const name = raw['name'];
    if (typeof name !== 'string' || !NAME.test(name))
      leave(what, `its name ${JSON.stringify(name)} cannot name a handler module (1 to 128 of A-Z a-z 0-9 _ - .)`);
    else if (names[kind].has(name)) leave(what, `another ${kind} has the name ${JSON.stringify(name)}`);
    else {
      names[kind].add(name);
      return true;
    }
    return false;
  };
  /** Each entry of `list` that is an object within the spec's limits, to `keep`; the others are left out. */
  const each = (
    list: unknown[] | undefined,
    kind: string,
    keep: (raw: Record<string, unknown>, what: string) => void,
  ) =>
    (list ?? []).forEach((raw, i) => {
      const what = label(kind, raw, i);
      if (!isObject(raw)) return leave(what, 'it is not an object');
      const long = tooLong(raw);
      if (long)
        return leave(what, `its ${long} is longer than ${MAX_TEXT_CHARS} characters, more than a spec may hold`);
      keep(raw, what);
    });
  each(listing.prompts, 'prompt', (raw, what) => {
    if (!named('prompt', raw, what)) return;
    const args = Array.isArray(raw['arguments']) ? raw['arguments'] : [];
    if (!args.every((a) => isObject(a) && typeof a['name'] === 'string' && IDENTIFIER.test(a['name']))) {
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
  const resource = (kind: 'resources' | 'resourceTemplates') => (raw: Record<string, unknown>, what: string) => {
    const field = kind === 'resources' ? 'uri' : 'uriTemplate';
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
    out[kind].push(pick(raw, [field, ...RESOURCE_FIELDS.filter((k) => k !== 'size' || kind === 'resources')]));
  };
  each(listing.resources, 'resource', resource('resources'));
  each(listing.resourceTemplates, 'resource template', resource('resourceTemplates'));
  // Only the lists that kept something.
  return Object.fromEntries(Object.entries(out).filter(([, list]) => list.length)) as Partial<typeof out>;
}
