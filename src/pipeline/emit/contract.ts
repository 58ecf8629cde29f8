/**
 * contract.ts: what the spec says each handler gets and returns, as types: one interface per tool (its arguments,
 * its input with defaults filled in, its output), the tools by name (ToolTypes), and the prompts' and resources'
 * arguments and variables (PromptTypes, ResourceTypes). Handler, ToolInputs and the rest are generic types of the
 * runtime (templates/runtime/handler-types.ts) over these, re-exported here.
 */
import type { CompletionModel, ServerModel } from '../model.js';
import { jsdoc, key, str } from './text.js';
import { toolInterface } from './types.js';

export function emitContract(model: ServerModel): string[] {
  const table = (doc: string, name: string, rows: string[]) =>
    `/** ${doc} */\nexport interface ${name} {\n${rows.join('\n')}\n}\n`;
  const fields = (list: { name: string; required: boolean; description?: string | undefined }[]) =>
    list.length
      ? `{\n${list.map((f) => `${jsdoc(f.description)}${key(f.name)}${f.required ? '' : '?'}: string;`).join('\n')}\n}`
      : 'Record<string, never>';
  const completes = (list: { name: string; complete?: CompletionModel | undefined }[]) => {
    const names = list.filter((x) => x.complete === 'handler').map((x) => str(x.name));
    return names.length ? ` completes: ${names.join(' | ')};` : '';
  };
  return [
    `${model.tools.length ? "import type * as T from './types.js';\n\n" : ''}export type * from './types.js';
export type * from './handler-types.js';
`,
    table(
      'Every tool by name: what its handler receives and returns (Handler, ToolInputs, ToolResults: handler-types.ts).',
      'ToolTypes',
      model.tools.map((t) => `${key(t.name)}: T.${toolInterface(t.typeName)};`),
    ),
    table(
      "Every prompt by name: its arguments, and those its module's `complete` export completes.",
      'PromptTypes',
      model.prompts.map(
        (p) =>
          `${jsdoc(p.definition.description)}${key(p.name)}: { arguments: ${fields(p.arguments)};${completes(p.arguments)} };`,
      ),
    ),
    table(
      "Every resource and template by name: its variables, and those its module's `complete` export completes.",
      'ResourceTypes',
      model.resources.map(
        (r) =>
          `${jsdoc(r.definition.description ?? r.uri)}${key(r.name)}: { variables: ${fields(
            r.variables.map((v) => ({ ...v, required: v.operator === '' || v.operator === '+' })),
          )};${completes(r.variables)} };`,
      ),
    ),
  ];
}
