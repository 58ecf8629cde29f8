/**
 * contract.ts: the typed handler contract. `ToolHandlers` has one method per tool; `Handler<'name'>` types one
 * handler module; `ToolInputs`/`ToolArguments`/`ToolResults` map tool names to their types.
 */
import type { ServerModel } from '../model.js';
import { emitPrimitivesContract } from './primitives.js';
import { jsdoc, key } from './text.js';
import { toolTypeNames } from './types.js';

export function emitContract(model: ServerModel): string {
  const names = toolTypeNames(model);
  const entries = (pick: (t: ServerModel['tools'][number]) => string) =>
    model.tools.map((t) => `${jsdoc(t.definition.description, '  ')}  ${key(t.name)}: ${pick(t)};`).join('\n');
  // An interface with no members is `{}`, as prettier writes it (a server of prompts and resources only).
  const block = (head: string, body: string) => (body ? `${head} {\n${body}\n}` : `${head} {}`);
  const primitives = emitPrimitivesContract(model);
  return `import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolContext } from './context.js';
${primitives.imports}import type * as T from './types.js';

export type { ToolContext } from './context.js';
export type * from './types.js';

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

/** Each tool's arguments as the handler receives them: validated, with schema defaults filled in. */
${block(
  'export interface ToolInputs',
  entries((t) => `T.${names.get(t.name)!.input}`),
)}

/** Each tool's arguments as a client sends them (defaults not yet applied). */
${block(
  'export interface ToolArguments',
  entries((t) => `T.${names.get(t.name)!.args}`),
)}

/** What each tool's handler may return. */
${block(
  'export interface ToolResults',
  entries((t) => (t.output ? `StructuredResult<T.${names.get(t.name)!.output}>` : 'TextResult')),
)}

export type ToolName = keyof ToolInputs;

/** One tool's handler: \`export const handler: Handler<'my_tool'> = async (args, ctx) => …\`. */
export type Handler<Name extends ToolName> = (
  args: ToolInputs[Name],
  ctx: ToolContext,
) => ToolResults[Name] | Promise<ToolResults[Name]>;

/** Every tool's handler. */
export type ToolHandlers = { [Name in ToolName]: Handler<Name> };
${primitives.body}`;
}
