/**
 * Prompts, resources and resource templates: primitives.ts (the static prompts/list, resources/list and resources/templates/list
 * payloads, what the server checks per prompt and resource, and each one bound to its handler module), and their
 * handler stubs (src/handlers/prompts/<name>.ts, src/handlers/resources/<name>.ts).
 */
import path from 'node:path';
import type { PromptArgumentModel, PromptModel, ResourceModel, ServerModel } from '../model.js';
import { handlerFileName } from '../../core/names.js';
import { commentBody, commentLine, key, literal, str } from './text.js';

/** Where a prompt's or a resource's handler module is: in its own folder below options.handlersDir. */
const handlerIn = (folder: string) => (model: ServerModel, item: PromptModel | ResourceModel) =>
  path.posix.join(model.options.handlersDir, folder, handlerFileName(item));
export const promptHandlerFile = handlerIn('prompts');
export const resourceHandlerFile = handlerIn('resources');

/** The import specifier of a module of the project, from the generated folder. */
export function importFromGenerated(model: ServerModel, file: string): string {
  const rel = path.posix.relative(model.options.generatedDir, file).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** primitives.ts: written for every spec; its lists are empty when the spec has no prompts or resources. */
export function emitPrimitives(model: ServerModel): string[] {
  const prompts = model.prompts.map((p) => p.definition);
  const resources = model.resources.filter((r) => r.kind === 'resource').map((r) => r.definition);
  const templates = model.resources.filter((r) => r.kind === 'template').map((r) => r.definition);
  const rule = ({ name, required, complete }: PromptArgumentModel) => ({
    name,
    required,
    ...(complete && { complete }),
  });
  const promptRules = Object.fromEntries(model.prompts.map((p) => [p.name, { arguments: p.arguments.map(rule) }]));
  const resourceRules = model.resources.map((r) => ({
    name: r.name,
    ...(r.kind === 'resource' ? { uri: r.uri } : { uriTemplate: r.uri }),
    ...(r.definition.mimeType === undefined ? {} : { mimeType: r.definition.mimeType }),
    complete: Object.fromEntries(r.variables.flatMap((v) => (v.complete ? [[v.name, v.complete]] : []))),
  }));
  /** `promptModules` or `resourceModules`: each name bound to its module (`[name, file]`). */
  const modules = (kind: 'Prompt' | 'Resource', list: [string, string][]): string => {
    const name = `${kind.toLowerCase()}Modules`;
    const rows = list.map(([n, file]) => `${key(n)}: () => import(${str(importFromGenerated(model, file))}),`);
    const type = `{ [Name in ${kind}Name]: () => Promise<${kind}Module<Name>> }`;
    return list.length ? `export const ${name}: ${type} = {\n${rows.join('\n')}\n};\n` : `export const ${name} = {};\n`;
  };
  const contractImports = [
    ...(model.prompts.length ? ['PromptModule', 'PromptName'] : []),
    ...(model.resources.length ? ['ResourceModule', 'ResourceName'] : []),
  ];
  return [
    `import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
${contractImports.length ? `import type { ${contractImports.join(', ')} } from './contract.js';\n` : ''}import type { PromptRule, ResourceRule } from './primitive-types.js';
`,
    `/** The prompts/list payload's prompts, in the spec's order. */
export const prompts: readonly Prompt[] = ${literal(prompts)};

/** The resources/list payload's resources (fixed URIs), in the spec's order. */
export const resources: readonly Resource[] = ${literal(resources)};

/** The resources/templates/list payload's templates, in the spec's order. */
export const resourceTemplates: readonly ResourceTemplateType[] = ${literal(templates)};

/** Per prompt: its arguments, which are required, and how each completes. */
export const promptRules: Readonly<Record<string, PromptRule>> = ${literal(promptRules)};

/** Resources, then templates, in the spec's order: the first whose URI or template matches reads the resource. */
export const resourceRules: readonly ResourceRule[] = ${literal(resourceRules)};

/** Whether clients may subscribe to resource updates (options.subscriptions). */
export const subscriptions: boolean = ${String(model.options.subscriptions)};
`,
    `/** Each prompt bound to its handler module, loaded on first use. */
${modules(
  'Prompt',
  model.prompts.map((p) => [p.name, promptHandlerFile(model, p)]),
)}
/** Each resource and template bound to its handler module, loaded on first use. */
${modules(
  'Resource',
  model.resources.map((r) => [r.name, resourceHandlerFile(model, r)]),
)}`,
  ];
}

/** The generated folder, as a module of the project at `file` imports from it. */
export function generatedFrom(model: ServerModel, file: string): string {
  const gen = path.posix.relative(path.posix.dirname(file), model.options.generatedDir);
  return gen.startsWith('.') ? gen : `./${gen}`;
}

export function emitPromptStub(model: ServerModel, prompt: PromptModel, file: string): string[] {
  return primitiveStub(model, file, {
    kind: 'Prompt',
    name: prompt.name,
    doc: [prompt.name, prompt.definition.title, prompt.definition.description],
    params: '_args',
    returns: 'Return text (one user message), a list of messages, or a whole GetPromptResult.',
    completed: prompt.arguments.filter((a) => a.complete === 'handler').map((a) => a.name),
  });
}

export function emitResourceStub(model: ServerModel, resource: ResourceModel, file: string): string[] {
  return primitiveStub(model, file, {
    kind: 'Resource',
    name: resource.name,
    doc: [resource.name, resource.uri, resource.definition.title, resource.definition.description],
    params: '_variables',
    returns:
      'Return text, bytes (a Uint8Array), contents with their own URI and MIME type, or undefined: no such resource.',
    completed: resource.variables.filter((v) => v.complete === 'handler').map((v) => v.name),
  });
}

/** A prompt's or resource's handler stub, and its `complete` export when some of its values complete by handler. */
function primitiveStub(
  model: ServerModel,
  file: string,
  s: {
    kind: 'Prompt' | 'Resource';
    name: string;
    doc: (string | undefined)[];
    params: string;
    returns: string;
    completed: string[];
  },
): string[] {
  const types = s.completed.length ? `${s.kind}Completer, ${s.kind}Handler` : `${s.kind}Handler`;
  return [
    `import type { ${types} } from ${str(`${generatedFrom(model, file)}/contract.js`)};\n`,
    `/**
${commentBody(s.doc.filter(Boolean).join('\n\n'))}
 */
export const handler: ${s.kind}Handler<${str(s.name)}> = async (${s.params}, _ctx) => {
  // ${s.returns}
  throw new Error(${str(`${s.name} is not written yet: edit ${file}`)});
};
`,
    s.completed.length
      ? `/** Completion of ${commentLine(s.completed.join(', '))}: the values that start with what the user typed. */
export const complete: ${s.kind}Completer<${str(s.name)}> = {
${s.completed.map((n) => `${key(n)}: async (_value, _context) => [],`).join('\n')}
};
`
      : '',
  ];
}
