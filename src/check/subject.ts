/** What the check reads of a project: its folders and, per tool, its type names, input schema and handler module. */
import path from 'node:path';
import { handlerFileName } from '../emit/bindings.js';
import { toolTypeNames } from '../emit/types.js';
import type { ServerModel } from '../model.js';
import type { StateTool } from '../state.js';
import { promptHandlerFile, resourceHandlerFile } from '../emit/primitives.js';
import type { PrimitiveHandler } from './primitives.js';

export interface CheckSubject {
  rootDir: string;
  /** Absolute. */
  generatedDir: string;
  /** Absolute. */
  handlersDir: string;
  tools: StateTool[];
  /** The prompts' and resources' handler modules. */
  primitives?: PrimitiveHandler[];
}

export function subjectOf(model: ServerModel): CheckSubject {
  const names = toolTypeNames(model);
  const handlersDir = path.resolve(model.rootDir, model.options.handlersDir);
  return {
    rootDir: model.rootDir,
    generatedDir: path.resolve(model.rootDir, model.options.generatedDir),
    handlersDir,
    tools: model.tools.map((t) => {
      const n = names.get(t.name)!;
      return {
        name: t.name,
        input: n.input,
        ...(n.output ? { output: n.output } : {}),
        inputSchema: t.input.schema,
        handler: path.join(handlersDir, handlerFileName(t)),
        ...(t.renamedFrom ? { renamedFrom: t.renamedFrom } : {}),
        source: t.source,
      };
    }),
    primitives: [
      ...model.prompts.map((p) => ({
        kind: 'prompt' as const,
        name: p.name,
        handler: path.resolve(model.rootDir, promptHandlerFile(model, p)),
      })),
      ...model.resources.map((r) => ({
        kind: 'resource' as const,
        name: r.name,
        handler: path.resolve(model.rootDir, resourceHandlerFile(model, r)),
      })),
    ],
  };
}
