/**
 * From what the server sent to the data of a spec: the server block from its initialize result, each tool with
 * every field of MCP's Tool object kept as sent, and output options only where the server's behaviour needs them
 * (its tools/list page size). Fields MCP does not define cannot be kept: they are left out, and said so.
 */
import type { Listing } from './listing.js';

/** One thing to tell the user: about one tool (by name, or by position when it has no usable name), or the server. */
export interface ImportNote {
  severity: 'error' | 'warning';
  /** The tool's name, or `#3` for the third tool when it has no name; undefined for the server. */
  tool?: string;
  message: string;
  hint?: string;
}

export interface SpecData {
  server: Record<string, unknown>;
  options?: Record<string, unknown>;
  $defs?: Record<string, unknown>;
  tools: Record<string, unknown>[];
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
  const paged = listing.pageSizes.length > 1 && listing.pageSizes[0]! > 0;
  const pageSize = paged ? listing.pageSizes[0]! : undefined;
  if (pageSize !== undefined) data.options = { pageSize };
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
