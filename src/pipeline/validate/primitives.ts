/**
 * Stage 2, validate: prompts, resources and resource templates. What the spec file's JSON Schema cannot say:
 * names unique within their namespace (prompts; resources and templates together) and TypeScript-safe, URIs and
 * templates unique, templates parsed by the same RFC 6570 module the generated server matches with, and each
 * described variable present in its template. Quality (descriptions, unused variables) is lint's.
 */
import { diagnostic, type DiagnosticCode, type Diagnostics } from '../../core/diagnostics.js';
import { fieldsOf, type RawTool } from '../load/load.js';
import type { JsonPath } from '../load/source.js';
import { isObject } from '../schema/keywords.js';
import type {
  CompletionModel,
  PromptArgumentModel,
  PromptDefinition,
  PromptModel,
  ResourceDefinition,
  ResourceModel,
  TemplateVariableModel,
} from '../model.js';
import { handlerFileName, pascalCase } from '../../core/names.js';
import { withScopes } from './auth.js';
import { parseUriTemplate } from '../../../templates/runtime/uri-template.js';
import { checkPromptExamples, checkResourceExamples } from './primitive-examples.js';

export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export function checkPrimitives(
  prompts: readonly RawTool[],
  resources: readonly RawTool[],
  templates: readonly RawTool[],
  diags: Diagnostics,
): { prompts: PromptModel[]; resources: ResourceModel[] } {
  const promptNames = new Names('prompt', diags);
  const resourceNames = new Names('resource', diags);
  const uris = new Map<string, RawTool>();
  const out: PromptModel[] = [];
  const checkedResources: { raw: RawTool; model: ResourceModel }[] = [];

  for (const raw of prompts) {
    const v = raw.value;
    const typeName = promptNames.claim(raw);
    const args: PromptArgumentModel[] = [];
    const seen = new Map<string, number>();
    (Array.isArray(v['arguments']) ? (v['arguments'] as unknown[]) : []).forEach((a, i) => {
      if (!isObject(a) || typeof a['name'] !== 'string') return;
      const name = a['name'];
      if (seen.has(name)) {
        diags.add(
          diagnostic(
            'TS046',
            raw.file.locate([...raw.path, 'arguments', i, 'name']),
            `duplicate argument "${name}"`,
            `"${name}" is defined first at ${placeOf(raw, ['arguments', seen.get(name)!, 'name'])}; argument names must be unique`,
          ),
        );
        return;
      }
      seen.set(name, i);
      args.push({ name, required: a['required'] === true, ...describedBy(a, ['title', 'description']) });
    });
    const examples = checkPromptExamples(raw, args, diags);
    if (typeName === undefined) continue;
    // As prompts/list sends it: an argument's `required` only when true, its completion not at all.
    const listed = args.map(({ required, complete: _, ...a }) => ({ ...a, ...(required ? { required } : {}) }));
    const definition = {
      name: v['name'],
      ...fieldsOf(v, ['title', 'description']),
      ...(args.length ? { arguments: listed } : {}),
      ...fieldsOf(v, ['icons', '_meta']),
    } as PromptDefinition;
    out.push({
      name: definition.name,
      typeName,
      arguments: args,
      definition,
      examples,
      ...withScopes(v),
      source: position(raw),
    });
  }

  const resource = (raw: RawTool, kind: 'resource' | 'template'): void => {
    const v = raw.value;
    const field = kind === 'resource' ? 'uri' : 'uriTemplate';
    const typeName = resourceNames.claim(raw);
    const uri = typeof v[field] === 'string' ? v[field] : undefined;
    let ok = typeName !== undefined && uri !== undefined;
    if (uri !== undefined) {
      const first = uris.get(uri);
      if (first) {
        diags.add(
          diagnostic(
            'TS046',
            raw.file.locate([...raw.path, field]),
            `duplicate ${kind === 'resource' ? 'resource URI' : 'URI template'} ${JSON.stringify(uri)}`,
            `it is used first at ${placeOf(first, [first.value['uri'] === uri ? 'uri' : 'uriTemplate'])}; a URI reaches one handler`,
          ),
        );
        ok = false;
      } else uris.set(uri, raw);
    }
    const variables: TemplateVariableModel[] = [];
    if (kind === 'template' && uri !== undefined) {
      const parsed = parseUriTemplate(uri);
      if ('error' in parsed) {
        const at = raw.file.locate([...raw.path, field]);
        diags.add(
          diagnostic(
            'TS047',
            at,
            `uriTemplate ${JSON.stringify(uri)}: ${parsed.error.message} (at character ${parsed.error.offset + 1})`,
            'supported: {name} (one path segment), {+name} (several segments), {?a,b} then {&c} (optional query parameters), e.g. notes://{folder}/{id}{?version}',
          ),
        );
        ok = false;
      } else {
        const described = isObject(v['variables']) ? v['variables'] : {};
        const names = new Set(parsed.template.variables.map((x) => x.name));
        for (const name of Object.keys(described)) {
          if (names.has(name)) continue;
          diags.add(
            diagnostic(
              'TS048',
              raw.file.locate([...raw.path, 'variables', name], { key: true }),
              `variable "${name}" is not in the uriTemplate ${JSON.stringify(uri)}`,
              names.size
                ? `its variables are ${[...names].map((n) => `"${n}"`).join(', ')}; describe only those, or add {${name}} to the template`
                : `add {${name}} to the template, or remove it here`,
            ),
          );
          ok = false;
        }
        for (const { name, operator } of parsed.template.variables)
          variables.push({ name, operator, ...describedBy(described[name], ['description']) });
      }
    }
    if (!ok) return;
    const definition = {
      [field]: uri,
      name: v['name'],
      // `size` is a fixed resource's only: the structure check refuses it on a template.
      ...fieldsOf(v, ['title', 'description', 'mimeType', 'size', 'icons', 'annotations', '_meta']),
    } as ResourceDefinition;
    const model: ResourceModel = {
      kind,
      name: definition.name,
      typeName: typeName!,
      uri: uri!,
      variables,
      definition,
      examples: [],
      ...withScopes(v),
      source: position(raw),
    };
    checkedResources.push({ raw, model });
  };
  for (const raw of resources) resource(raw, 'resource');
  for (const raw of templates) resource(raw, 'template');
  // Examples once every resource is known: an example's URI must reach its own resource first.
  checkResourceExamples(checkedResources, diags);
  return { prompts: out, resources: checkedResources.map((r) => r.model) };
}

/** Where an item's name (or what `path` names below the item) is written, as `file:line:column`. */
export function placeOf(r: RawTool, path: JsonPath = ['name']): string {
  const s = r.file.locate([...r.path, ...path]);
  return `${s.file}:${s.line}:${s.column}`;
}

/**
 * One namespace of handler modules (tools; prompts; resources and templates): names unique, with a TypeScript name,
 * and distinct handler files on case-insensitive file systems.
 */
export class Names {
  /** The first item of each usable name. */
  readonly byName = new Map<string, RawTool>();
  private byType = new Map<string, RawTool>();
  private byFile = new Map<string, RawTool>();
  constructor(
    private readonly what: 'tool' | 'prompt' | 'resource',
    private readonly diags: Diagnostics,
  ) {}

  /** The item's TypeScript base name, or undefined (and a diagnostic) when its name cannot be used. */
  claim(raw: RawTool): string | undefined {
    const name = raw.value['name'];
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) return undefined;
    const at = raw.file.locate([...raw.path, 'name']);
    const fail = (code: DiagnosticCode, message: string, hint: string) => {
      this.diags.add(diagnostic(code, at, message, hint));
      return undefined;
    };
    const plural = { tool: 'tools', prompt: 'prompts', resource: 'resources and resource templates' }[this.what];
    const first = this.byName.get(name);
    if (first) {
      return this.what === 'tool'
        ? fail(
            'TS012',
            `duplicate tool "${name}"`,
            `"${name}" is defined first at ${placeOf(first)}; tool names must be unique`,
          )
        : fail(
            'TS046',
            `duplicate ${this.what} name "${name}"`,
            `"${name}" is used first at ${placeOf(first)}; names of ${plural} must be unique`,
          );
    }
    this.byName.set(name, raw);
    const typeName = pascalCase(name);
    if (typeName === undefined)
      return fail(
        'TS013',
        `${this.what} name "${name}" has no letter or digit to name its TypeScript types after`,
        `use a name such as "${this.what === 'tool' ? 'search_docs' : 'summarise_notes'}"`,
      );
    const clash = this.byType.get(typeName);
    if (clash)
      return fail(
        'TS013',
        `${plural} "${String(clash.value['name'])}" and "${name}" both become the TypeScript name ${typeName}`,
        `rename one of them; "${String(clash.value['name'])}" is at ${placeOf(clash)}`,
      );
    const file = handlerFileName({ name }).toLowerCase();
    const sameFile = this.byFile.get(file);
    if (sameFile)
      return fail(
        'TS013',
        `${plural} "${String(sameFile.value['name'])}" and "${name}" differ only by case`,
        `their handler files would be one file on macOS and Windows; rename one of them ("${String(sameFile.value['name'])}" is at ${placeOf(sameFile)})`,
      );
    this.byType.set(typeName, raw);
    this.byFile.set(file, raw);
    return typeName;
  }
}

/** A prompt argument's or template variable's `keys` as given, and its completion: a fixed list, or 'handler'. */
function describedBy(v: unknown, keys: readonly string[]): { complete?: CompletionModel } {
  if (!isObject(v)) return {};
  const c = v['complete'];
  const complete: CompletionModel | undefined = c === 'handler' ? c : Array.isArray(c) ? c.map(String) : undefined;
  return { ...fieldsOf(v, keys), ...(complete ? { complete } : {}) };
}

/** Where an item is written, for messages. */
export function position(raw: RawTool) {
  const at = raw.file.locate(raw.path);
  return { file: at.file, line: at.line, column: at.column };
}
