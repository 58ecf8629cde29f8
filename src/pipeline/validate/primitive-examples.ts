/**
 * Prompts' and resources' examples, checked as tools' are (src/pipeline/validate/examples.ts): a prompt example's arguments
 * against the prompt's declared arguments (TS030 when prompts/get would refuse a valid example, TS031 when it would
 * accept an invalid one), a resource example's URI against the resource or its template and the order in which the
 * server tries them (TS030), and expectations no read or get can meet (TS039). Their contract tests are generated
 * beside the tools' (src/pipeline/emit/examples.ts).
 */
import { diagnostic, type Diagnostics } from '../../core/diagnostics.js';
import type { RawTool } from '../load/load.js';
import { isObject } from '../schema/keywords.js';
import type {
  PromptArgumentModel,
  PromptExampleModel,
  PromptExpectation,
  ResourceExampleModel,
  ResourceExpectation,
  ResourceModel,
} from '../model.js';
import { compileUriTemplate, parseUriTemplate } from '../../../templates/runtime/uri-template.js';
import { checkErrorBesideIsError, examplesOf, type Fail } from './examples.js';

/** Why prompts/get refuses these arguments, in the order the generated prompts.ts looks (the first one is sent). */
function refusals(args: Record<string, unknown>, declared: readonly PromptArgumentModel[]) {
  const out: { argument: string; path: (string | number)[]; key: boolean; message: string }[] = [];
  const names = new Set(declared.map((a) => a.name));
  for (const [k, v] of Object.entries(args)) {
    if (!names.has(k)) {
      const known = names.size ? `it takes ${[...names].map((n) => `"${n}"`).join(', ')}` : 'it takes no arguments';
      out.push({ argument: k, path: [k], key: true, message: `"${k}" is not an argument of the prompt (${known})` });
    } else if (typeof v !== 'string') {
      out.push({ argument: k, path: [k], key: false, message: `"${k}" must be a string (prompt arguments are)` });
    }
  }
  for (const a of declared) {
    if (a.required && !Object.hasOwn(args, a.name))
      out.push({ argument: a.name, path: [], key: false, message: `the required argument "${a.name}" is missing` });
  }
  return out;
}

export function checkPromptExamples(
  raw: RawTool,
  declared: readonly PromptArgumentModel[],
  diags: Diagnostics,
): PromptExampleModel[] {
  const out: PromptExampleModel[] = [];
  for (const { ex, i, at, fail } of examplesOf(raw, diags)) {
    // Arguments that are not an object: the structure check reports it.
    if (ex['arguments'] !== undefined && !isObject(ex['arguments'])) continue;
    const args = isObject(ex['arguments']) ? ex['arguments'] : {};
    const invalid = ex['invalid'] === true;
    const model: PromptExampleModel = { arguments: args, invalid };
    if (typeof ex['name'] === 'string') model.name = ex['name'];
    if (isObject(ex['expect'])) {
      const expect = (model.expect = ex['expect'] as PromptExpectation);
      checkErrorBesideIsError(expect, 'prompts/get', fail);
      if (invalid && expect.isError === false)
        fail(
          ['isError'],
          'is marked invalid, so prompts/get fails, but expects "isError: false"',
          'remove "isError: false", or "invalid: true"',
        );
      for (const field of ['messages', 'text'] as const) {
        if (expect[field] === undefined) continue;
        if (invalid)
          fail(
            [field],
            `is marked invalid, so prompts/get returns no messages`,
            `remove "${field}", or check the refusal with "error"`,
          );
        else if (expect.isError === true || expect.error !== undefined)
          fail(
            [field],
            'expects prompts/get to fail, so it returns no messages',
            `remove "${field}", or the expected error`,
          );
      }
    }
    out.push(model);
    const problems = refusals(args, declared);
    const argsAt = ex['arguments'] === undefined ? at([]) : at(['arguments']);
    if (problems.length && !invalid) {
      const first = problems[0]!;
      diags.add(
        diagnostic(
          'TS030',
          first.path.length ? at(['arguments', ...first.path], first.key) : argsAt,
          `example ${i + 1} does not match the prompt's arguments: ${problems.map((p) => p.message).join('; ')}`,
          'fix the arguments, or mark the example "invalid: true" if prompts/get is meant to refuse them',
        ),
      );
    } else if (!problems.length && invalid) {
      diags.add(
        diagnostic(
          'TS031',
          argsAt,
          `example ${i + 1} is marked invalid, but prompts/get accepts its arguments`,
          'leave out a required argument or give an undeclared one, or remove "invalid: true"',
        ),
      );
    } else if (problems.length) {
      model.rejected = [problems[0]!.argument];
    }
  }
  return out;
}

/**
 * Each resource's and template's examples: the URI must reach that resource, as the server dispatches (the exact
 * URI of a fixed resource first, then the first template in spec order that matches).
 */
export function checkResourceExamples(
  resources: readonly { raw: RawTool; model: ResourceModel }[],
  diags: Diagnostics,
) {
  const fixed = new Map(resources.filter((r) => r.model.kind === 'resource').map((r) => [r.model.uri, r.model]));
  const matchers = resources.flatMap(({ model }) => {
    if (model.kind !== 'template') return [];
    const parsed = parseUriTemplate(model.uri);
    return 'template' in parsed ? [{ model, matcher: compileUriTemplate(parsed.template) }] : [];
  });
  const reached = (uri: string) => fixed.get(uri) ?? matchers.find((m) => m.matcher.match(uri))?.model;

  for (const { raw, model } of resources) {
    for (const { ex, i, at, fail } of examplesOf(raw, diags)) {
      const expect = isObject(ex['expect']) ? (ex['expect'] as ResourceExpectation) : undefined;
      if (expect) checkResourceExpectation(expect, fail);
      const given = typeof ex['uri'] === 'string' ? ex['uri'] : undefined;
      const uri = given ?? (model.kind === 'resource' ? model.uri : undefined);
      if (uri === undefined) continue; // a template's example without a URI: the structure check reports it
      const example: ResourceExampleModel = { uri };
      if (typeof ex['name'] === 'string') example.name = ex['name'];
      if (expect) example.expect = expect;
      const target = reached(uri);
      if (target !== model) {
        const what = `${model.kind === 'resource' ? "the resource's uri" : 'the uriTemplate'} ${JSON.stringify(model.uri)}`;
        const other = target
          ? `${target.kind === 'resource' ? 'resource' : 'template'} "${target.name}" (${target.source.file}:${target.source.line}:${target.source.column})`
          : '';
        const own = matchers.find((m) => m.model === model)?.matcher; // a template's (each one here parsed)
        const matches = own ? own.match(uri) !== undefined : model.uri === uri;
        const message = matches
          ? `example ${i + 1}: the uri ${JSON.stringify(uri)} matches ${what}, but resources/read sends it to ${other}, which answers it first`
          : `example ${i + 1}: the uri ${JSON.stringify(uri)} does not match ${what}${other ? `; resources/read sends it to ${other}` : ''}`;
        const hint =
          model.kind === 'resource'
            ? `leave "uri" out (it defaults to ${model.uri}), or give exactly that URI`
            : matches
              ? 'resources/read tries the fixed URIs first, then the templates in spec order: give a URI that only this template answers, or move it before the other'
              : 'give a URI the template matches: each {name} one path segment (no "/", not "." or ".."), {+name} one or more segments, {?a,b} optional query parameters';
        diags.add(diagnostic('TS030', given === undefined ? at([]) : at(['uri']), message, hint));
      }
      model.examples.push(example);
    }
  }
}

function checkResourceExpectation(expect: ResourceExpectation, fail: Fail) {
  const fails = expect.notFound === true || expect.isError === true || expect.error !== undefined;
  checkErrorBesideIsError(expect, 'the read', fail);
  if (expect.notFound === true && expect.isError === false)
    fail(
      ['notFound'],
      'expects "notFound" and "isError: false" together',
      'remove one of them: "notFound" means the read fails',
    );
  if (!fails) return;
  for (const field of ['contents', 'text', 'mimeType'] as const) {
    if (expect[field] !== undefined)
      fail(
        [field],
        `expects the read to fail${expect.notFound === true ? ' (not found)' : ''}, so it returns no contents`,
        `remove "${field}", or the expected failure`,
      );
  }
}
