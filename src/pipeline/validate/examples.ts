/**
 * A tool's examples: their arguments against the input schema (a valid example the schema rejects, or an invalid
 * one it accepts, is an error), their `expect` for what can never hold, and, for invalid examples, the arguments
 * the rejection must name (their contract tests check it: src/pipeline/emit/examples.ts).
 */
import type { ErrorObject } from 'ajv';
import { diagnostic, type Diagnostics } from '../../core/diagnostics.js';
import type { RawTool } from '../load/load.js';
import type { ExampleExpectation, ExampleModel } from '../model.js';
import { argumentPath } from '../../../templates/runtime/arguments.js';
import { ANNOTATION_KEYWORDS, isObject, pointerFragment } from '../schema/keywords.js';
import { captureWarnings, KEY } from './ajv.js';
import type { CheckedSchema } from './schemas.js';
import { valueAt } from './defaults.js';
import { pointerToPath } from '../load/structure.js';

export function checkExamples(
  tool: RawTool,
  input: CheckedSchema | undefined,
  output: CheckedSchema | undefined,
  diags: Diagnostics,
): ExampleModel[] {
  const out: ExampleModel[] = [];
  for (const { ex, i, at, fail } of examplesOf(tool, diags)) {
    if (!isObject(ex['arguments'])) continue;
    const invalid = ex['invalid'] === true;
    const model: ExampleModel = { arguments: ex['arguments'], invalid };
    if (typeof ex['name'] === 'string') model.name = ex['name'];
    if (isObject(ex['expect'])) {
      model.expect = ex['expect'] as ExampleExpectation;
      checkExpectation(model, output, fail);
    }
    out.push(model);
    if (!input) continue;
    const args = structuredClone(ex['arguments']);
    const { validate } = input.compiled;
    const ok = validate(args);
    if (!ok && !invalid) {
      const errors = validate.errors ?? [];
      const why = errors.map((e) => `${rejectedPath(e, args)}: ${e.message ?? e.keyword}`).join('; ');
      const first = errors[0]?.instancePath;
      diags.add(
        diagnostic(
          'TS030',
          at(['arguments', ...(first === undefined ? [] : pointerToPath(first, ex['arguments']))]),
          `example ${i + 1} does not match the inputSchema: ${why}`,
          'fix the arguments, or mark the example "invalid: true" if it is meant to be rejected',
        ),
      );
    } else if (ok && invalid) {
      diags.add(
        diagnostic(
          'TS031',
          at(['arguments']),
          `example ${i + 1} is marked invalid, but the inputSchema accepts it`,
          'tighten the schema, or remove "invalid: true"',
        ),
      );
    } else if (!ok) {
      model.rejected = [...new Set((validate.errors ?? []).map((e) => rejectedPath(e, args)))];
    }
  }
  return out;
}

export type Fail = (where: (string | number)[], message: string, hint: string, key?: boolean) => void;

/**
 * The examples of a tool, prompt or resource that are objects (the structure check reports the others), each with
 * where it is written and its TS039 for an expectation no call can meet.
 */
export function examplesOf(item: RawTool, diags: Diagnostics) {
  const list = item.value['examples'];
  return (Array.isArray(list) ? (list as unknown[]) : []).flatMap((ex, i) => {
    if (!isObject(ex)) return [];
    const at = (p: (string | number)[], key = false) => item.file.locate([...item.path, 'examples', i, ...p], { key });
    const fail: Fail = (where, message, hint, key = true) =>
      diags.add(diagnostic('TS039', at(['expect', ...where], key), `example ${i + 1}: ${message}`, hint));
    return [{ ex, i, at, fail }];
  });
}

/** `error` beside `isError: false`, which no example of any kind can meet; `call` is what must fail. */
export function checkErrorBesideIsError(expect: { error?: string; isError?: boolean }, call: string, fail: Fail) {
  if (expect.error !== undefined && expect.isError === false) {
    const hint = `remove one of them: "error" means ${call} must fail`;
    fail(['error'], 'expects an error message and "isError: false" together', hint);
  }
}

/** An `expect` that no call can meet is a spec error: the example's contract test could never pass. */
function checkExpectation(example: ExampleModel, output: CheckedSchema | undefined, fail: Fail): void {
  const expect = example.expect!;
  checkErrorBesideIsError(expect, 'the call', fail);
  if (example.invalid) {
    if (expect.isError === false)
      fail(
        ['isError'],
        'is marked invalid, so its call ends in an error result, but expects "isError: false"',
        'remove "isError: false", or "invalid: true"',
      );
    if (expect.structuredContent !== undefined)
      fail(
        ['structuredContent'],
        'is marked invalid, so its call returns no structured result',
        'remove "structuredContent", or check the rejection with "error"',
      );
    return;
  }
  if (isObject(expect.structuredContent) && output) {
    for (const problem of subsetProblems(expect.structuredContent, output)) {
      const hint = problem.key
        ? `remove "${String(problem.path.at(-1))}" from expect.structuredContent, or add it to the outputSchema's properties`
        : 'expect a value the outputSchema allows, or fix the outputSchema';
      fail(['structuredContent', ...problem.path], problem.message, hint, problem.key);
    }
  }
}

interface SubsetProblem {
  path: (string | number)[];
  message: string;
  /** The problem is the key (one the schema does not allow), not the value. */
  key: boolean;
}

const COMBINATORS =
  'allOf anyOf oneOf not if dependentSchemas dependencies unevaluatedProperties unevaluatedItems'.split(' ');

/**
 * Where an expected subset of the structured result disagrees with the output schema, as far as it can be told
 * cheaply: a key the schema does not allow, or a value (string, number, boolean, null) the schema of its place
 * rejects. Places under composition keywords (anyOf, if, …) are not judged.
 */
export function subsetProblems(subset: Record<string, unknown>, output: CheckedSchema): SubsetProblem[] {
  const problems: SubsetProblem[] = [];
  const { ajv, code } = output.compiled;
  const root = output.model.schema;

  // Places in the schema are kept as lists of keys: a JSON pointer into the schema, unescaped.
  const resolve = (schema: unknown, pointer: string[], seen = 0): [Record<string, unknown>, string[]] | undefined => {
    if (!isObject(schema)) return undefined;
    const ref = schema['$ref'];
    if (typeof ref !== 'string') return [schema, pointer];
    if (!ref.startsWith('#/') || seen > 32 || Object.keys(schema).some((k) => k !== '$ref' && !BESIDE_REF.has(k)))
      return undefined;
    let target: string[];
    try {
      target = pointerToPath(decodeURIComponent(ref.slice(1)), undefined).map(String);
    } catch {
      return undefined;
    }
    return resolve(valueAt(root, target), target, seen + 1);
  };

  const visit = (value: unknown, schema: unknown, pointer: string[], path: (string | number)[]): void => {
    const resolved = resolve(schema, pointer);
    if (!resolved) return;
    const [node, at] = resolved;
    if (COMBINATORS.some((k) => k in node)) return;
    if (Array.isArray(value) || isObject(value)) {
      const kind = Array.isArray(value) ? 'array' : 'object';
      const types =
        typeof node['type'] === 'string' ? [node['type']] : Array.isArray(node['type']) ? node['type'] : undefined;
      if (types && !types.includes(kind)) {
        const message = `expects ${kind === 'array' ? 'an array' : 'an object'} where the outputSchema has type ${types.join(' or ')}`;
        problems.push({ path, message, key: false });
        return;
      }
      if (Array.isArray(value)) {
        // A tuple's schemas (prefixItems; in draft-07 a list under items), then the rest's; else items for each.
        const [tuple, rest]: [string, string] =
          node['prefixItems'] !== undefined ? ['prefixItems', 'items'] : ['items', 'additionalItems'];
        const prefix = node[tuple];
        value.forEach((v, i) => {
          const key = !Array.isArray(prefix) ? ['items'] : i < prefix.length ? [tuple, String(i)] : [rest];
          visit(v, valueAt(node, key), [...at, ...key], [...path, i]);
        });
        return;
      }
      const properties = isObject(node['properties']) ? node['properties'] : {};
      const patterns = isObject(node['patternProperties']) ? Object.keys(node['patternProperties']) : [];
      for (const [k, v] of Object.entries(value)) {
        const p = [...path, k];
        if (Object.hasOwn(properties, k)) {
          visit(v, properties[k], [...at, 'properties', k], p);
          continue;
        }
        if (patterns.length) continue; // which pattern applies is ajv's business: not judged
        if (node['additionalProperties'] === false) {
          const known = Object.keys(properties);
          problems.push({
            path: p,
            message: `expects "${k}" in the structured result, which its outputSchema does not allow${known.length ? ` (it has ${known.map((n) => `"${n}"`).join(', ')})` : ''}`,
            key: true,
          });
        } else if (node['additionalProperties'] !== undefined) {
          visit(v, node['additionalProperties'], [...at, 'additionalProperties'], p);
        }
      }
      return;
    }
    // A scalar is a whole value: the schema of its place judges it completely.
    if (code.inherited.length) return; // that schema is compiled with inherited names renamed: its pointers differ
    let validate;
    try {
      validate = captureWarnings(() => ajv.getSchema(`${KEY}#${pointerFragment(at)}`)).result;
    } catch {
      return;
    }
    if (!validate || validate(value)) return;
    const why = (validate.errors ?? []).map((e: ErrorObject) => e.message ?? e.keyword).join('; ');
    problems.push({
      path,
      message: `expects ${JSON.stringify(value)}, which the outputSchema rejects here: ${why}`,
      key: false,
    });
  };

  visit(subset, root, [], []);
  return problems;
}

/** What may sit beside a `$ref` that is followed: annotations, and the definitions of a root (`{ $ref, $defs }`). */
const BESIDE_REF = new Set([...ANNOTATION_KEYWORDS, 'default', '$defs', 'definitions', '$schema']);

/**
 * The argument an error names, exactly as the generated dispatcher writes it at the start of its line
 * (templates/runtime/dispatcher.ts, describeError and pathIn): a test of the generated code holds the two together.
 */
export function rejectedPath(e: Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>, data: unknown): string {
  const params = e.params as Record<string, unknown>;
  const child =
    e.keyword === 'required'
      ? String(params['missingProperty'])
      : e.keyword === 'additionalProperties'
        ? String(params['additionalProperty'])
        : undefined;
  return argumentPath(e.instancePath, child, data);
}
