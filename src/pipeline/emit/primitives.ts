/**
 * Prompts, resources and resource templates: primitives.ts (the static prompts/list, resources/list and resources/templates/list
 * payloads, what the server checks per prompt and resource, and each one bound to its handler module), and their
 * handler stubs (src/handlers/prompts/<name>.ts, src/handlers/resources/<name>.ts).
 */
import path from 'node:path';
import type { PromptArgumentModel, PromptModel, ResourceModel, ServerModel, TemplateVariableModel } from '../model.js';
import { handlerFileName } from '../../core/names.js';
import { commentBody, commentLine, key, literal, str } from './text.js';

/** Where a handler module is, below options.handlersDir: a tool's at the top, a prompt's or a resource's in a folder. */
export function handlerFile(model: ServerModel, item: ServerModel['tools' | 'prompts' | 'resources'][number]): string {
  const folder = 'input' in item ? '' : 'kind' in item ? 'resources' : 'prompts';
  return path.posix.join(model.options.handlersDir, folder, handlerFileName(item));
}

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
  /** `promptModules` or `resourceModules`: each one bound to its handler module. */
  const modules = (kind: 'Prompt' | 'Resource', list: readonly (PromptModel | ResourceModel)[]): string => {
    const name = `${kind.toLowerCase()}Modules`;
    const rows = list.map((p) => {
      const file = importFromGenerated(model, handlerFile(model, p));
      return `${key(p.name)}: () => import(${str(file)}),`;
    });
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
${modules('Prompt', model.prompts)}
/** Each resource and template bound to its handler module, loaded on first use. */
${modules('Resource', model.resources)}`,
  ];
}

/** The generated folder, as a module of the project at `file` imports from it. */
export function generatedFrom(model: ServerModel, file: string): string {
  const gen = path.posix.relative(path.posix.dirname(file), model.options.generatedDir);
  return gen.startsWith('.') ? gen : `./${gen}`;
}

/** A prompt's or resource's handler stub, and its `complete` export when some of its values complete by handler. */
export function emitPrimitiveStub(model: ServerModel, item: PromptModel | ResourceModel, file: string): string[] {
  const resource = 'kind' in item;
  const [kind, params, returns] = resource
    ? [
        'Resource',
        '_variables',
        'Return text, bytes (a Uint8Array), contents with their own URI and MIME type, or undefined: no such resource.',
      ]
    : ['Prompt', '_args', 'Return text (one user message), a list of messages, or a whole GetPromptResult.'];
  const values: (PromptArgumentModel | TemplateVariableModel)[] = resource ? item.variables : item.arguments;
  const completed = values.filter((v) => v.complete === 'handler').map((v) => v.name);
  const doc = [item.name, resource && item.uri, item.definition.title, item.definition.description];
  const types = completed.length ? `${kind}Completer, ${kind}Handler` : `${kind}Handler`;
  return [
    `import type { ${types} } from ${str(`${generatedFrom(model, file)}/contract.js`)};\n`,
    `/**
${commentBody(doc.filter(Boolean).join('\n\n'))}
 */
export const handler: ${kind}Handler<${str(item.name)}> = async (${params}, _ctx) => {
  // ${returns}
  throw new Error(${str(`${item.name} is not written yet: edit ${file}`)});
};
`,
    completed.length
      ? `/** Completion of ${commentLine(completed.join(', '))}: the values that start with what the user typed. */
export const complete: ${kind}Completer<${str(item.name)}> = {
${completed.map((n) => `${key(n)}: async (_value, _context) => [],`).join('\n')}
};
`
      : '',
  ];
}
