/**
 * Prompts, resources and resource templates: their part of contract.ts (only when the spec has any, so a tools-only
 * spec's contract is unchanged), primitives.ts (the static prompts/list, resources/list and resources/templates/list
 * payloads, what the server checks per prompt and resource, and each one bound to its handler module), and their
 * handler stubs (src/handlers/prompts/<name>.ts, src/handlers/resources/<name>.ts).
 */
import path from 'node:path';
import type { CompletionModel, PromptModel, ResourceModel, ServerModel } from '../model.js';
import { handlerFileName } from '../names.js';
import { assignment, PRINT_WIDTH } from './layout.js';
import { commentBody, commentLine, jsdoc, key, tsStr } from './text.js';

export const PROMPTS_FOLDER = 'prompts';
export const RESOURCES_FOLDER = 'resources';

export function hasPrimitives(model: ServerModel): boolean {
  return model.prompts.length > 0 || model.resources.length > 0;
}

export function promptHandlerFile(model: ServerModel, prompt: PromptModel): string {
  return path.posix.join(model.options.handlersDir, PROMPTS_FOLDER, handlerFileName(prompt));
}

export function resourceHandlerFile(model: ServerModel, resource: ResourceModel): string {
  return path.posix.join(model.options.handlersDir, RESOURCES_FOLDER, handlerFileName(resource));
}

function importFromGenerated(model: ServerModel, file: string): string {
  const rel = path.posix.relative(model.options.generatedDir, file).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** A string-typed property, optional unless `required`. */
function field(name: string, required: boolean, doc?: string): string {
  return `${jsdoc(doc, '    ')}    ${key(name)}${required ? '' : '?'}: string;`;
}

function objectType(fields: string[]): string {
  return fields.length ? `{\n${fields.join('\n')}\n  }` : 'Record<string, never>';
}

const completes = (c: CompletionModel | undefined) => c === 'handler';

/** The prompts' and resources' part of contract.ts (its imports, its types): empty for a spec without them. */
export function emitPrimitivesContract(model: ServerModel): { imports: string; body: string } {
  if (!hasPrimitives(model)) return { imports: '', body: '' };
  const out: string[] = [];
  const imports = [
    ...(model.prompts.length ? ['PromptContext', 'PromptResult'] : []),
    ...(model.resources.length ? ['ResourceContext', 'ResourceResult'] : []),
    'Completer',
  ];
  const list = imports.sort().join(', ');
  const importLines = `import type { ${list} } from './primitive-types.js';\n`;
  if (model.prompts.length) {
    const args = model.prompts.map(
      (p) =>
        `${jsdoc(p.definition.description, '  ')}  ${key(p.name)}: ${objectType(p.arguments.map((a) => field(a.name, a.required, a.description)))};`,
    );
    const completers = model.prompts.flatMap((p) => {
      const list = p.arguments.filter((a) => completes(a.complete));
      if (!list.length) return [];
      return [
        `  ${key(p.name)}: {\n${list.map((a) => `    ${key(a.name)}: Completer<PromptArguments[${tsStr(p.name)}]>;`).join('\n')}\n  };`,
      ];
    });
    out.push(`/** Each prompt's arguments as its handler receives them: the required ones are always there. */
export interface PromptArguments {
${args.join('\n')}
}

export type PromptName = keyof PromptArguments;

/** One prompt's handler: \`export const handler: PromptHandler<'my_prompt'> = async (args, ctx) => …\`. */
export type PromptHandler<Name extends PromptName> = (
  args: PromptArguments[Name],
  ctx: PromptContext,
) => PromptResult | Promise<PromptResult>;

/** The completion of the arguments marked \`complete: handler\`, by prompt: the module's \`complete\` export. */
export interface PromptCompleters {
${completers.join('\n')}
}

export type PromptCompleter<Name extends keyof PromptCompleters> = PromptCompleters[Name];

/** What a prompt's handler module exports. */
export type PromptModule<Name extends PromptName> = { handler: PromptHandler<Name> } & (Name extends keyof PromptCompleters
  ? { complete: PromptCompleters[Name] }
  : unknown);
`);
  }
  if (model.resources.length) {
    const vars = model.resources.map(
      (r) =>
        `${jsdoc(r.definition.description ?? r.uri, '  ')}  ${key(r.name)}: ${objectType(
          r.variables.map((v) => field(v.name, v.operator === '' || v.operator === '+', v.description)),
        )};`,
    );
    const completers = model.resources.flatMap((r) => {
      const list = r.variables.filter((v) => completes(v.complete));
      if (!list.length) return [];
      return [
        `  ${key(r.name)}: {\n${list.map((v) => `    ${key(v.name)}: Completer<ResourceVariables[${tsStr(r.name)}]>;`).join('\n')}\n  };`,
      ];
    });
    out.push(`/**
 * Each resource's variables as its handler receives them, by name: a template's, decoded (path variables always
 * there, query parameters when given); none for a resource with a fixed URI.
 */
export interface ResourceVariables {
${vars.join('\n')}
}

export type ResourceName = keyof ResourceVariables;

/**
 * One resource's handler: \`export const handler: ResourceHandler<'my_resource'> = async (variables, ctx) => …\`.
 * It returns the content (text, bytes, or contents with their own URIs and MIME types), or undefined when there is
 * no such resource (the client gets "resource not found").
 */
export type ResourceHandler<Name extends ResourceName> = (
  variables: ResourceVariables[Name],
  ctx: ResourceContext,
) => ResourceResult | Promise<ResourceResult>;

/** The completion of the template variables marked \`complete: handler\`, by resource template. */
export interface ResourceCompleters {
${completers.join('\n')}
}

export type ResourceCompleter<Name extends keyof ResourceCompleters> = ResourceCompleters[Name];

/** What a resource's handler module exports. */
export type ResourceModule<Name extends ResourceName> = { handler: ResourceHandler<Name> } & (Name extends keyof ResourceCompleters
  ? { complete: ResourceCompleters[Name] }
  : unknown);
`);
  }
  const body = `
// Prompts and resources: one handler module each, under ${commentLine(model.options.handlersDir)}/prompts/ and
// ${commentLine(model.options.handlersDir)}/resources/.
export type { ${list} } from './primitive-types.js';

${out.join('\n')}`;
  return { imports: importLines, body };
}

function complete(c: CompletionModel | undefined): string[] | 'handler' | undefined {
  return c === undefined ? undefined : c === 'handler' ? 'handler' : c.values;
}

/** primitives.ts: written for every spec; its lists are empty when the spec has no prompts or resources. */
export function emitPrimitives(model: ServerModel): string {
  const prompts = model.prompts.map((p) => p.definition);
  const resources = model.resources.filter((r) => r.kind === 'resource').map((r) => r.definition);
  const templates = model.resources.filter((r) => r.kind === 'template').map((r) => r.definition);
  const promptRules = Object.fromEntries(
    model.prompts.map((p) => [
      p.name,
      {
        arguments: p.arguments.map((a) => ({
          name: a.name,
          required: a.required,
          ...(a.complete ? { complete: complete(a.complete) } : {}),
        })),
      },
    ]),
  );
  const resourceRules = model.resources.map((r) => ({
    name: r.name,
    ...(r.kind === 'resource' ? { uri: r.uri } : { uriTemplate: r.uri }),
    ...(r.definition.mimeType === undefined ? {} : { mimeType: r.definition.mimeType }),
    complete: Object.fromEntries(r.variables.flatMap((v) => (v.complete ? [[v.name, complete(v.complete)]] : []))),
  }));
  const json = (v: unknown) => tsStr(JSON.stringify(v));
  const parsed = (head: string, v: unknown, cast: string) => {
    const one = `${head} = JSON.parse(${json(v)}) as ${cast};`;
    return one.length <= PRINT_WIDTH ? one : `${head} = JSON.parse(\n  ${json(v)},\n) as ${cast};`;
  };
  const contractImports = [
    ...(model.prompts.length ? ['PromptModule', 'PromptName'] : []),
    ...(model.resources.length ? ['ResourceModule', 'ResourceName'] : []),
  ];
  const modules = (
    name: string,
    list: { name: string }[],
    file: (x: never) => string,
    type: string,
    nameType: string,
  ): string => {
    if (!list.length) return `export const ${name} = {};\n`;
    const rows = list.map((x) => {
      const spec = tsStr(importFromGenerated(model, file(x as never)));
      const one = `  ${key(x.name)}: () => import(${spec}),`;
      return one.length <= PRINT_WIDTH ? one : `  ${key(x.name)}: () =>\n    import(${spec}),`;
    });
    return `export const ${name}: { [Name in ${nameType}]: () => Promise<${type}<Name>> } = {\n${rows.join('\n')}\n};\n`;
  };
  return `import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
${contractImports.length ? `import type { ${contractImports.join(', ')} } from './contract.js';\n` : ''}import type { PromptRule, ResourceRule } from './primitive-types.js';

/** The prompts/list payload's prompts, in the spec's order. */
${parsed('export const prompts: readonly Prompt[]', prompts, 'Prompt[]')}

/** The resources/list payload's resources (fixed URIs), in the spec's order. */
${parsed('export const resources: readonly Resource[]', resources, 'Resource[]')}

/** The resources/templates/list payload's templates, in the spec's order. */
${parsed('export const resourceTemplates: readonly ResourceTemplateType[]', templates, 'ResourceTemplateType[]')}

/** Per prompt: its arguments, which are required, and how each completes. */
${parsed('export const promptRules: Readonly<Record<string, PromptRule>>', promptRules, 'Record<string, PromptRule>')}

/** Resources, then templates, in the spec's order: the first whose URI or template matches reads the resource. */
${parsed('export const resourceRules: readonly ResourceRule[]', resourceRules, 'ResourceRule[]')}

/** Whether clients may subscribe to resource updates (options.subscriptions). */
${assignment('export const subscriptions: boolean', String(model.options.subscriptions))}

/** Each prompt bound to its handler module, loaded on first use. */
${modules('promptModules', model.prompts, (p: PromptModel) => promptHandlerFile(model, p), 'PromptModule', 'PromptName')}
/** Each resource and template bound to its handler module, loaded on first use. */
${modules('resourceModules', model.resources, (r: ResourceModel) => resourceHandlerFile(model, r), 'ResourceModule', 'ResourceName')}`;
}

function generatedFrom(model: ServerModel, file: string): string {
  const gen = path.posix.relative(path.posix.dirname(file), model.options.generatedDir);
  return gen.startsWith('.') ? gen : `./${gen}`;
}

export function emitPromptStub(model: ServerModel, prompt: PromptModel, file: string): string {
  const from = generatedFrom(model, file);
  const doc = [prompt.name, prompt.definition.title, prompt.definition.description].filter(Boolean).join('\n\n');
  const completed = prompt.arguments.filter((a) => completes(a.complete));
  const types = completed.length ? 'PromptCompleter, PromptHandler' : 'PromptHandler';
  const text = `${prompt.name} is not written yet: edit ${file}`;
  return `import type { ${types} } from ${tsStr(`${from}/contract.js`)};

/**
${commentBody(doc)}
 */
export const handler: PromptHandler<${tsStr(prompt.name)}> = async (_args, _ctx) => {
  // Return text (one user message), a list of messages, or a whole GetPromptResult.
${line('  throw new Error', `(${tsStr(text)})`, ';')}
};
${
  completed.length
    ? `
/** Completion of ${commentLine(completed.map((a) => a.name).join(', '))}: the values that start with what the user typed. */
export const complete: PromptCompleter<${tsStr(prompt.name)}> = {
${completed.map((a) => `  ${key(a.name)}: async (_value, _context) => [],`).join('\n')}
};
`
    : ''
}`;
}

export function emitResourceStub(model: ServerModel, resource: ResourceModel, file: string): string {
  const from = generatedFrom(model, file);
  const doc = [resource.name, resource.uri, resource.definition.title, resource.definition.description]
    .filter(Boolean)
    .join('\n\n');
  const completed = resource.variables.filter((v) => completes(v.complete));
  const types = completed.length ? 'ResourceCompleter, ResourceHandler' : 'ResourceHandler';
  const text = `${resource.name} is not written yet: edit ${file}`;
  return `import type { ${types} } from ${tsStr(`${from}/contract.js`)};

/**
${commentBody(doc)}
 */
export const handler: ResourceHandler<${tsStr(resource.name)}> = async (_variables, _ctx) => {
  // Return text, bytes (a Uint8Array), contents with their own URI and MIME type, or undefined: no such resource.
${line('  throw new Error', `(${tsStr(text)})`, ';')}
};
${
  completed.length
    ? `
/** Completion of ${commentLine(completed.map((v) => v.name).join(', '))}: the values that start with what the user typed. */
export const complete: ResourceCompleter<${tsStr(resource.name)}> = {
${completed.map((v) => `  ${key(v.name)}: async (_value, _context) => [],`).join('\n')}
};
`
    : ''
}`;
}

/** `head(arg)tail` on one line when it fits, else the argument on a line of its own, as prettier does. */
function line(head: string, call: string, tail: string): string {
  const one = `${head}${call}${tail}`;
  if (one.length <= PRINT_WIDTH) return one;
  const indent = head.match(/^\s*/)![0];
  return `${head}(\n${indent}  ${call.slice(1, -1)},\n${indent})${tail}`;
}
