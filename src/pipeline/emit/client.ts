/**
 * client.ts: the typed client of the server beside it, `connect<Server>(transport)` (templates/runtime/typed-client.ts
 * holds the logic; this is its table). Tools come from tools.ts and are typed by contract.ts's ToolTypes; here are
 * only the prompts' names and the resources' URIs and templates, in the spec's order.
 */
import type { ServerModel } from '../model.js';
import { pascalCase } from '../../core/names.js';
import { commentLine, key, literal, str } from './text.js';

/** `connectNotes` for a server named "notes": the connect function's name, and its client type's (`NotesClient`). */
export function clientNames(model: ServerModel): { connect: string; type: string } {
  const base = pascalCase(model.server.name) ?? 'Server';
  return { connect: `connect${base}`, type: `${base}Client` };
}

export function emitClient(model: ServerModel): string[] {
  const { connect, type } = clientNames(model);
  const name = commentLine(model.server.name);
  const resources = model.resources.map((r) => `${key(r.name)}: ${str(r.uri)},`);
  return [
    `import type { Transport } from '@modelcontextprotocol/client';
import type { PromptTypes, ResourceTypes, ToolTypes } from './contract.js';
import { connectClient, type ClientTable, type ConnectOptions, type TypedClient } from './typed-client.js';

export {
  ResourceInputError,
  ToolInputError,
  ToolOutputError,
  ToolResultError,
  type ConnectOptions,
} from './typed-client.js';
`,
    `/** The tools, prompts and resources of ${name}, typed by the spec (typed-client.ts says what each does). */
export type ${type} = TypedClient<ToolTypes, PromptTypes, ResourceTypes>;
`,
    `const table: ClientTable = {
  prompts: ${literal(model.prompts.map((p) => p.name))},
  resources: {${resources.length ? `\n${resources.join('\n')}\n` : ''}},
};
`,
    `/**
 * Connects to ${name} over \`transport\` (the SDK's StdioClientTransport or StreamableHTTPClientTransport).
 * Arguments are checked before they are sent, structured output when it comes back; an error result throws.
 */
export function ${connect}(transport: Transport, options?: ConnectOptions): Promise<${type}> {
  return connectClient(transport, table, ${str(model.server.name)}, options);
}
`,
  ];
}
