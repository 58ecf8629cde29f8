/**
 * The types handlers are written against, over the spec's own types that the generated contract.ts declares
 * (ToolTypes, PromptTypes, ResourceTypes): what each handler receives and may return, and what its module exports.
 * contract.ts re-exports all of it, so handlers import from there.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolContext } from './context.js';
import type { PromptTypes, ResourceTypes, ToolTypes } from './contract.js';
import type { Completer, PromptContext, PromptResult, ResourceContext, ResourceResult } from './primitive-types.js';

export type { ToolContext } from './context.js';
export type { Completer, PromptContext, PromptResult, ResourceContext, ResourceResult } from './primitive-types.js';

/** What a handler of a tool without an outputSchema returns: text, or a full CallToolResult. */
export type TextResult = string | CallToolResult;

/**
 * CallToolResult's named fields, without its index signature: with it, any object shares a key with the result
 * types, and the compiler explains a wrong structured value against them ("Property 'content' is missing") instead
 * of against the output type, where it names the field.
 */
export type ResultFields = { [K in keyof CallToolResult as string extends K ? never : K]: CallToolResult[K] };

/**
 * What a handler of a tool with an outputSchema returns: the structured value itself (sent as structuredContent
 * plus a JSON text block), a CallToolResult carrying it, or an error result.
 */
export type StructuredResult<Output> =
  Output | (ResultFields & { structuredContent: Output }) | (ResultFields & { isError: true });

export type ToolName = keyof ToolTypes;

/** Each tool's arguments as the handler receives them: validated, with schema defaults filled in. */
export type ToolInputs = { [Name in ToolName]: ToolTypes[Name]['input'] };

/** Each tool's arguments as a client sends them (defaults not yet applied). */
export type ToolArguments = { [Name in ToolName]: ToolTypes[Name]['arguments'] };

/** What each tool's handler may return. */
export type ToolResults = {
  [Name in ToolName]: ToolTypes[Name] extends { output: infer Output } ? StructuredResult<Output> : TextResult;
};

/** One tool's handler: `export const handler: Handler<'my_tool'> = async (args, ctx) => …`. */
export type Handler<Name extends ToolName> = (
  args: ToolInputs[Name],
  ctx: ToolContext,
) => ToolResults[Name] | Promise<ToolResults[Name]>;

/** Every tool's handler. */
export type ToolHandlers = { [Name in ToolName]: Handler<Name> };

export type PromptName = keyof PromptTypes;

/** Each prompt's arguments as its handler receives them: the required ones are always there. */
export type PromptArguments = { [Name in PromptName]: PromptTypes[Name]['arguments'] };

/** One prompt's handler: `export const handler: PromptHandler<'my_prompt'> = async (args, ctx) => …`. */
export type PromptHandler<Name extends PromptName> = (
  args: PromptArguments[Name],
  ctx: PromptContext,
) => PromptResult | Promise<PromptResult>;

/** The completion of the arguments marked `complete: handler`, by prompt: the module's `complete` export. */
export type PromptCompleters = {
  [Name in PromptName as PromptTypes[Name] extends { completes: string } ? Name : never]: PromptTypes[Name] extends {
    completes: infer Args extends string;
  }
    ? { [Arg in Args]: Completer<PromptArguments[Name]> }
    : never;
};

export type PromptCompleter<Name extends keyof PromptCompleters> = PromptCompleters[Name];

/** What a prompt's handler module exports. */
export type PromptModule<Name extends PromptName> = {
  handler: PromptHandler<Name>;
} & (Name extends keyof PromptCompleters ? { complete: PromptCompleters[Name] } : unknown);

export type ResourceName = keyof ResourceTypes;

/**
 * Each resource's variables as its handler receives them, by name: a template's, decoded (path variables always
 * there, query parameters when given); none for a resource with a fixed URI.
 */
export type ResourceVariables = { [Name in ResourceName]: ResourceTypes[Name]['variables'] };

/**
 * One resource's handler: `export const handler: ResourceHandler<'my_resource'> = async (variables, ctx) => …`.
 * It returns the content (text, bytes, or contents with their own URIs and MIME types), or undefined when there is
 * no such resource (the client gets "resource not found").
 */
export type ResourceHandler<Name extends ResourceName> = (
  variables: ResourceVariables[Name],
  ctx: ResourceContext,
) => ResourceResult | Promise<ResourceResult>;

/** The completion of the template variables marked `complete: handler`, by resource template. */
export type ResourceCompleters = {
  [
    Name in ResourceName as ResourceTypes[Name] extends { completes: string } ? Name : never
  ]: ResourceTypes[Name] extends {
    completes: infer Variables extends string;
  }
    ? { [Variable in Variables]: Completer<ResourceVariables[Name]> }
    : never;
};

export type ResourceCompleter<Name extends keyof ResourceCompleters> = ResourceCompleters[Name];

/** What a resource's handler module exports. */
export type ResourceModule<Name extends ResourceName> = {
  handler: ResourceHandler<Name>;
} & (Name extends keyof ResourceCompleters ? { complete: ResourceCompleters[Name] } : unknown);
