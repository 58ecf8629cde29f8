/**
 * A handler stub for a tool that has none yet: typed against the contract, and failing with a clear tool error
 * until it is written. Created once; the file is the user's from then on.
 */
import type { ServerModel, ToolModel } from '../model.js';
import { generatedFrom } from './primitives.js';
import { commentBody, str } from './text.js';

export function emitStub(model: ServerModel, tool: ToolModel, file: string): string[] {
  const from = generatedFrom(model, file);
  const doc = [tool.name, tool.definition.title, tool.definition.description].filter(Boolean).join('\n\n');
  return [
    `import type { Handler } from ${str(`${from}/contract.js`)};
import { ToolError } from ${str(`${from}/dispatcher.js`)};
`,
    `/**
${commentBody(doc)}
 */
export const handler: Handler<${str(tool.name)}> = async (_args, _ctx) => {
  throw new ToolError(${str(`${tool.name} is not implemented yet: write it in ${file}`)});
};
`,
  ];
}
