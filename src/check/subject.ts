/** What the check reads of a project: its folders and, per tool, its type names, input schema and handler module. */
import path from 'node:path';
import { handlerFileName } from '../core/names.js';
import { toolTypeNames } from '../pipeline/emit/types.js';
import type { ServerModel } from '../pipeline/model.js';
import { promptHandlerFile, resourceHandlerFile } from '../pipeline/emit/primitives.js';

/** A prompt's or resource's handler module. */
export interface PrimitiveHandler {
  kind: 'prompt' | 'resource';
  name: string;
  /** Absolute path of its module. */
  handler: string;
}

export interface SubjectTool {
  name: string;
  /** The type names of its input and output in types.ts. */
  input: string;
  output?: string;
  inputSchema: Record<string, unknown>;
  /** Absolute path of the tool's handler module. */
  handler: string;
  /** The tool's former names (spec `renamedFrom`): whose handler modules are this tool's to take. */
  renamedFrom?: string[];
  /** Where the spec defines the tool, as shown in messages. */
  source?: { file: string; line: number; column: number };
}

export interface CheckSubject {
  rootDir: string;
  /** Absolute. */
  generatedDir: string;
  /** Absolute. */
  handlersDir: string;
  tools: SubjectTool[];
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
