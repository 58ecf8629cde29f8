/**
 * The dispatcher: looks a tool up, validates its arguments with the precompiled validator (applying schema
 * defaults), calls the handler, and turns whatever it returns or throws into a CallToolResult. Protocol errors
 * (unknown tool, arguments that are not an object, a bad cursor) are JSON-RPC errors; everything the model can
 * correct or should know about is a result with isError: true.
 */
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './context.js';

/** A precompiled validator, as ajv's standalone code exports it. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ValidationError[] | null;
}

export interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface ToolBinding {
  /** Validates the arguments and fills in schema defaults. */
  input: Validator;
  /** Validates structured output, for tools with an outputSchema. */
  output?: Validator;
}

/** Throw this from a handler to send its message to the model as the tool's error result, verbatim. */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}

export type AnyHandler = (args: never, ctx: ToolContext) => unknown;

export interface DispatcherOptions {
  tools: readonly Tool[];
  /** Each tool's validators, or a function that loads them (once, on the first call: listing tools needs none). */
  bindings: ReadonlyMap<string, ToolBinding> | (() => Promise<ReadonlyMap<string, ToolBinding>>);
  handlers: Readonly<Record<string, AnyHandler>>;
  /** Tools per tools/list page; 0 sends all in one page. */
  pageSize?: number;
  /** Where failures are logged; never stdout (on stdio that is the protocol channel). Default: stderr. */
  onError?: (error: unknown, toolName: string) => void;
}

export interface Dispatcher {
  listTools(cursor?: string): ListToolsResult;
  callTool(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { tools, handlers, pageSize = 0 } = options;
  const names = new Set(tools.map((t) => t.name));
  const source = options.bindings;
  // Once loaded, the bindings are read synchronously: the hot path awaits nothing for them.
  let bindings = typeof source === 'function' ? undefined : source;
  let loading: Promise<ReadonlyMap<string, ToolBinding>> | undefined;
  const onError = options.onError ?? ((error, tool) => console.error(`[toolspec] tool "${tool}" failed:`, error));
  const all: ListToolsResult = { tools: tools as Tool[] };

  return {
    listTools(cursor) {
      if (pageSize <= 0) {
        if (cursor !== undefined)
          throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: this server does not paginate tools/list');
        return all;
      }
      const start = cursor === undefined ? 0 : decodeCursor(cursor, tools.length);
      const end = start + pageSize;
      const page: ListToolsResult = { tools: tools.slice(start, end) as Tool[] };
      if (end < tools.length) page.nextCursor = encodeCursor(end);
      return page;
    },

    async callTool(name, args, ctx) {
      const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
      if (!names.has(name) || !handler)
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}`);
      bindings ??= await (loading ??= (source as () => Promise<ReadonlyMap<string, ToolBinding>>)());
      const binding = bindings.get(name);
      if (!binding) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}`);
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid arguments for tool ${JSON.stringify(name)}: arguments must be an object`,
        );
      }
      const input = args ?? {};
      if (!binding.input(input)) return errorResult(describeInvalidArguments(name, binding.input.errors ?? []));

      let value: unknown;
      try {
        value = await (handler as (a: unknown, c: ToolContext) => unknown)(input, ctx);
      } catch (error) {
        if (error instanceof McpError) throw error;
        if (!(error instanceof ToolError)) onError(error, name);
        return errorResult(
          error instanceof ToolError ? error.message : `Tool ${JSON.stringify(name)} failed: ${messageOf(error)}`,
        );
      }
      return normalizeResult(name, value, binding, onError);
    },
  };
}

/** string → text; a CallToolResult as is; for tools with an outputSchema, the structured value itself. */
function normalizeResult(
  name: string,
  value: unknown,
  binding: ToolBinding,
  onError: (e: unknown, t: string) => void,
): CallToolResult {
  const fail = (why: string) => {
    onError(new Error(why), name);
    return errorResult(`Tool ${JSON.stringify(name)} failed: ${why}`);
  };
  const validateOutput = binding.output;
  if (validateOutput) {
    if (isCallToolResult(value) && !isPlainStructured(value, validateOutput)) {
      if (value.isError) return value;
      if (value.structuredContent === undefined)
        return fail('the result has no structuredContent, which its outputSchema requires');
      if (!validateOutput(value.structuredContent)) return fail(describeInvalidOutput(validateOutput.errors ?? []));
      return value;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail(
        `the handler returned ${describeValue(value)}; this tool returns an object matching its outputSchema`,
      );
    }
    if (!validateOutput(value)) return fail(describeInvalidOutput(validateOutput.errors ?? []));
    const structured = value as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (isCallToolResult(value)) return value;
  return fail(`the handler returned ${describeValue(value)}; return a string or a CallToolResult`);
}

function isCallToolResult(v: unknown): v is CallToolResult {
  return typeof v === 'object' && v !== null && Array.isArray((v as { content?: unknown }).content);
}

/** A structured value that happens to have a `content` array: it matches the outputSchema, so it is the value. */
function isPlainStructured(v: CallToolResult, validate: Validator): boolean {
  return v.structuredContent === undefined && v.isError === undefined && validate(v);
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** One line per failing argument, by path, saying what was expected, so a model can correct its call. */
export function describeInvalidArguments(tool: string, errors: readonly ValidationError[]): string {
  const lines = uniqueLines(errors);
  return `Invalid arguments for tool ${JSON.stringify(tool)}:\n${lines.map((l) => `- ${l}`).join('\n')}\nFix these and call the tool again.`;
}

function describeInvalidOutput(errors: readonly ValidationError[]): string {
  return `its result does not match the outputSchema: ${uniqueLines(errors).join('; ')}`;
}

function uniqueLines(errors: readonly ValidationError[]): string[] {
  return [...new Set(errors.map(describeError))];
}

function describeError(e: ValidationError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return `${argPath(e.instancePath, String(p['missingProperty']))}: is required`;
    case 'additionalProperties':
      return `${argPath(e.instancePath, String(p['additionalProperty']))}: is not an accepted argument`;
    case 'enum':
      return `${argPath(e.instancePath)}: must be one of ${(p['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${argPath(e.instancePath)}: must be ${JSON.stringify(p['allowedValue'])}`;
    default:
      return `${argPath(e.instancePath)}: ${e.message ?? `fails ${e.keyword}`}`;
  }
}

/** "/filters/0/tag" → "filters[0].tag"; the root is "(arguments)". */
function argPath(pointer: string, child?: string): string {
  const segs =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segs.push(child);
  if (!segs.length) return '(arguments)';
  return segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object without a content array' : `a ${typeof v}`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    return String(error);
  }
}

function encodeCursor(offset: number): string {
  return btoa(`tools:${offset}`);
}

function decodeCursor(cursor: string, total: number): number {
  let offset = NaN;
  try {
    const m = /^tools:(\d+)$/.exec(atob(cursor));
    if (m) offset = Number(m[1]);
  } catch {
    // not base64: invalid below
  }
  if (!Number.isInteger(offset) || offset <= 0 || offset >= total) {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: pass back the nextCursor of a previous tools/list');
  }
  return offset;
}
