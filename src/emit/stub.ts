/**
 * A handler stub for a tool that has none yet: typed against the contract, and failing with a clear tool error
 * until it is written. Created once; the file is the user's from then on.
 */
import path from 'node:path';
import type { ServerModel, ToolModel } from '../model.js';
import { PRINT_WIDTH } from './layout.js';
import { commentBody, tsStr } from './text.js';

export function emitStub(model: ServerModel, tool: ToolModel, file: string): string {
  const gen = path.posix.relative(path.posix.dirname(file), model.options.generatedDir);
  const from = gen.startsWith('.') ? gen : `./${gen}`;
  const doc = [tool.name, tool.definition.title, tool.definition.description].filter(Boolean).join('\n\n');
  return `import type { Handler } from ${tsStr(`${from}/contract.js`)};
import { ToolError } from ${tsStr(`${from}/dispatcher.js`)};

/**
${commentBody(doc)}
 */
export const handler: Handler<${tsStr(tool.name)}> = async (_args, _ctx) => {
${call('  throw new ToolError', tsStr(`${tool.name} is not implemented yet: write it in ${file}`))}
};
`;
}

/** `head(arg);` on one line when it fits, else the argument on a line of its own, as prettier does. */
function call(head: string, arg: string): string {
  const one = `${head}(${arg});`;
  return one.length <= PRINT_WIDTH ? one : `${head}(\n  ${head.match(/^\s*/)![0]}${arg},\n${head.match(/^\s*/)![0]});`;
}
