/**
 * Stage 3, model: one normalized, resolved description of the server. Emitters see only this, never YAML.
 * Everything in it is plain data (JSON-serialisable), in the author's tool order.
 */
import type { Span } from '../core/diagnostics.js';
import type { Options } from '../core/options.js';
import type { Dialect } from './schema/keywords.js';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  instructions?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What every MCP primitive, and a prompt's arguments, carry. */
interface Named {
  name: string;
  title?: string;
  description?: string;
}

/** The MCP Tool object, exactly as tools/list sends it. */
export interface ToolDefinition extends Named {
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Record<string, unknown>;
}

export interface SchemaModel {
  /** As sent to clients: the author's schema with the shared $defs it uses bundled in. */
  schema: Record<string, unknown>;
  dialect: Dialect;
  /** Names under the schema's $defs that were bundled from the spec's shared $defs, sorted. */
  sharedDefs: string[];
}

export type SchemaKind = 'input' | 'output';

/**
 * A schema's validator as ajv's standalone code (CommonJS text), compiled by the loader from that schema alone and
 * handed to generate beside the model: the same schema gives the same code, whatever else the spec holds.
 */
export interface ValidatorCode {
  source: string;
  /** Property names the schema shares with Object.prototype: compiled renamed, and guarded at run time. */
  inherited: string[];
}

/** The loader's compiled validators, by tool name: what generate turns into validators.ts. */
export type CompiledValidators = ReadonlyMap<string, { input: ValidatorCode; output?: ValidatorCode }>;

export interface ExampleModel {
  name?: string;
  arguments: Record<string, unknown>;
  invalid: boolean;
  expect?: ExampleExpectation;
  /**
   * For an invalid example: the arguments the input schema's errors name, as the dispatcher writes their paths
   * (`filters[0].tag`, `(arguments)` for the whole object). Its contract test checks the rejection names each.
   */
  rejected?: string[];
}

/**
 * What an example's tools/call, prompts/get or resources/read must give (the spec's `expect`). `isError` true: it
 * fails (a call with an error result, a get or a read with a JSON-RPC error); false: it must not (the default for
 * valid examples). `text`: what the result's text (a call's text content; the messages' or contents' texts, joined
 * by newlines) contains. `error`: what the error message contains; it must fail.
 */
interface Expectation {
  isError?: boolean;
  text?: string;
  error?: string;
}

export interface ExampleExpectation extends Expectation {
  /** A subset of the structured result: objects match when every listed key matches, arrays element by element. */
  structuredContent?: Record<string, unknown>;
}

export type SourcePosition = Pick<Span, 'file' | 'line' | 'column'>;

/** One argument a 2026-07-28 client mirrors into an Mcp-Param-* header (x-mcp-header): its path of property names and its JSON type. */
export interface McpHeaderDeclaration {
  header: string;
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

export interface ToolModel {
  name: string;
  /** PascalCase base of the tool's TypeScript names: `${typeName}Input`, `${typeName}Output`. */
  typeName: string;
  input: SchemaModel;
  output?: SchemaModel;
  examples: ExampleModel[];
  /** The input schema's x-mcp-header declarations, in schema order (checked by validate). */
  mcpHeaders: McpHeaderDeclaration[];
  /** The tool's own time limit (spec `timeout`), in milliseconds; options.timeoutMs applies when absent. */
  timeoutMs?: number;
  definition: ToolDefinition;
  /**
   * The tool's former names (spec `renamedFrom`, a string or a list), in the author's order: generate moves a former
   * name's handler module to this tool's, diff reports a rename. Not sent to clients.
   */
  renamedFrom?: string[];
  /** Why the tool is deprecated (spec `deprecated`); also at the head of definition.description. */
  deprecated?: string;
  /** Whether the tool runs as a task for 2026-07-28 clients with the tasks extension (spec `task`). */
  task?: 'optional' | 'required';
  /** The OAuth scopes a token needs to call it (spec `scopes`), when the tool names its own; else auth.scopes. */
  scopes?: string[];
  /** Where the tool is written, for messages. */
  source: SourcePosition;
}

/** How a prompt argument or template variable is completed: a fixed list, or the module's `complete` export. */
export type CompletionModel = string[] | 'handler';

export interface PromptArgumentModel extends Named {
  required: boolean;
  complete?: CompletionModel;
}

/** The MCP Prompt object, exactly as prompts/list sends it. */
export interface PromptDefinition extends Named {
  arguments?: (Named & { required?: boolean })[];
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface PromptModel {
  name: string;
  /** PascalCase base of the prompt's TypeScript names. */
  typeName: string;
  arguments: PromptArgumentModel[];
  definition: PromptDefinition;
  /** The spec's examples: prompts/get calls that become contract tests, in the author's order. */
  examples: PromptExampleModel[];
  /** Its own scopes (spec `scopes`); else auth.scopes. */
  scopes?: string[];
  source: SourcePosition;
}

/**
 * One prompt example: the arguments of a prompts/get and what it must return (the tools' examples, for prompts).
 * An invalid one's arguments prompts/get must refuse (an undeclared one, one that is not a string, a required one
 * missing); `rejected` then holds the argument the refusal names (prompts/get names the first it finds, as validate
 * does).
 */
export interface PromptExampleModel extends Omit<ExampleModel, 'expect'> {
  expect?: PromptExpectation;
}

export interface PromptExpectation extends Expectation {
  /** The messages, as a subset: as many as listed, each matching (vitest's toMatchObject). */
  messages?: unknown[];
}

/** One resource example: a URI to read and what the read must return. */
export interface ResourceExampleModel {
  name?: string;
  /** The URI read: the resource's own, or one its template matches (checked by validate). */
  uri: string;
  expect?: ResourceExpectation;
}

export interface ResourceExpectation extends Expectation {
  /** true: the read must answer "resource not found" (-32602 with the URI in its data). */
  notFound?: boolean;
  /** The MIME type of every content read. */
  mimeType?: string;
  /** The contents, as a subset: as many as listed, each matching (vitest's toMatchObject). */
  contents?: unknown[];
}

/** The MCP Resource object (resources/list) or ResourceTemplate object (resources/templates/list), as sent. */
export interface ResourceDefinition extends Named {
  uri?: string;
  uriTemplate?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string };
  _meta?: Record<string, unknown>;
}

export interface TemplateVariableModel {
  name: string;
  /** '' one path segment, '+' several segments, '?' / '&' an optional query parameter. */
  operator: '' | '+' | '?' | '&';
  description?: string;
  complete?: CompletionModel;
}

/** A resource with a fixed URI (kind "resource") or a resource template (kind "template"); names share one namespace. */
export interface ResourceModel {
  kind: 'resource' | 'template';
  name: string;
  /** PascalCase base of its TypeScript names. */
  typeName: string;
  /** The URI, or the URI template. */
  uri: string;
  /** A template's variables, in template order; none for a fixed URI. */
  variables: TemplateVariableModel[];
  definition: ResourceDefinition;
  /** The spec's examples: reads that become contract tests, in the author's order. */
  examples: ResourceExampleModel[];
  /** Its own scopes (spec `scopes`); else auth.scopes. */
  scopes?: string[];
  source: SourcePosition;
}

/**
 * The spec's `auth`: the server over HTTP is an OAuth 2.1 resource server (RFC 9728 metadata, bearer tokens checked
 * against the issuer, the resource and each operation's scopes). Deployment may override the URLs from the
 * environment; secrets never appear here.
 */
export interface AuthModel {
  issuer: string;
  /** The server's canonical URL: the audience its tokens must name (RFC 8707). */
  resource: string;
  jwksUri?: string;
  algorithms: string[];
  clockSkewSeconds: number;
  introspection?: string;
  /** The scopes of a tool, prompt or resource that names none. */
  scopes: string[];
  filterList: boolean;
}

export interface ServerModel {
  /** The spec file as the user named it (relative to the working directory when inside it). */
  specFile: string;
  /** The spec's folder, absolute: the base of every option path. Not part of any output. */
  rootDir: string;
  /** Every file the spec consists of, main first. */
  files: string[];
  server: ServerInfo;
  /** The server's MCP Registry entry (spec `server.registry`): generate writes server.json. Not sent to clients. */
  registry?: { name: string; description?: string; repository?: string; remote?: string };
  /** Absent: the server takes no tokens (an `authenticate` hook may still be given in code). */
  auth?: AuthModel;
  options: Options;
  tools: ToolModel[];
  /** Prompts, in the author's order. */
  prompts: PromptModel[];
  /** Resources with fixed URIs, then resource templates, each in the author's order. */
  resources: ResourceModel[];
}
