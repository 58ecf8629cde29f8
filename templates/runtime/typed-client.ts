/**
 * The typed client of the generated server, on the SDK's v2 `Client`: the generated client.ts is a thin table over
 * this module (the spec's prompts and resources; the tools come from tools.ts), typed by contract.ts.
 *
 * - A tool's arguments are checked before anything is sent, by the precompiled validators the server's dispatcher
 *   uses (tools.ts `loadBindings`): bad input throws ToolInputError and never reaches the server.
 * - A tool with an outputSchema resolves to its structured output, checked by the same validators on return (a
 *   value that does not match throws ToolOutputError); a tool without one resolves to the CallToolResult.
 * - A result marked `isError` throws ToolResultError, which carries the result: a call resolves only on success.
 * - A resource template's variables are expanded into its URI (RFC 6570, the expressions resource templates use).
 */
import {
  Client,
  type CallToolRequestOptions,
  type CallToolResult,
  type ClientOptions,
  type GetPromptResult,
  type Implementation,
  type ReadResourceResult,
  type RequestOptions,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { argumentPath, type ValidationError, type Validator } from './arguments.js';
import { loadBindings, objectOutputs, tools as toolList } from './tools.js';
import { parseUriTemplate, type TemplatePart } from './uri-template.js';

/** What the generated client.ts gives besides the types: the spec's prompts, and its resources' URIs by name. */
export interface ClientTable {
  prompts: readonly string[];
  /** Each resource's URI, or each template's URI template, by name. */
  resources: Readonly<Record<string, string>>;
}

/** connect's options: the SDK client's (era, capabilities, …) and the name the client gives itself. */
export interface ConnectOptions extends ClientOptions {
  /** The client's name and version sent to the server; default `{ name: '<server>-client', version }`. */
  clientInfo?: Implementation;
  /** Passed to the SDK's connect (a timeout, a signal). */
  connect?: RequestOptions;
}

type Arguments<T> = T extends { arguments: infer A } ? A : never;
type Variables<T> = T extends { variables: infer V } ? V : never;
/** An argument that may be left out when nothing in it is required. */
type Params<A, O> = object extends A ? [input?: A, options?: O] : [input: A, options?: O];

/** Each tool: its arguments in, its structured output out (the CallToolResult for a tool without an outputSchema). */
export type ToolCalls<Tools> = {
  readonly [Name in keyof Tools]: (
    ...params: Params<Arguments<Tools[Name]>, RequestOptions>
  ) => Promise<Tools[Name] extends { output: infer Output } ? Output : CallToolResult>;
};

/** Each prompt: its arguments in, the GetPromptResult out. */
export type PromptCalls<Prompts> = {
  readonly [Name in keyof Prompts]: (
    ...params: Params<Arguments<Prompts[Name]>, RequestOptions>
  ) => Promise<GetPromptResult>;
};

/** Each resource and template: its variables in (none for a fixed URI), the ReadResourceResult out. */
export type ResourceReads<Resources> = {
  readonly [Name in keyof Resources]: (
    ...params: Params<Variables<Resources[Name]>, RequestOptions>
  ) => Promise<ReadResourceResult>;
};

export interface TypedClient<Tools, Prompts, Resources> {
  readonly tools: ToolCalls<Tools>;
  readonly prompts: PromptCalls<Prompts>;
  readonly resources: ResourceReads<Resources>;
  /** The SDK's client underneath, for what the table does not cover (lists, completion, subscriptions). */
  readonly client: Client;
  close(): Promise<void>;
}

/** A tool's arguments fail its inputSchema: thrown before the call is sent. */
export class ToolInputError extends Error {
  /** The first failing argument's path (`filters[0].tag`; `(arguments)` for the whole object). */
  readonly path: string;
  constructor(
    readonly tool: string,
    readonly errors: readonly ValidationError[],
    input: unknown,
  ) {
    const first = describe(errors, input, '(arguments)');
    super(`Invalid arguments for tool ${JSON.stringify(tool)} (not sent): ${first.text}`);
    this.name = 'ToolInputError';
    this.path = first.path;
  }
}

/** A tool's structured output is missing or fails its outputSchema. */
export class ToolOutputError extends Error {
  /** The first failing field's path (`hits[0].url`; `(output)` for the whole value). */
  readonly path: string;
  constructor(
    readonly tool: string,
    readonly errors: readonly ValidationError[],
    readonly value: unknown,
  ) {
    const first = describe(errors, value, '(output)');
    super(
      value === undefined
        ? `Tool ${JSON.stringify(tool)} returned no structured output, which its outputSchema requires`
        : `Tool ${JSON.stringify(tool)} returned output that does not match its outputSchema: ${first.text}`,
    );
    this.name = 'ToolOutputError';
    this.path = first.path;
  }
}

/** The tool ran and reported a failure (`isError: true`): its text is the message, the whole result is kept. */
export class ToolResultError extends Error {
  constructor(
    readonly tool: string,
    readonly result: CallToolResult,
  ) {
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    super(`Tool ${JSON.stringify(tool)} failed: ${text || 'an error result without text'}`);
    this.name = 'ToolResultError';
  }
}

/** A resource template's required variable is missing. */
export class ResourceInputError extends Error {
  constructor(
    readonly resource: string,
    readonly variable: string,
  ) {
    super(`Resource ${JSON.stringify(resource)} needs the variable ${JSON.stringify(variable)} (not sent)`);
    this.name = 'ResourceInputError';
  }
}

/** The first error as `path: what is wrong`, and its path. */
function describe(errors: readonly ValidationError[], data: unknown, root: string): { path: string; text: string } {
  const e = errors[0];
  if (!e) return { path: root, text: `${root}: is not valid` };
  const child = e.params['missingProperty'] ?? e.params['additionalProperty'];
  const at = argumentPath(e.instancePath, child === undefined ? undefined : String(child), data);
  const path = at === '(arguments)' ? root : at;
  const what =
    e.keyword === 'required'
      ? 'is required'
      : e.keyword === 'additionalProperties'
        ? 'is not accepted'
        : (e.message ?? `fails ${e.keyword}`);
  return { path, text: `${path}: ${what}` };
}

/** Runs a validator on a copy: the caller's value is never changed (input validators fill in defaults). */
function check(validate: Validator, value: unknown): readonly ValidationError[] | undefined {
  let copy: unknown;
  try {
    copy = structuredClone(value);
  } catch {
    return [{ instancePath: '', keyword: 'type', params: {}, message: 'is not JSON data' }];
  }
  return validate(copy) ? undefined : (validate.errors ?? []);
}

/** The tools 2025 servers wrap as `{ result }`: their output schema's root is not an object (legacyTools). */
const wrapped = new Set(
  toolList.flatMap((t) =>
    t.outputSchema && t.outputSchema.type !== 'object' && !objectOutputs.includes(t.name) ? [t.name] : [],
  ),
);

/**
 * Connects to the server over `transport` and returns its typed tools, prompts and resources. The era is the SDK
 * client's `versionNegotiation` (default here: `auto`, 2026-07-28 when the server offers it, else 2025).
 */
export async function connectClient<Tools, Prompts, Resources>(
  transport: Transport,
  table: ClientTable,
  serverName: string,
  { clientInfo, connect, ...options }: ConnectOptions = {},
): Promise<TypedClient<Tools, Prompts, Resources>> {
  const client = new Client(clientInfo ?? { name: `${serverName}-client`, version: '1.0.0' }, {
    versionNegotiation: { mode: 'auto' },
    ...options,
  });
  await client.connect(transport, connect);
  const define = (target: object, name: string, value: unknown) =>
    Object.defineProperty(target, name, { value, enumerable: true });

  const tools = {};
  for (const tool of toolList) {
    // Sent for Mcp-Param-* header mirroring (x-mcp-header) without a tools/list; without its outputSchema, which
    // the validators check here instead of the SDK's run-time compile.
    const { outputSchema: _output, ...definition } = tool as Tool;
    define(tools, tool.name, async (input: unknown = {}, request?: RequestOptions) => {
      const binding = (await loadBindings()).get(tool.name);
      if (!binding) throw new Error(`no validators for tool ${JSON.stringify(tool.name)}`);
      const invalid = check(binding.input, input);
      if (invalid) throw new ToolInputError(tool.name, invalid, input);
      const options: CallToolRequestOptions = { ...request, toolDefinition: definition };
      const result = await client.callTool({ name: tool.name, arguments: input as Record<string, unknown> }, options);
      if (result.isError) throw new ToolResultError(tool.name, result);
      if (!binding.output) return result;
      let value = result.structuredContent;
      if (client.getProtocolEra() !== 'modern' && wrapped.has(tool.name) && isRecord(value)) value = value['result'];
      if (value === undefined) throw new ToolOutputError(tool.name, [], undefined);
      const bad = check(binding.output, value);
      if (bad) throw new ToolOutputError(tool.name, bad, value);
      return value;
    });
  }

  const prompts = {};
  for (const name of table.prompts) {
    define(prompts, name, (args: Record<string, string> = {}, request?: RequestOptions) =>
      client.getPrompt({ name, arguments: args }, request),
    );
  }

  const resources = {};
  for (const [name, uri] of Object.entries(table.resources)) {
    const parsed = parseUriTemplate(uri);
    if ('error' in parsed) throw new Error(`resource ${JSON.stringify(name)}: ${parsed.error.message}`);
    const { parts } = parsed.template;
    define(resources, name, (variables: Record<string, string | undefined> = {}, request?: RequestOptions) =>
      client.readResource({ uri: expand(name, parts, variables) }, request),
    );
  }

  return {
    tools: tools as ToolCalls<Tools>,
    prompts: prompts as PromptCalls<Prompts>,
    resources: resources as ResourceReads<Resources>,
    client,
    close: () => client.close(),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every character but the unreserved ones, percent-encoded (RFC 6570 simple expansion). */
const encode = (v: string) =>
  encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Reserved characters and percent-escapes kept (RFC 6570 reserved expansion, `{+path}`). */
const encodeReserved = (v: string) =>
  v
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((s, i) => (i % 2 ? s : encodeURI(s)))
    .join('');

/**
 * The URI a template's parts make with these variables: path variables required, query parameters when given (the
 * first one given after `?`, the rest after `&`, whichever expression names them).
 */
export function expand(
  resource: string,
  parts: readonly TemplatePart[],
  variables: Readonly<Record<string, string | undefined>>,
): string {
  const value = (name: string) => (Object.hasOwn(variables, name) ? variables[name] : undefined);
  let uri = '';
  let query = false;
  for (const part of parts) {
    if ('literal' in part) {
      uri += part.literal;
      query ||= part.literal.includes('?');
    } else if (part.operator === '?' || part.operator === '&') {
      for (const n of part.names) {
        const v = value(n);
        if (v === undefined) continue;
        uri += `${query ? '&' : '?'}${n}=${encode(v)}`;
        query = true;
      }
    } else {
      uri += part.names
        .map((n) => {
          const v = value(n);
          if (v === undefined) throw new ResourceInputError(resource, n);
          return part.operator === '+' ? encodeReserved(v) : encode(v);
        })
        .join(',');
    }
  }
  return uri;
}
