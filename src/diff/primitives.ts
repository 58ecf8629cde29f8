/**
 * The diff of two servers' prompts, resources and resource templates: prompts matched by name, then their
 * arguments by name; resources and templates matched by name (one namespace, as in the spec), then their URI or
 * template and MIME type. A client that gets a removed prompt, sends a removed argument (refused as unknown), or
 * reads a URI that moved, fails: those are breaking. Pure: models in, changes out.
 */
import type { ResourceModel } from '../pipeline/model.js';
import { changeOf, explain, type Change, type DiffSubject, type RuleId, type Segments } from './rules.js';
import { presence } from './schema-common.js';

const q = JSON.stringify;

export function diffPrimitives(before: DiffSubject, after: DiffSubject): Change[] {
  const out: Change[] = [];
  const make = (rule: RuleId, segments: Segments, detail: string, what: string, b?: unknown, a?: unknown) =>
    out.push(changeOf(rule, 'tool', null, segments, detail, b, a, explain(rule, 'tool', segments, null, what)));
  const text = (segments: Segments, o: unknown, n: unknown) => {
    if (o !== n) make('PRIMITIVE_TEXT_CHANGED', segments, presence(o, n), '', o, n);
  };

  for (const [o, n] of byName(before.prompts, after.prompts)) {
    const name = (n ?? o)!.name;
    const at = ['prompts', name];
    const what = `prompt ${q(name)}`;
    if (!n || !o) {
      make(n ? 'PROMPT_ADDED' : 'PROMPT_REMOVED', at, n ? 'added' : 'removed', what);
      continue;
    }
    text([...at, 'title'], o.definition.title, n.definition.title);
    text([...at, 'description'], o.definition.description, n.definition.description);
    for (const [was, a] of byName(o.arguments, n.arguments)) {
      const path = [...at, 'arguments', (a ?? was)!.name];
      const arg = `argument ${q((a ?? was)!.name)} of ${what}`;
      if (!a) make('PROMPT_ARGUMENT_REMOVED', path, was!.required ? 'removed (was required)' : 'removed', arg);
      else if (!was) {
        if (a.required) make('PROMPT_ARGUMENT_REQUIRED_ADDED', path, 'added (required)', arg);
        else make('PROMPT_ARGUMENT_ADDED', path, 'added (optional)', arg);
      } else {
        if (a.required && !was.required) make('PROMPT_ARGUMENT_MADE_REQUIRED', path, 'optional → required', arg);
        if (!a.required && was.required) make('PROMPT_ARGUMENT_MADE_OPTIONAL', path, 'required → optional', arg);
        text([...path, 'description'], was.description, a.description);
      }
    }
  }

  const label = (r: ResourceModel) =>
    `${r.kind === 'resource' ? 'resource' : 'resource template'} ${q(r.name)} (${r.uri})`;
  for (const [o, n] of byName(before.resources, after.resources)) {
    const at = ['resources', (n ?? o)!.name];
    if (!n) make('RESOURCE_REMOVED', at, `removed (${o!.uri})`, label(o!), o!.uri);
    else if (!o) make('RESOURCE_ADDED', at, `added (${n.uri})`, label(n), undefined, n.uri);
    else {
      const uri = o.kind === 'resource' && n.kind === 'resource' ? 'uri' : 'uriTemplate';
      if (o.uri !== n.uri) make('RESOURCE_URI_CHANGED', [...at, uri], `${o.uri} → ${n.uri}`, label(o), o.uri, n.uri);
      const [om, nm] = [o.definition.mimeType, n.definition.mimeType];
      if (om !== nm) make('RESOURCE_MIME_TYPE_CHANGED', [...at, 'mimeType'], presence(om, nm), label(n), om, nm);
      text([...at, 'title'], o.definition.title, n.definition.title);
      text([...at, 'description'], o.definition.description, n.definition.description);
    }
  }
  return out;
}

/** Items matched by name: those only on the old side, then each of the new side with its old one, if any. */
export function byName<T extends { name: string }>(a: readonly T[] = [], b: readonly T[] = []): [T?, T?][] {
  const kept = new Set(b.map((x) => x.name));
  const gone = a.filter((o) => !kept.has(o.name)).map((o): [T?, T?] => [o, undefined]);
  return [...gone, ...b.map((n): [T?, T?] => [a.find((o) => o.name === n.name), n])];
}
