/**
 * What the check reads of a project: its folders (absolute paths); per tool, the type names of its input and output
 * in types.ts, its input schema, its handler module (absolute), its former names (spec `renamedFrom`: whose handler
 * modules are this tool's to take) and where the spec defines it; and the prompts' and resources' handler modules.
 */
import path from 'node:path';
import { toolTypeNames } from '../pipeline/emit/types.js';
import type { ServerModel } from '../pipeline/model.js';
import { handlerFile } from '../pipeline/emit/primitives.js';

export type CheckSubject = ReturnType<typeof subjectOf>;
export type SubjectTool = CheckSubject['tools'][number];
export type PrimitiveHandler = CheckSubject['primitives'][number];

export function subjectOf(model: ServerModel) {
  const handlersDir = path.resolve(model.rootDir, model.options.handlersDir);
  const primitive = (kind: 'prompt' | 'resource', name: string, file: string) => ({
    kind,
    name,
    handler: path.resolve(model.rootDir, file),
  });
  return {
    rootDir: model.rootDir,
    generatedDir: path.resolve(model.rootDir, model.options.generatedDir),
    handlersDir,
    tools: model.tools.map((t) => {
      const n = toolTypeNames(t);
      return {
        name: t.name,
        input: n.input,
        ...(n.output ? { output: n.output } : {}),
        inputSchema: t.input.schema,
        handler: path.resolve(model.rootDir, handlerFile(model, t)),
        ...(t.renamedFrom ? { renamedFrom: t.renamedFrom } : {}),
        source: t.source,
      };
    }),
    primitives: [
      ...model.prompts.map((p) => primitive('prompt', p.name, handlerFile(model, p))),
      ...model.resources.map((r) => primitive('resource', r.name, handlerFile(model, r))),
    ],
  };
}
