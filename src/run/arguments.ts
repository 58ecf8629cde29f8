/**
 * The arguments of `toolspec call`, from the command line to the object the dispatcher validates (a prompt's: its
 * strings), and the argument table of `call --list`. Pure: the tool's input schema (as tools/list shows it) in, values
 * or text out.
 *
 * The rules, as `call --help` and docs/commands/call.md state them:
 * - `key=value`: the value is read by the type the schema gives the property. A string property takes the text as
 *   it is (`name=007` stays "007"); a number, integer, boolean or null property takes its JSON reading (`limit=5` →
 *   5, `dry=true` → true); an array property takes a JSON array (`tags='["a","b"]'`), or else the text split at
 *   commas, each item read by the items' type (`ids=1,2,3` → [1, 2, 3]), and a repeated key adds items
 *   (`tag=a tag=b`); an object property takes JSON. A property with no type (or several) takes the JSON reading
 *   when there is one of an allowed type, else the text.
 * - `key:=json`: the value is JSON, whatever the schema says (`note:=null`, `filter:='{"tag":"x"}'`).
 * - `--json '{…}'`: the whole arguments object; `key=value` pairs after it set (or replace) its top-level keys.
 * A value that does not fit (`limit=abc`) is passed on as text: the tool's validator rejects it with the same
 * message a client would get from the server. Only what cannot be read at all (no `=`, a key given twice, JSON that
 * does not parse) is a usage error.
 */
import { isObject, jsonType, resolvePointer, type JsonType } from '../pipeline/schema/keywords.js';
type Schema = Record<string, unknown>;

export class ArgumentError extends Error {}

/** Parses the pairs (and the --json object) into the tool's arguments. Throws ArgumentError on unreadable input. */
export function parseArguments(
  pairs: readonly string[],
  json: string | undefined,
  inputSchema: Schema,
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    const parsed = readJson(json);
    if (!parsed.ok) throw new ArgumentError(`--json is not valid JSON: ${parsed.error}`);
    if (!isObject(parsed.value))
      throw new ArgumentError(`--json must be a JSON object (the tool's arguments), not ${jsonType(parsed.value)}`);
    args = parsed.value;
  }
  const given = new Set<string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || (eq === 1 && pair[0] === ':'))
      throw new ArgumentError(
        `expected key=value (or key:=json), not ${JSON.stringify(pair)}; \`toolspec call --list\` shows the arguments`,
      );
    const raw = pair[eq - 1] === ':';
    const key = pair.slice(0, raw ? eq - 1 : eq);
    const text = pair.slice(eq + 1);
    const property = propertySchema(inputSchema, key);
    if (raw) {
      if (given.has(key)) throw new ArgumentError(`${key} is given twice`);
      const parsed = readJson(text);
      if (!parsed.ok)
        throw new ArgumentError(`${key}:= takes JSON, and ${JSON.stringify(text)} is not: ${parsed.error}`);
      args[key] = parsed.value;
    } else if (given.has(key)) {
      // A repeated key adds items to an array property; anything else given twice is a mistake.
      const current = args[key];
      const array = typesOf(property, inputSchema)?.includes('array');
      if (!array || !Array.isArray(current)) throw new ArgumentError(`${key} is given twice`);
      current.push(...arrayItems(text, property, inputSchema, key));
    } else {
      args[key] = coerce(text, property, inputSchema, key);
    }
    given.add(key);
  }
  return args;
}

/** A prompt's arguments: --json's strings, then the key=value pairs over them (own keys, `__proto__` too). */
export function promptArguments(pairs: readonly string[], json: string | undefined): Record<string, string> {
  const entries: [string, string][] = [];
  if (json !== undefined) {
    const parsed = readJson(json);
    if (!parsed.ok) throw new ArgumentError('--json is not JSON');
    if (!isObject(parsed.value)) throw new ArgumentError('--json must be an object of strings');
    for (const [k, v] of Object.entries(parsed.value)) {
      if (typeof v !== 'string')
        throw new ArgumentError(`--json: prompt arguments are strings, and ${JSON.stringify(k)} is not`);
      entries.push([k, v]);
    }
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new ArgumentError(`${JSON.stringify(pair)} is not key=value`);
    entries.push([pair.slice(0, eq), pair.slice(eq + 1)]);
  }
  return Object.fromEntries(entries);
}

function coerce(text: string, property: Schema | undefined, root: Schema, key: string): unknown {
  const types = typesOf(property, root);
  if (types?.length === 1 && types[0] === 'string') return text;
  const parsed = readJson(text);
  if (types?.length === 1 && types[0] === 'object') {
    if (parsed.ok) return parsed.value;
    throw new ArgumentError(
      `${key} is an object: give it as JSON, e.g. ${key}='{"…": …}' (${JSON.stringify(text)} is not JSON)`,
    );
  }
  if (parsed.ok && typeof parsed.value !== 'string' && fits(parsed.value, types)) return parsed.value;
  if (!types || types.includes('string')) return text;
  if (types.includes('array')) {
    if (text.trimStart().startsWith('[')) {
      if (parsed.ok) return parsed.value;
      throw new ArgumentError(`${key}: ${JSON.stringify(text)} starts like a JSON array but is not valid JSON`);
    }
    return arrayItems(text, property, root, key);
  }
  // Not of any allowed type: the validator says so, with the server's own words.
  return parsed.ok ? parsed.value : text;
}

function arrayItems(text: string, property: Schema | undefined, root: Schema, key: string): unknown[] {
  if (text === '') return [];
  const items = property && isObject(property['items']) ? resolve(property['items'], root) : undefined;
  return text.split(',').map((item) => coerce(item, items, root, `${key} item`));
}

/** JSON.parse's value, or its error's message. */
function readJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

function fits(value: unknown, types: readonly JsonType[] | undefined): boolean {
  if (!types) return true;
  const t = jsonType(value);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

/** The schema of a top-level property, `$ref`s followed. */
export function propertySchema(inputSchema: Schema, key: string): Schema | undefined {
  const root = resolve(inputSchema, inputSchema);
  const props = root && isObject(root['properties']) ? root['properties'] : undefined;
  const own = props && Object.hasOwn(props, key) && isObject(props[key]) ? props[key] : undefined;
  return own ? resolve(own, inputSchema) : undefined;
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`) followed, a few levels deep; otherwise the schema itself. */
function resolve(schema: Schema | undefined, root: Schema): Schema | undefined {
  let s = schema;
  for (let depth = 0; s && typeof s['$ref'] === 'string' && depth < 16; depth++) {
    const target = resolvePointer(root, s['$ref']);
    if (!isObject(target)) return s;
    // Keywords beside the $ref (a description, a default) stay; the type comes from the target when not given.
    const { $ref: _, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

/** The JSON types a schema allows: `type`, or those of its enum/const values or of its anyOf/oneOf branches. */
export function typesOf(schema: Schema | undefined, root: Schema): JsonType[] | undefined {
  const s = resolve(schema, root);
  if (!s) return undefined;
  const t = s['type'];
  if (typeof t === 'string') return [t as JsonType];
  if (Array.isArray(t)) return t.filter((x): x is JsonType => typeof x === 'string');
  const values = Array.isArray(s['enum']) ? s['enum'] : 'const' in s ? [s['const']] : undefined;
  if (values) return [...new Set(values.map(jsonType))];
  // Every branch must say its types, or the schema allows any.
  const branches = ([s['anyOf'], s['oneOf']].find(Array.isArray) as unknown[] | undefined)?.map((b) =>
    isObject(b) ? typesOf(b, root) : undefined,
  );
  return branches?.every((b) => b !== undefined) ? [...new Set(branches.flat())] : undefined;
}

/** Each top-level argument of a tool: name, type as a reader would write it, required, default, description. */
export function argumentRows(inputSchema: Schema) {
  const root = resolve(inputSchema, inputSchema) ?? {};
  const props = isObject(root['properties']) ? root['properties'] : {};
  const required = new Set(Array.isArray(root['required']) ? root['required'].map(String) : []);
  return Object.keys(props).map((name) => {
    const s = resolve(isObject(props[name]) ? props[name] : undefined, inputSchema) ?? {};
    return {
      name,
      type: typeText(s, inputSchema),
      required: required.has(name),
      ...('default' in s ? { default: s['default'] } : {}),
      ...(typeof s['description'] === 'string' ? { description: s['description'] } : {}),
    };
  });
}

function typeText(s: Schema, root: Schema): string {
  const values = Array.isArray(s['enum']) ? s['enum'] : 'const' in s ? [s['const']] : undefined;
  if (values) return values.map((v) => JSON.stringify(v)).join(' | ');
  const types = typesOf(s, root);
  if (!types) return 'any';
  return types
    .map((t) => {
      if (t !== 'array') return t;
      const items = isObject(s['items']) ? resolve(s['items'], root) : undefined;
      const inner = items ? typeText(items, root) : 'any';
      return /[ |]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
    })
    .join(' | ');
}
