/**
 * types.ts: a TypeScript type for every tool's arguments, input (after schema defaults) and output, and for the
 * shared $defs, from one combined schema fed to json-schema-to-typescript so names are stable across tools.
 */
import { INHERITED_NAMES, placeholder } from '../../../templates/runtime/arguments.js';
import type { SchemaModel, ServerModel, ToolModel } from '../model.js';
import { pascalCase } from '../../core/names.js';
import { isObject, mapChildren, pointerToken, walkSchema } from '../schema/keywords.js';
import { formatEach, formatPieces, type PieceStore } from './format.js';
import { jsdoc, visibleControls } from './text.js';

/** The name of a tool's interface in types.ts, which contract.ts's ToolTypes lists. */
export const toolInterface = (typeName: string) => `${typeName}Tool`;

type Schema = Record<string, unknown>;

/** The type names of one tool, as contract.ts refers to them. */
export function toolTypeNames(t: ToolModel) {
  return {
    args: `${t.typeName}Arguments`,
    input: `${t.typeName}Input`,
    ...(t.output ? { output: `${t.typeName}Output` } : {}),
    /** True when schema defaults make `input` differ from `args`. */
    hasDefaults: hasDefaults(t.input.schema),
  };
}

type ToolTypeNames = ReturnType<typeof toolTypeNames>;

/**
 * A tool's interface for contract.ts, under its description, as prettier prints it (test/format.test.ts holds
 * prettier to leaving it as it is): kept pieces need no printer when only a description changed.
 */
export function toolInterfaceText(typeName: string, description: string | undefined, n: ToolTypeNames): string {
  const fields = [`arguments: ${n.args};`, `input: ${n.input};`, ...(n.output ? [`output: ${n.output};`] : [])];
  const body = fields.map((f) => `  ${f}\n`).join('');
  return `${jsdoc(description)}export interface ${toolInterface(typeName)} {\n${body}}\n`;
}

const ROOT = 'ToolspecTypes';
/**
 * Property names every object inherits (`__proto__`, `hasOwnProperty`, `constructor`, …) trip
 * json-schema-to-typescript, which reads its input's properties as a plain object's: they go in under placeholders
 * and come back quoted in the output.
 */
const INHERITED_BACK = new RegExp(
  `"?${placeholder(`(${[...INHERITED_NAMES].sort((a, b) => b.length - a.length).join('|')})`)}"?`,
  'g',
);

/**
 * types.ts as formatted pieces (format.ts): each tool's types with its interface for contract.ts (`${typeName}Tool`:
 * its arguments, input and output, under its description), each shared definition's, then the aliases. A piece is
 * kept in the store formatted, by its whole input. `format: false`: the pieces as they go to prettier (its tests).
 */
export async function emitTypes(
  model: ServerModel,
  store?: PieceStore,
  { format = true }: { format?: boolean } = {},
): Promise<string[]> {
  const names = new Map(model.tools.map((t) => [t.name, toolTypeNames(t)]));
  // The tools' interfaces too (`${typeName}Tool`, written here below each tool's types).
  const taken = new Set<string>([ROOT, ...model.tools.map((t) => toolInterface(t.typeName))]);
  for (const n of names.values()) [n.args, n.input, n.output].forEach((x) => x && taken.add(x));
  const unique = (wanted: string) => {
    let name = wanted;
    for (let i = 2; taken.has(name); i++) name = `${wanted}${i}`;
    taken.add(name);
    return name;
  };

  const defs: Schema = {};
  const sharedNames = new Map<string, string>();
  const aliases: string[] = [];
  /** The keys of `defs` the tool being added owns, in order: its own definitions' and its types'. */
  let added: string[] = [];
  const add = (schema: SchemaModel, base: string, transform: (s: Schema) => Schema) => {
    // Each definition is named first, then compiled: a ref may point to one named after it.
    const own = new Map<string, string>();
    const newShared: [string, unknown][] = [];
    const newOwn: [string, unknown][] = [];
    for (const container of ['$defs', 'definitions'] as const) {
      const d = schema.schema[container];
      if (!isObject(d)) continue;
      for (const [name, value] of Object.entries(d)) {
        if (container === '$defs' && schema.sharedDefs.includes(name)) {
          if (sharedNames.has(name)) continue;
          const n = unique(pascalCase(name) ?? 'Def');
          sharedNames.set(name, n);
          newShared.push([n, value]);
        } else {
          const n = unique(`${base}${pascalCase(name) ?? 'Def'}`);
          own.set(`${container}/${name}`, n);
          newOwn.push([n, value]);
        }
      }
    }
    // Bundling is transitive, so every shared def these refer to is named by now.
    for (const [n, value] of newShared)
      defs[n] = forTypes(asSchemaObject(value), (r) => rewrite(r, new Map(), sharedNames, n));
    for (const [n, value] of newOwn) {
      defs[n] = forTypes(asSchemaObject(value), (r) => rewrite(r, own, sharedNames, base));
      added.push(n);
    }
    const body: Schema = Object.fromEntries(
      Object.entries(schema.schema).filter(([k]) => k !== '$defs' && k !== 'definitions'),
    );
    // A root that is a $ref would be named after its target; as allOf it keeps the tool's own name.
    if (typeof body['$ref'] === 'string') {
      body['allOf'] = [{ $ref: body['$ref'] }, ...(Array.isArray(body['allOf']) ? body['allOf'] : [])];
      delete body['$ref'];
    }
    defs[base] = transform(forTypes(body, (r) => rewrite(r, own, sharedNames, base)) as Schema);
    added.push(base);
  };

  // The keys each tool adds to `defs` (its own; shared ones are everyone's), to set a tool aside if it cannot be typed.
  // Every name is new when added (unique() above, and the tools' type names are unique), so this is what the tool
  // adds to `defs`, in order.
  const keysOf = new Map<string, string[]>();
  const sharedKeys = () => new Set(sharedNames.values());
  for (const tool of model.tools) {
    const n = names.get(tool.name)!;
    added = [];
    if (n.hasDefaults) {
      add(tool.input, n.args, (s) => s);
      add(tool.input, n.input, withDefaultsRequired);
    } else {
      add(tool.input, n.input, (s) => s);
      aliases.push(
        `/** The arguments a client sends; this tool's schema has no defaults. */\nexport type ${n.args} = ${n.input};\n`,
      );
    }
    if (tool.output && n.output) add(tool.output, n.output, (s) => s);
    keysOf.set(tool.name, added);
  }

  const tails = new Map(
    model.tools.map((t) => [t.name, toolInterfaceText(t.typeName, t.definition.description, names.get(t.name)!)]),
  );
  const finish = format ? formatEach : async (texts: string[]) => texts;
  let pieces: string[];
  try {
    pieces = await typesInPieces(defs, keysOf, sharedKeys(), tails, finish, store);
  } catch {
    const all = await typesWithLoose(defs, keysOf, names, sharedKeys());
    pieces = await finish([[cleaned(all), ...tails.values()].join('\n')]);
  }
  // A tool's type that json-schema-to-typescript named otherwise (it happens with some anyOf shapes) still exists.
  // The declared names are read in one pass: a search per name would cost the whole text per tool.
  const declared = new Set(
    pieces.flatMap((p) => [...p.matchAll(/^export (?:interface|type) (\w+)\b/gm)].map((m) => m[1])),
  );
  const loose = [...names.values()]
    .flatMap((n) => [n.hasDefaults ? n.args : undefined, n.input, n.output])
    .filter((name) => name && !declared.has(name))
    .map((name) => `export type ${name} = ${LOOSE_TYPE};\n`);
  const rest = [loose.join(''), aliases.join('\n')];
  return [...pieces, ...(format ? await Promise.all(rest.map((r) => formatPieces([r], store))) : rest)].filter((p) =>
    p.trim(),
  );
}

/**
 * json-schema-to-typescript's text of a piece, tidied before it is formatted: no empty root, no "referenced by"
 * notes, no empty comments, inherited names back, and a blank line before each top-level declaration (its output
 * is unindented: a top-level one is the one that starts with `export`, with the comment before it).
 */
function cleaned(text: string): string {
  return text
    .replace(EMPTY_ROOT, '')
    .replace(
      /^ \* This (?:interface|type) was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "[^\n]*"\.\n/gm,
      '',
    )
    .replace(/^\/\*\*\n \*\/\n/gm, '')
    .replace(INHERITED_BACK, (_m, name: string) => (name === '__proto__' ? '"__proto__"' : name))
    .replace(/\n(?=(?:\/\*\*\n(?: \*.*\n)*? \*\/\n)?export )/g, '\n\n');
}

const LOOSE_TYPE = '{ [k: string]: unknown }';
const LOOSE: Schema = { type: 'object', additionalProperties: true };

/**
 * The combined schema's types, a piece at a time: each tool's definitions, and each shared definition, compiled
 * alone, in the order the combined schema holds them, with a ref to a definition of another piece written as the
 * name of its type (every definition is declared under its name). A piece is a function of its own schema, so one
 * whose input is unchanged is taken from the store: an edit to one tool runs the type generator on that tool alone.
 * A tool's interface (its tail) follows its last piece, written as prettier prints it: with a store it is taken as
 * it is, so a description edit runs neither the generator nor the printer; without one (check) it is
 * printed like the rest, so check compares generate's text with prettier's (test/format.test.ts holds the two equal
 * on drawn descriptions).
 */
export async function typesInPieces(
  defs: Schema,
  keysOf: ReadonlyMap<string, string[]>,
  shared: ReadonlySet<string>,
  tails: ReadonlyMap<string, string>,
  finish: (texts: string[]) => Promise<string[]>,
  store?: PieceStore,
): Promise<string[]> {
  const owner = new Map<string, string>();
  for (const [tool, keys] of keysOf) for (const k of keys) owner.set(k, tool);
  const pieces: { keys: string[]; tool?: string | undefined }[] = [];
  let last: string | undefined;
  for (const key of Object.keys(defs)) {
    const tool = shared.has(key) ? undefined : owner.get(key);
    const of = tool === undefined ? `other:${key}` : `tool:${tool}`;
    if (of !== last || !pieces.length) pieces.push({ keys: [], tool });
    pieces.at(-1)!.keys.push(key);
    last = of;
  }
  // A tool's interface goes after its last piece (its output's types may come after a shared definition).
  const lastOf = new Map(pieces.map((p, i) => [p.tool, i]));
  const inputs = pieces.map(({ keys }) => {
    const inside = new Set(keys);
    const piece = Object.fromEntries(keys.map((k) => [k, namedOutside(defs[k], inside, defs)]));
    return { piece, key: JSON.stringify(piece) };
  });
  const texts = inputs.map(({ key }) => store?.get('types', key));
  const missing = [...texts.keys()].filter((i) => texts[i] === undefined);
  const raw = await Promise.all(missing.map(async (i) => cleaned(await typesOf(inputs[i]!.piece))));
  const ownTails = pieces.map(({ tool }, i) => (tool !== undefined && lastOf.get(tool) === i ? tails.get(tool)! : ''));
  const printTails = store ? [] : ownTails.filter(Boolean);
  const done = await finish([...raw, ...printTails]);
  missing.forEach((i, j) => {
    texts[i] = done[j]!;
    store?.put('types', inputs[i]!.key, done[j]!);
  });
  const printed = done.slice(raw.length);
  return texts.flatMap((text, i) => (ownTails[i] ? [text!, store ? ownTails[i] : printed.shift()!] : [text!]));
}

const EMPTY_ROOT = new RegExp(`^export interface ${ROOT} \\{\\s*\\}\\n?`, 'm');

/** A ref to a whole definition outside the piece, as the name of its type; refs inside the piece stay. */
function namedOutside(schema: unknown, inside: ReadonlySet<string>, defs: Schema): unknown {
  if (!isObject(schema)) return schema;
  const node = mapChildren(schema, (c) => namedOutside(c, inside, defs));
  const ref = node['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return node;
  const name = ref.slice('#/$defs/'.length);
  if (inside.has(name.split('/')[0]!)) return node;
  // A ref into part of another piece's definition cannot be named: the whole is compiled at once (emitTypes).
  if (!Object.hasOwn(defs, name)) throw new Error(`a ref into another piece: ${ref}`);
  const { $ref: _ref, ...rest } = node;
  return { ...rest, tsType: name };
}

/** json-schema-to-typescript on the combined schema (or a piece of it). */
export async function typesOf(defs: Schema): Promise<string> {
  const { compile } = await import('json-schema-to-typescript');
  const root = { type: 'object', properties: {}, additionalProperties: false, $defs: defs };
  return compile(root as never, ROOT, {
    bannerComment: '',
    format: false,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
    additionalProperties: true,
    // Arrays stay arrays whatever minItems/maxItems say: json-schema-to-typescript would otherwise expand
    // `maxItems: 10` into an 11-way union of tuples that an ordinary string[] does not fit.
    maxItems: -1,
    $refOptions: { resolve: { external: false } } as never,
  });
}

/**
 * The types with loose object types for the tools whose schemas json-schema-to-typescript cannot turn into types (it
 * throws on a few valid shapes, such as some recursive refs with siblings; their arguments are still validated
 * against their schemas at run time). Each tool is tried alone, with the shared definitions; if the shared
 * definitions themselves are the trouble, every tool is loose.
 */
async function typesWithLoose(
  defs: Schema,
  keysOf: Map<string, string[]>,
  names: Map<string, ToolTypeNames>,
  shared: Set<string>,
): Promise<string> {
  const failing: string[] = [];
  const sharedDefs = Object.fromEntries(Object.entries(defs).filter(([k]) => shared.has(k)));
  for (const [tool, keys] of keysOf) {
    try {
      await typesOf({ ...sharedDefs, ...Object.fromEntries(keys.map((k) => [k, defs[k]])) });
    } catch {
      failing.push(tool);
    }
  }
  const loosen = (tools: Iterable<string>, into: Schema) => {
    for (const t of tools) {
      for (const k of keysOf.get(t)!) delete into[k];
      const n = names.get(t)!;
      for (const name of [n.hasDefaults ? n.args : undefined, n.input, n.output]) if (name) into[name] = LOOSE;
    }
    return into;
  };
  try {
    return await typesOf(loosen(failing, { ...defs }));
  } catch {
    const all = Object.fromEntries(Object.entries(defs).filter(([k]) => !shared.has(k)));
    return typesOf(loosen(keysOf.keys(), all));
  }
}

/** A schema as json-schema-to-typescript should read it: refs renamed, titles and ids dropped, 2020-12 tuples as draft-07. */
function forTypes(schema: unknown, rename: (ref: string) => string): unknown {
  if (!isObject(schema)) return schema;
  const node = mapChildren(schema, (c) => forTypes(c, rename));
  // An array of one item schema stays an ordinary array: `minItems: 1` would type it [T, ...T[]], which a T[] the
  // handler built does not fit. Tuples (prefixItems, draft-07 items arrays) keep their bounds.
  if (!Array.isArray(node['prefixItems']) && !Array.isArray(node['items'])) {
    delete node['minItems'];
    delete node['maxItems'];
  }
  for (const k of ['title', '$id', '$schema', '$anchor', '$comment']) delete node[k];
  if (typeof node['$ref'] === 'string') node['$ref'] = rename(node['$ref']);
  if (Array.isArray(node['prefixItems'])) {
    const rest = node['items'];
    node['items'] = node['prefixItems'];
    delete node['prefixItems'];
    if (rest !== undefined) node['additionalItems'] = rest;
  }
  if (typeof node['description'] === 'string') node['description'] = visibleControls(node['description']);
  const props = node['properties'];
  if (isObject(props) && Object.keys(props).some((k) => INHERITED_NAMES.has(k))) {
    const rename = (k: unknown) => (typeof k === 'string' && INHERITED_NAMES.has(k) ? placeholder(k) : k);
    node['properties'] = Object.fromEntries(Object.entries(props).map(([k, v]) => [rename(k), v]));
    if (Array.isArray(node['required'])) node['required'] = node['required'].map(rename);
  }
  return node;
}

/** Points a ref of one tool schema into the combined schema's $defs. */
function rewrite(ref: string, own: Map<string, string>, shared: Map<string, string>, base: string): string {
  if (ref === '#') return `#/$defs/${base}`;
  const m = /^#\/(\$defs|definitions)\/([^/]+)(\/.*)?$/.exec(ref);
  if (m) {
    const [, container, token, rest = ''] = m as unknown as [string, string, string, string | undefined];
    const name = pointerToken(token);
    const target = own.get(`${container}/${name}`) ?? (container === '$defs' ? shared.get(name) : undefined);
    if (target) return `#/$defs/${target}${rest}`;
  }
  return ref.startsWith('#/') ? `#/$defs/${base}${ref.slice(1)}` : ref;
}

/** A definition that is a boolean schema, as an object: json-schema-to-typescript cannot be pointed at `true`. */
function asSchemaObject(value: unknown): unknown {
  return value === true ? {} : value === false ? { not: {} } : value;
}

/** Properties with a default are always present after validation: required in the handler's type. */
function withDefaultsRequired(schema: Schema): Schema {
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const out = mapChildren(node, (child, path) =>
      path[0] === 'properties' || path[0] === 'items' || path[0] === 'additionalProperties' ? visit(child) : child,
    );
    const props = out['properties'];
    if (isObject(props)) {
      const withDefault = Object.entries(props)
        .filter(([, v]) => isObject(v) && 'default' in v)
        .map(([k]) => k);
      if (withDefault.length) {
        const required = Array.isArray(out['required']) ? (out['required'] as string[]) : [];
        out['required'] = [...required, ...withDefault.filter((k) => !required.includes(k))];
      }
    }
    return out;
  };
  return visit(schema) as Schema;
}

function hasDefaults(schema: Schema): boolean {
  let found = false;
  walkSchema(schema, (node) => {
    const props = node['properties'];
    if (isObject(props) && Object.values(props).some((v) => isObject(v) && 'default' in v)) found = true;
  });
  return found;
}
