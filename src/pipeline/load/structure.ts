/**
 * The spec file's structure is checked against the JSON Schema that toolspec ships (schema/*.schema.json), the
 * same one editors use, so the CLI and the editor never disagree. Its errors become diagnostics here. The layer
 * inside the tools' schemas is the editors' alone (see withoutSchemaLayer): validate/schemas.ts judges those.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type addFormats from 'ajv-formats';
import type standaloneCode from 'ajv/dist/standalone/index.js';
import { diagnostic, type Diagnostics, type DiagnosticCode } from '../../core/diagnostics.js';
import type { SourceFile } from './source.js';
import { includeSchemaPath, specSchemaPath } from '../../core/paths.js';
import { hasInvisible, withoutInvisible } from '../../core/visible.js';
import { didYouMean, quoteList } from '../../core/suggest.js';
import { pointerSegments } from '../../../templates/runtime/arguments.js';

/** ajv is required where a schema is compiled, not imported: with the build's prebuilt validators no run loads it. */
const require = createRequire(import.meta.url);

type Validators = Record<'main' | 'include', ValidateFunction>;

let validators: Validators | undefined;

const MAIN_ID = 'https://toolspec.dev/schema/toolspec.schema.json';
const INCLUDE_ID = 'https://toolspec.dev/schema/toolspec-include.schema.json';

/** The two schemas' text, and a hash of it: the prebuilt validators are used only for exactly these schemas. */
function schemaTexts(): { main: string; include: string; hash: string } {
  const main = fs.readFileSync(specSchemaPath, 'utf8');
  const include = fs.readFileSync(includeSchemaPath, 'utf8');
  return { main, include, hash: createHash('sha256').update(main).update('\0').update(include).digest('hex') };
}

/** ajv with the spec's and the include file's schemas, as the structure check judges them. */
function structureAjv(source: boolean): InstanceType<typeof Ajv.default> {
  const ajv = new (require('ajv') as typeof Ajv).default({
    allErrors: true,
    verbose: true,
    strict: true,
    allowUnionTypes: true,
    ...(source ? { code: { source: true } } : {}),
  });
  (require('ajv-formats') as typeof addFormats).default(ajv);
  const texts = schemaTexts();
  ajv.addSchema(withoutSchemaLayer(JSON.parse(texts.main)) as object);
  ajv.addSchema(withoutSchemaLayer(JSON.parse(texts.include)) as object);
  return ajv;
}

/**
 * The structure validators as ajv's standalone code (CommonJS), for the build to write beside this module
 * (scripts/build-structure.mjs): compiling the spec's schema costs every run ~0.1–0.2 s, loading its code a few ms.
 */
export function structureCode(): string {
  const ajv = structureAjv(true);
  const code = (require('ajv/dist/standalone/index.js') as typeof standaloneCode).default(ajv, {
    main: MAIN_ID,
    include: INCLUDE_ID,
  });
  return `${code}\nexports.schemaHash = ${JSON.stringify(schemaTexts().hash)};\n`;
}

/** The build's standalone validators, if they are there and were built from the schemas as they are now. */
function prebuilt(): Validators | undefined {
  try {
    const m = require('./structure-validators.cjs') as Validators & { schemaHash?: string };
    return m.schemaHash === schemaTexts().hash ? { main: m.main, include: m.include } : undefined;
  } catch {
    return undefined; // not built (the sources run under the tests): compiled below
  }
}

/** `compiled`: compile even when prebuilt validators exist (tests compare the two). */
export function getValidators(compiled = false): Validators {
  const compile = () => {
    const ajv = structureAjv(false);
    return { main: ajv.getSchema(MAIN_ID)!, include: ajv.getSchema(INCLUDE_ID)! };
  };
  return compiled ? compile() : (validators ??= prebuilt() ?? compile());
}

/** Where the spec's schema refers to the JSON Schema layer for editors (schema/json-schema.schema.json). */
const SCHEMA_LAYER = /^json-schema\.schema\.json(#|$)/;

/**
 * The spec's schema without its JSON Schema layer: every `$ref` into json-schema.schema.json (the keywords, types
 * and formats of inputSchema, outputSchema and $defs, for editors) becomes `true`. Those schemas are judged by
 * validate/schemas.ts, with codes of their own (TS020–TS024, TS032) and "did you mean"; checked here as well, each
 * mistake would be reported twice, once in ajv's words.
 */
export function withoutSchemaLayer(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSchemaLayer);
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && SCHEMA_LAYER.test(ref)) return true;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withoutSchemaLayer(v)]));
}

/** Hints for fields whose absence or misuse newcomers hit most. */
const FIELD_HINTS: Record<string, string> = {
  inputSchema: 'a tool without parameters takes: inputSchema: { type: object, additionalProperties: false }',
  toolspec: 'start the file with "toolspec: 1"',
  server: 'add: server: { name: my-server, version: 1.0.0 }',
  arguments: "an example gives the call's arguments, e.g. arguments: { query: install }",
};

export function checkStructure(file: SourceFile, kind: 'main' | 'include', diags: Diagnostics): void {
  const v = getValidators()[kind];
  if (v(file.value)) return;
  for (const err of v.errors ?? []) {
    const d = describe(err, file, kind);
    if (d) diags.add(d);
  }
}

function describe(err: ErrorObject, file: SourceFile, kind: 'main' | 'include') {
  if ('propertyName' in err) return undefined; // reported once more by its propertyNames error
  const path = pointerToPath(err.instancePath, file.value);
  const parent = err.parentSchema as
    { title?: string; description?: string; properties?: Record<string, { description?: string }> } | undefined;
  const where = context(path, parent?.title, file.value, kind);
  const last = path[path.length - 1];
  const at = (p = path, key = false) => file.locate(p, { key });
  const make = (code: DiagnosticCode, message: string, hint?: string, span = at()) =>
    diagnostic(code, span, message, hint || undefined);

  switch (err.keyword) {
    case 'additionalProperties': {
      const field = String(err.params['additionalProperty']);
      const known = Object.keys(parent?.properties ?? {});
      // A name with control or invisible characters prints them escaped; say so, and match what a person sees.
      const seen = hasInvisible(field) ? withoutInvisible(field) : undefined;
      let hint = didYouMean(seen ?? field, known) || `valid fields here: ${known.join(', ')}`;
      if (seen !== undefined) {
        const why = 'the name holds invisible or control characters (shown as \\u escapes)';
        hint = known.includes(seen) ? `${why}; without them it reads "${seen}": retype the key` : `${why}; ${hint}`;
      }
      return make('TS006', `unknown field "${field}" in ${where}`, hint, at([...path, field], true));
    }
    case 'required': {
      const field = String(err.params['missingProperty']);
      const what = parent?.properties?.[field]?.description;
      return make(
        'TS007',
        `${where} is missing the required field "${field}"`,
        FIELD_HINTS[field] ?? what,
        at(path, true),
      );
    }
    case 'type': {
      if (path.length === 0 && (err.data === null || err.data === undefined))
        return make(
          'TS033',
          `${file.displayPath} is empty`,
          kind === 'main'
            ? 'a spec starts with: toolspec: 1, then server: { name: my-server, version: 1.0.0 } and tools: [...]'
            : 'an included file holds tools: [...] and/or $defs: {...}',
        );
      const expected = String(err.params['type']).split(',').join(' or ');
      const hint =
        expected === 'string' && (typeof err.data === 'number' || typeof err.data === 'boolean')
          ? 'YAML reads this as a number or boolean: put it in quotes, e.g. "1.0"'
          : expected === 'boolean' && typeof err.data === 'string'
            ? 'write true or false, without quotes'
            : parent?.description;
      return make('TS008', `${label(path)} must be ${article(expected)}, not ${typeName(err.data)}`, hint);
    }
    case 'const':
      if (path.length === 1 && last === 'toolspec')
        return make(
          'TS010',
          `unsupported format version ${JSON.stringify(err.data)}`,
          'this version of toolspec reads "toolspec: 1"',
        );
      return make('TS009', `${label(path)} must be ${JSON.stringify(err.params['allowedValue'])}`);
    case 'enum': {
      const allowed = (err.params['allowedValues'] as unknown[]).map(String);
      const got = JSON.stringify(err.data);
      // An HMAC algorithm is not a near miss: it would need a secret shared with the issuer.
      const hmac = path.at(-2) === 'algorithms' && typeof err.data === 'string' && /^HS/.test(err.data);
      const s = hmac
        ? 'HMAC needs a secret shared with the issuer: a resource server accepts only public-key signatures'
        : typeof err.data === 'string'
          ? didYouMean(err.data, allowed)
          : '';
      return make('TS009', `${label(path)} must be one of ${quoteList(allowed)}, not ${got}`, s);
    }
    case 'pattern':
      if (path.length === 3 && path[0] === 'tools' && last === 'name') {
        const name = String(err.data);
        const fixed = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128) || 'my_tool';
        return make(
          'TS011',
          `invalid tool name ${JSON.stringify(name)}`,
          `MCP tool names are 1 to 128 characters of A-Z a-z 0-9 _ - . (case-sensitive); e.g. "${fixed}"`,
        );
      }
      if (path[0] === 'tools' && path[2] === 'renamedFrom')
        return make(
          'TS043',
          `renamedFrom names ${JSON.stringify(String(err.data))}, which is not a valid tool name`,
          'a former name is what the tool was called in the spec: 1 to 128 characters of A-Z a-z 0-9 _ - .',
        );
      if (path[path.length - 2] === 'scopes')
        return make(
          'TS009',
          `${JSON.stringify(String(err.data))} is not an OAuth scope`,
          'a scope is printable ASCII without spaces, double quotes or backslashes (RFC 6749 §3.3); list several as several entries',
        );
      if (last === 'src')
        return make('TS009', `icon src must be an https: or data: URI`, 'e.g. src: https://example.com/icon.png');
      if (last === 'uri' || last === 'uriTemplate') {
        const value = String(err.data);
        const what = last === 'uri' ? 'a resource URI' : 'a URI template';
        return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)
          ? make(
              'TS009',
              `${what} cannot hold white space or a control character`,
              'percent-encode it, e.g. %20 for a space',
            )
          : make(
              'TS009',
              `${what} must be absolute: ${JSON.stringify(value)} has no scheme`,
              `start it with a scheme of your server's own, e.g. ${JSON.stringify(`app://${value.replace(/^\/+/, '')}`)}`,
            );
      }
      return make('TS009', `${label(path)} must match ${String(err.params['pattern'])}`);
    case 'propertyNames': {
      const name = String(err.params['propertyName']);
      return make(
        'TS009',
        `invalid $defs name "${name}"`,
        'names of shared schemas start with a letter or _ and hold only letters, digits, _ - .',
        at([...path, name], true),
      );
    }
    case 'format':
      return make(
        'TS009',
        `${label(path)} must be a valid ${String(err.params['format'])}, not ${JSON.stringify(err.data)}`,
      );
    default:
      return make('TS009', `${label(path)} ${err.message ?? 'is invalid'}`);
  }
}

/** "annotations of tool \"search\"", "the spec", "server": where an object sits, in words. */
function context(path: readonly (string | number)[], title: string | undefined, data: unknown, kind: string): string {
  if (path.length === 0) return kind === 'main' ? 'the spec' : 'an included file';
  const what = title ?? label(path);
  if (path[0] !== 'tools' || typeof path[1] !== 'number') return what;
  const tool = (data as { tools?: { name?: unknown }[] }).tools?.[path[1]];
  const name = typeof tool?.name === 'string' ? `tool "${tool.name}"` : `tools[${path[1]}]`;
  return path.length === 2 ? name : `${what} of ${name}`;
}

function label(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the file';
  return `"${path
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[')}"`;
}

function article(t: string): string {
  if (t === 'null') return 'null';
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `the integer ${v}` : `the number ${v}`;
  return `${typeof v} ${String(v)}`;
}

/** A JSON pointer into `data` as path segments; array indexes become numbers. */
export function pointerToPath(pointer: string, data: unknown): (string | number)[] {
  let cur = data;
  return pointerSegments(pointer).map((seg) => {
    const step = Array.isArray(cur) ? Number(seg) : seg;
    cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[step] : undefined;
    return step;
  });
}
