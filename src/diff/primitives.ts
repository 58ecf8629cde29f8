/**
 * The diff of two servers' prompts, resources and resource templates: prompts matched by name, then their
 * arguments by name; resources and templates matched by name (one namespace, as in the spec), then their URI or
 * template and MIME type. A client that gets a removed prompt, sends a removed argument (refused as unknown), or
 * reads a URI that moved, fails: those are breaking. Pure: models in, changes out.
 */
import type { PromptModel, ResourceModel } from '../pipeline/model.js';
import { changeOf, type Change, type RuleId, type Segments } from './rules.js';
import { presence } from './schema-common.js';

export interface PrimitiveSubject {
  prompts?: readonly PromptModel[];
  resources?: readonly ResourceModel[];
}

const q = JSON.stringify;

function message(rule: RuleId, what: string): string {
  switch (rule) {
    case 'PROMPT_ADDED':
    case 'RESOURCE_ADDED':
      return `new ${what}`;
    case 'PROMPT_REMOVED':
      return `clients that get ${what} receive an error; keep it (say it is deprecated in its description) or release a new major version`;
    case 'RESOURCE_REMOVED':
      return `clients that read ${what} get "resource not found"; keep it or release a new major version`;
    case 'RESOURCE_URI_CHANGED':
      return `clients that read ${what} at its old URI get "resource not found"`;
    case 'RESOURCE_MIME_TYPE_CHANGED':
      return `readers of ${what} get content in another format`;
    case 'PROMPT_ARGUMENT_REQUIRED_ADDED':
    case 'PROMPT_ARGUMENT_MADE_REQUIRED':
      return `prompts/get without ${what} is refused`;
    case 'PROMPT_ARGUMENT_REMOVED':
      return `prompts/get that sends ${what} is refused as an unknown argument`;
    case 'PROMPT_ARGUMENT_ADDED':
      return `clients may pass ${what}`;
    case 'PROMPT_ARGUMENT_MADE_OPTIONAL':
      return `clients may leave ${what} out`;
    default:
      return 'users and models read this text to pick a prompt or a resource: check that the new wording still leads them right';
  }
}

export function diffPrimitives(before: PrimitiveSubject, after: PrimitiveSubject): Change[] {
  const out: Change[] = [];
  const make = (rule: RuleId, segments: Segments, detail: string, what: string, b?: unknown, a?: unknown) =>
    out.push(changeOf(rule, 'tool', null, segments, detail, message(rule, what), b, a));
  const text = (segments: Segments, what: string, o: unknown, n: unknown) => {
    if (o !== n) make('PRIMITIVE_TEXT_CHANGED', segments, presence(o, n), what, o, n);
  };

  const oldPrompts = new Map((before.prompts ?? []).map((p) => [p.name, p]));
  const newPrompts = new Map((after.prompts ?? []).map((p) => [p.name, p]));
  for (const [name] of oldPrompts)
    if (!newPrompts.has(name)) make('PROMPT_REMOVED', ['prompts', name], 'removed', `prompt ${q(name)}`);
  for (const [name, n] of newPrompts) {
    const o = oldPrompts.get(name);
    if (!o) {
      make('PROMPT_ADDED', ['prompts', name], 'added', `prompt ${q(name)}`);
      continue;
    }
    const at = ['prompts', name];
    text([...at, 'title'], `the title of prompt ${q(name)}`, o.definition.title, n.definition.title);
    text([...at, 'description'], `prompt ${q(name)}`, o.definition.description, n.definition.description);
    const oldArgs = new Map(o.arguments.map((a) => [a.name, a]));
    const newArgs = new Map(n.arguments.map((a) => [a.name, a]));
    for (const [arg, a] of oldArgs) {
      if (newArgs.has(arg)) continue;
      make(
        'PROMPT_ARGUMENT_REMOVED',
        [...at, 'arguments', arg],
        a.required ? 'removed (was required)' : 'removed',
        `argument ${q(arg)} of prompt ${q(name)}`,
      );
    }
    for (const [arg, a] of newArgs) {
      const was = oldArgs.get(arg);
      const what = `argument ${q(arg)} of prompt ${q(name)}`;
      const path = [...at, 'arguments', arg];
      if (!was) {
        if (a.required) make('PROMPT_ARGUMENT_REQUIRED_ADDED', path, 'added (required)', what);
        else make('PROMPT_ARGUMENT_ADDED', path, 'added (optional)', what);
        continue;
      }
      if (a.required && !was.required) make('PROMPT_ARGUMENT_MADE_REQUIRED', path, 'optional → required', what);
      if (!a.required && was.required) make('PROMPT_ARGUMENT_MADE_OPTIONAL', path, 'required → optional', what);
      text([...path, 'description'], what, was.description, a.description);
    }
  }

  const oldResources = new Map((before.resources ?? []).map((r) => [r.name, r]));
  const newResources = new Map((after.resources ?? []).map((r) => [r.name, r]));
  const label = (r: ResourceModel) =>
    `${r.kind === 'resource' ? 'resource' : 'resource template'} ${q(r.name)} (${r.uri})`;
  for (const [name, r] of oldResources)
    if (!newResources.has(name)) make('RESOURCE_REMOVED', ['resources', name], `removed (${r.uri})`, label(r), r.uri);
  for (const [name, n] of newResources) {
    const o = oldResources.get(name);
    if (!o) {
      make('RESOURCE_ADDED', ['resources', name], `added (${n.uri})`, label(n), undefined, n.uri);
      continue;
    }
    const at = ['resources', name];
    if (o.uri !== n.uri)
      make(
        'RESOURCE_URI_CHANGED',
        [...at, o.kind === 'resource' && n.kind === 'resource' ? 'uri' : 'uriTemplate'],
        `${o.uri} → ${n.uri}`,
        label(o),
        o.uri,
        n.uri,
      );
    if (o.definition.mimeType !== n.definition.mimeType)
      make(
        'RESOURCE_MIME_TYPE_CHANGED',
        [...at, 'mimeType'],
        presence(o.definition.mimeType, n.definition.mimeType),
        label(n),
        o.definition.mimeType,
        n.definition.mimeType,
      );
    text([...at, 'title'], `the title of ${label(n)}`, o.definition.title, n.definition.title);
    text([...at, 'description'], label(n), o.definition.description, n.definition.description);
  }
  return out;
}
