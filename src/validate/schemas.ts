/**
 * A tool's inputSchema or outputSchema: its dialect, its keywords and types, its $refs (shared $defs are bundled
 * into the schema's own $defs), ref loops, the dialect's meta-schema, and finally ajv in strict mode.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { diagnostic, type Diagnostic, type DiagnosticCode, type Diagnostics, type Span } from '../diagnostics.js';
import type { Origin, RawDef } from '../load/load.js';
import { didYouMean, quoteList } from '../suggest.js';
import { compileSchema, type AjvSet, type AnyAjv, type CompiledSchema } from './ajv.js';
import { memo } from './memo.js';
import {
  DIALECT_URIS,
  FORMATS,
  FOREIGN_KEYWORDS,
  IN_PLACE,
  KEYWORDS,
  TYPES,
  children,
  dialectOf,
  isObject,
  pointerSegments,
  resolvePointer,
  walkSchema,
  type Dialect,
  type SchemaPath,
} from '../schema/keywords.js';
import { pointerToPath } from '../load/structure.js';
import { inheritedNames, renameInherited, renameValue } from './inherited.js';
import { MAX_EXPANDED_NODES } from '../load/limits.js';
import { checkMcpHeaders } from './mcp-header.js';
import { backtracksExponentially } from './regex.js';

export interface CheckedSchema {
  /** The schema as clients receive it: the author's schema with the shared $defs it uses bundled in. */
  schema: Record<string, unknown>;
  dialect: Dialect;
  /** Names under $defs that were bundled from the spec's shared $defs (the rest are the schema's own). */
  sharedDefs: string[];
  validate: ValidateFunction;
  /** Compiled in an instance of its own: the validator and its standalone code. */
  compiled: CompiledSchema;
}

const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  bool: 'boolean',
  float: 'number',
  double: 'number',
  str: 'string',
  list: 'array',
  dict: 'object',
  map: 'object',
  none: 'null',
  date: 'string',
  any: '(leave "type" out to accept any value)',
};

type Locate = (p: SchemaPath, key?: boolean) => Span;

export function checkToolSchema(
  raw: unknown,
  origin: Origin,
  which: 'inputSchema' | 'outputSchema',
  defs: ReadonlyMap<string, RawDef>,
  diags: Diagnostics,
  ajvs: AjvSet,
): CheckedSchema | undefined {
  if (!isObject(raw)) return undefined; // the structure check has said so
  let errors = 0;
  const report = (code: DiagnosticCode, span: Span, message: string, hint?: string) => {
    errors++;
    diags.add(diagnostic(code, span, message, hint || undefined));
  };
  const own: Locate = (p, key = false) => origin.file.locate([...origin.path, ...p], { key });

  // Dialect.
  let dialect: Dialect = '2020-12';
  if ('$schema' in raw) {
    const uri = raw['$schema'];
    const d = typeof uri === 'string' ? dialectOf(uri) : undefined;
    if (!d) {
      report(
        'TS024',
        own(['$schema']),
        `unsupported JSON Schema dialect ${JSON.stringify(uri)} in ${which}`,
        `toolspec reads ${quoteList(Object.values(DIALECT_URIS))}; leave $schema out for 2020-12`,
      );
      return undefined;
    }
    dialect = d;
  }

  // Arguments are an object (MCP passes them as one); a tool's output may be any JSON value since 2026-07-28
  // (SEP-2106): 2025 clients see a root that is not an object wrapped as {result}.
  const rootType = raw['type'];
  if (
    which === 'inputSchema' &&
    rootType !== 'object' &&
    !(Array.isArray(rootType) && rootType.length === 1 && rootType[0] === 'object')
  ) {
    report(
      'TS023',
      rootType === undefined ? origin.file.locate(origin.path, { key: true }) : own(['type']),
      rootType === undefined
        ? `${which} has no "type: object" at its root`
        : `${which} must have type "object" at its root, not ${JSON.stringify(rootType)}`,
      rootType === undefined && typeof raw['$ref'] === 'string'
        ? `clients look for "type: object" at the root and do not follow "$ref" there: write type: object beside the $ref (it keeps the shared definition), or inline the definition`
        : 'MCP passes arguments as an object; put parameters under properties. A tool without parameters takes { type: object, additionalProperties: false }',
    );
  }

  // Bundle the shared $defs the schema uses, walking each part with the locator of the file it came from.
  const bundled = structuredClone(raw) as Record<string, unknown>;
  const localDefs = isObject(bundled['$defs']) ? bundled['$defs'] : {};
  const added = new Map<string, unknown>();
  const locators = new Map<string, Locate>();
  const locate: Locate = (p, key) => {
    if (p[0] === '$defs' && typeof p[1] === 'string' && locators.has(p[1])) return locators.get(p[1])!(p.slice(2), key);
    return own(p, key);
  };
  const extensionKeywords = new Set<string>();
  const pending: { schema: unknown; loc: Locate }[] = [{ schema: bundled, loc: own }];
  const refs: { ref: string; loc: Locate; path: SchemaPath }[] = [];

  while (pending.length) {
    const { schema, loc } = pending.pop()!;
    walkSchema(schema, (node, path) => {
      checkNode(node, path, dialect, loc, report, extensionKeywords);
      const ref = node['$ref'];
      if (typeof ref !== 'string') return;
      refs.push({ ref, loc, path });
      const segs = pointerSegments(ref);
      if (segs[0] !== '$defs' || segs.length < 2) return;
      const name = segs[1]!;
      if (Object.hasOwn(localDefs, name) || added.has(name)) return;
      const def = defs.get(name);
      if (!def) return; // reported with the other unresolved refs below
      const copy = structuredClone(def.value);
      added.set(name, copy);
      const defLoc: Locate = (p, key = false) => def.file.locate([...def.path, ...p], { key });
      locators.set(name, defLoc);
      pending.push({ schema: copy, loc: defLoc });
    });
  }
  if (added.size) {
    const names = [...added.keys()].sort();
    bundled['$defs'] = { ...localDefs, ...Object.fromEntries(names.map((n) => [n, added.get(n)])) };
  }

  // Every $ref must land somewhere inside the bundled schema.
  for (const { ref, loc, path } of refs) {
    const at = loc([...path, '$ref']);
    if (!ref.startsWith('#')) {
      report(
        'TS027',
        at,
        `$ref ${JSON.stringify(ref)} points outside the spec`,
        'toolspec resolves only refs inside the spec: put the schema under $defs and write $ref: "#/$defs/Name"',
      );
    } else if (/[\u2028\u2029]/.test(ref)) {
      // ajv reads a $ref as a URI, where a raw line or paragraph separator cannot stand: it would not resolve.
      const encoded = ref.replace(/[\u2028\u2029]/g, (c) => encodeURIComponent(c));
      report(
        'TS025',
        at,
        `$ref ${JSON.stringify(ref)} holds a raw ${ref.includes('\u2028') ? 'line separator (U+2028)' : 'paragraph separator (U+2029)'}, which a URI cannot hold`,
        `percent-encode it ($ref: ${JSON.stringify(encoded)}), or rename the $def to letters, digits, _ - .`,
      );
    } else if (/%(?![0-9A-Fa-f]{2})/.test(ref)) {
      report(
        'TS025',
        at,
        `$ref ${JSON.stringify(ref)} holds a "%" that does not start a percent-encoded byte`,
        `a $ref is a URI: write "%" itself as "%25" ($ref: ${JSON.stringify(ref.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))}), or rename the $def`,
      );
    } else if (ref.startsWith('#/') || ref === '#') {
      if (resolvePointer(bundled, ref) === undefined) {
        const segs = pointerSegments(ref);
        const names = [...Object.keys(localDefs), ...defs.keys()];
        const suggestion = segs[0] === '$defs' && segs[1] ? didYouMean(segs[1], names) : '';
        report(
          'TS025',
          at,
          `$ref ${JSON.stringify(ref)} points to nothing`,
          suggestion ||
            (names.length
              ? `shared schemas in this spec: ${names.join(', ')}`
              : 'define the schema under $defs at the top of the spec'),
        );
      }
    }
  }
  // Headers a 2026-07-28 client mirrors arguments into: a broken declaration makes clients drop the tool.
  checkMcpHeaders(bundled, which, locate, report);
  // The dialect's meta-schema, for what the walk above does not judge (types and $refs it has judged already).
  const ajv = ajvs.get(dialect, which === 'inputSchema' ? 'input' : 'output');
  for (const name of extensionKeywords) if (!ajv.getKeyword(name)) ajv.addKeyword({ keyword: name, schemaType: [] });
  // ajv judges by the instance's own meta-schema; the dialect was chosen above, so $schema need not resolve.
  // ($id goes too: it would clash between two tools that carry the same one, and every ref here is local.)
  const forAjv = { ...bundled };
  delete forAjv['$schema'];
  delete forAjv['$id'];
  if (!ajv.validateSchema(forAjv)) {
    for (const e of metaErrors(ajv.errors ?? [])) {
      const path = pointerToPath(e.instancePath, bundled);
      const hint =
        path[path.length - 1] === 'required' && typeof valueAt(bundled, path) === 'boolean'
          ? 'list required properties in the parent object\'s "required" array, e.g. required: [query]'
          : undefined;
      report('TS020', locate(path), `invalid schema: ${describeMeta(path, e)}`, hint);
    }
  }
  if (errors || findRefLoop(bundled, locate, report)) return undefined;
  // $refs that fan out (each $def pointing twice at the next) expand exponentially: inlining, lint, diff and the
  // type generator all follow them. Bounded here, once, for every schema.
  const expanded = expandedSize(bundled, MAX_EXPANDED_NODES);
  if (expanded > MAX_EXPANDED_NODES) {
    report(
      'TS042',
      origin.file.locate(origin.path, { key: true }),
      `${which} expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en')} schema nodes when its $refs are followed`,
      'some $defs point at others more than once, and those at others again, so each level doubles the whole: point at a shared schema from one place, or flatten the chain',
    );
    return undefined;
  }

  // ajv in strict mode is the final word; its warnings keep their positions.
  let compiled: CompiledSchema;
  try {
    compiled = compileSchema(forAjv, dialect, which === 'inputSchema' ? 'input' : 'output');
    for (const w of compiled.warnings) {
      const d = strictWarning(w, bundled, locate);
      if (d) diags.add(d);
    }
    checkDefaults(ajv, `${dialect}\0${which}`, dialect, forAjv, bundled, locate, report);
  } catch (e) {
    const message = cleanAjv(e instanceof Error ? e.message : String(e));
    report('TS028', locate(schemaPathIn(message, bundled)), `ajv rejects this ${which}: ${message}`);
    return undefined;
  }
  return { schema: bundled, dialect, sharedDefs: [...added.keys()].sort(), validate: compiled.validate, compiled };
}

/**
 * A `default` is filled in before the handler runs, and the handler's types promise it is there: it must match
 * its own schema (ajv never checks defaults itself). All defaults of a schema are checked in one compile: a tuple
 * whose items refer to each default's subschema inside the whole schema (given an $id, so its own $refs resolve).
 */
function checkDefaults(
  ajv: AnyAjv,
  judge: string,
  dialect: Dialect,
  forAjv: Record<string, unknown>,
  bundled: Record<string, unknown>,
  locate: Locate,
  report: (code: DiagnosticCode, span: Span, message: string, hint?: string) => void,
): void {
  const places: SchemaPath[] = [];
  walkSchema(bundled, (node, path) => {
    if ('default' in node) places.push(path);
  });
  if (!places.length) return;
  // The verdict is a function of the schema and the judge: an earlier load's holds (watch, dev).
  const key = `defaults\0${judge}\0${JSON.stringify(forAjv)}\0${JSON.stringify(bundled)}`;
  for (const [i, why] of memo(key, () => defaultProblems(ajv, dialect, forAjv, bundled, places))) {
    const path = places[i]!;
    const value = valueAt(bundled, [...path, 'default']);
    report(
      'TS034',
      locate([...path, 'default']),
      `default ${JSON.stringify(value)} does not match its own schema: ${[...new Set(why)].join('; ')}`,
      'defaults are filled in before the handler runs: make the default a value the schema accepts',
    );
  }
}

/** Which defaults (by their index in `places`) their own schemas reject, and why. */
function defaultProblems(
  ajv: AnyAjv,
  dialect: Dialect,
  forAjv: Record<string, unknown>,
  bundled: Record<string, unknown>,
  places: readonly SchemaPath[],
): [number, string[]][] {
  // Copies of just the subschemas that carry a default, beside the root's $defs, make a small schema to compile;
  // only a subschema that points elsewhere in the root (#/properties/…) needs the whole root behind it.
  const subschemas = places.map((p) => valueAt(bundled, p) as Record<string, unknown>);
  const pointsIntoRoot = subschemas.some((sub) => {
    let found = false;
    walkSchema(sub, (n) => {
      const r = n['$ref'];
      if (typeof r === 'string' && r.startsWith('#') && !/^#\/(\$defs|definitions)\//.test(r)) found = true;
    });
    return found;
  });
  const id = `urn:toolspec:defaults:${defaultsId++}`;
  const items = pointsIntoRoot
    ? places.map((p) => ({
        $ref: `${id}#${p.map((s) => `/${encodeURIComponent(String(s).replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`,
      }))
    : subschemas.map((sub) => {
        const { default: _default, ...rest } = sub;
        return rest;
      });
  const defsOf = (k: '$defs' | 'definitions') => (isObject(bundled[k]) ? { [k]: bundled[k] } : {});
  const tuple = pointsIntoRoot
    ? dialect === '2020-12'
      ? { $defs: { root: { ...forAjv, $id: id } }, type: 'array', prefixItems: items }
      : { definitions: { root: { ...forAjv, $id: id } }, type: 'array', items }
    : dialect === '2020-12'
      ? { ...defsOf('$defs'), ...defsOf('definitions'), type: 'array', prefixItems: items }
      : { ...defsOf('$defs'), ...defsOf('definitions'), type: 'array', items };
  // Keys named like inherited members are renamed on both sides, as the generated validators do (inherited.ts).
  const inherited = pointsIntoRoot ? new Set<string>() : new Set(inheritedNames(tuple));
  const compiledTuple = inherited.size ? (renameInherited(tuple, inherited) as typeof tuple) : tuple;
  const validate = ajv.compile(compiledTuple);
  try {
    const defaults = places.map((p) => structuredClone(valueAt(bundled, [...p, 'default'])));
    try {
      if (validate(inherited.size ? renameValue(defaults, inherited) : defaults)) return [];
    } catch {
      return []; // values ajv's deep equality cannot compare: left to the examples and the run time
    }
    const bad = new Map<number, string[]>();
    for (const e of validate.errors ?? []) {
      const m = /^\/(\d+)(.*)$/.exec(e.instancePath);
      if (!m) continue;
      const i = Number(m[1]);
      bad.set(i, [...(bad.get(i) ?? []), `${m[2] || 'the value'} ${e.message ?? e.keyword}`]);
    }
    return [...bad];
  } finally {
    ajv.removeSchema(compiledTuple);
    if (pointsIntoRoot) ajv.removeSchema(id);
  }
}

let defaultsId = 0;

function checkNode(
  node: Record<string, unknown>,
  path: SchemaPath,
  dialect: Dialect,
  loc: Locate,
  report: (code: DiagnosticCode, span: Span, message: string, hint?: string) => void,
  extensionKeywords: Set<string>,
): void {
  const known = KEYWORDS[dialect];
  for (const [key, value] of Object.entries(node)) {
    if (known.has(key)) continue;
    if (key.startsWith('x-')) {
      extensionKeywords.add(key);
      continue;
    }
    const other: Dialect = dialect === '2020-12' ? 'draft-07' : '2020-12';
    const hint = KEYWORDS[other].has(key)
      ? `"${key}" is a ${other} keyword and this schema is ${dialect}${dialect === 'draft-07' ? ' (its $schema says so)' : ' (no $schema means 2020-12)'}`
      : (FOREIGN_KEYWORDS[key] ??
        (didYouMean(key, known) ||
          (value === null
            ? 'a comma inside { … } separates entries: quote text that contains a comma, e.g. description: "a, b"'
            : '') ||
          (isObject(value) && 'type' in value
            ? `it looks like a property: nest it under "properties"`
            : 'custom keywords must start with "x-"')));
    report('TS021', loc([...path, key], true), `unknown JSON Schema keyword ${JSON.stringify(key)}`, hint);
  }
  // A pattern whose matching can backtrack exponentially freezes the server on one crafted argument (validation
  // runs on its event loop, and no timeout can interrupt it): refused, with the usual rewrite.
  const patterns: [string, SchemaPath][] = [];
  if (typeof node['pattern'] === 'string') patterns.push([node['pattern'], [...path, 'pattern']]);
  if (isObject(node['patternProperties'])) {
    for (const k of Object.keys(node['patternProperties'])) patterns.push([k, [...path, 'patternProperties', k]]);
  }
  for (const [pattern, at] of patterns) {
    let valid = true;
    try {
      new RegExp(pattern, 'u');
    } catch {
      valid = false; // ajv reports it, with its own message
    }
    if (valid && backtracksExponentially(pattern)) {
      report(
        'TS041',
        loc(at, at[at.length - 2] === 'patternProperties'),
        `pattern ${JSON.stringify(pattern)} can take exponential time to match (a repetition inside a repetition)`,
        'a crafted argument would freeze the server while it validates: rewrite it without nested quantifiers, e.g. ^([a-z]+)+$ as ^[a-z]+$, or (\\w+\\s?)* as [\\w\\s]*',
      );
    }
  }
  if ('type' in node) {
    const t = node['type'];
    const list = Array.isArray(t) ? t : [t];
    list.forEach((v, i) => {
      if (typeof v === 'string' && (TYPES as readonly string[]).includes(v)) return;
      const at = loc(Array.isArray(t) ? [...path, 'type', i] : [...path, 'type']);
      const alias = typeof v === 'string' ? TYPE_ALIASES[v.toLowerCase()] : undefined;
      const suggestion = typeof v === 'string' ? didYouMean(v, TYPES) : '';
      report(
        'TS022',
        at,
        `unknown type ${JSON.stringify(v)}`,
        `${suggestion || (alias ? `did you mean "${alias}"?` : '')} valid types: ${TYPES.join(', ')}`.trim(),
      );
    });
  }
  if (Array.isArray(node['enum']) && node['enum'].length === 0) {
    report(
      'TS020',
      loc([...path, 'enum']),
      'invalid schema: "enum" lists no values, so nothing would be accepted',
      'list at least one value, or remove "enum"',
    );
  }
  const format = node['format'];
  if (typeof format === 'string' && !FORMATS.includes(format)) {
    report(
      'TS032',
      loc([...path, 'format']),
      `unknown format ${JSON.stringify(format)}`,
      didYouMean(format, FORMATS) || `known formats: ${FORMATS.join(', ')}`,
    );
  }
  if ('$ref' in node && typeof node['$ref'] !== 'string') {
    report('TS020', loc([...path, '$ref']), '$ref must be a string', 'e.g. $ref: "#/$defs/Name"');
  }
}

/**
 * A loop of $refs that never descends into the data (A → B → A, or through allOf/anyOf/oneOf/not/if) would make
 * every validator and type generator recurse forever. Recursion below a property or item is fine.
 */
function findRefLoop(
  root: Record<string, unknown>,
  locate: Locate,
  report: (code: DiagnosticCode, span: Span, message: string, hint?: string) => void,
): boolean {
  const state = new Map<object, 'open' | 'done'>();
  const paths = new Map<object, SchemaPath>();
  walkSchema(root, (node, path) => {
    paths.set(node, path);
  });
  let found = false;
  const visit = (node: Record<string, unknown>, via: string[]): void => {
    if (found) return;
    state.set(node, 'open');
    const next: [unknown, string | undefined][] = [];
    for (const [key, value] of Object.entries(node)) {
      if (IN_PLACE.has(key)) for (const [child] of children(key, value)) next.push([child, undefined]);
    }
    const ref = node['$ref'];
    if (typeof ref === 'string') next.push([resolvePointer(root, ref), ref]);
    for (const [child, ref] of next) {
      if (!isObject(child) || found) continue;
      const chain = ref ? [...via, ref] : via;
      if (state.get(child) === 'open') {
        if (!chain.length) continue;
        found = true;
        report(
          'TS026',
          locate([...(paths.get(node) ?? []), '$ref']),
          `$ref loop: ${chain.join(' → ')} comes back to where it started without matching any data`,
          'a schema may refer to itself only below a property or an item, e.g. children: { type: array, items: { $ref: "#/$defs/Node" } }',
        );
        return;
      }
      if (!state.has(child)) visit(child, chain);
    }
    state.set(node, 'done');
  };
  walkSchema(root, (node) => {
    if (!state.has(node)) visit(node, []);
  });
  return found;
}

function valueAt(root: unknown, path: SchemaPath): unknown {
  let cur = root;
  for (const seg of path) cur = isObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[seg] : undefined;
  return cur;
}

/** The most specific meta-schema error per place (a union type's "anyOf" umbrella says less than its branches). */
function metaErrors(errors: ErrorObject[]): ErrorObject[] {
  const byPath = new Map<string, ErrorObject>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === '$dynamicRef') continue;
    const segs = e.instancePath.split('/');
    if (segs.at(-1) === '$ref' || segs.at(-1) === 'type' || segs.at(-2) === 'type') continue;
    if (!byPath.has(e.instancePath)) byPath.set(e.instancePath, e);
  }
  return [...byPath.values()];
}

function describeMeta(path: SchemaPath, e: ErrorObject): string {
  const where = path.length ? `"${path.join('.')}"` : 'the schema';
  return `${where} ${e.message ?? 'is invalid'}`;
}

/** The schema position an ajv message names ('at "#/properties/x"' or 'at path "#/…"'), as a path. */
function schemaPathIn(message: string, root: unknown): SchemaPath {
  // ajv names the place as "<schema key>#<pointer>" (the key toolspec added the schema under) or "#<pointer>".
  const m = /at (?:path )?"[^"#]*#([^"]*)"/.exec(message);
  if (!m) return [];
  try {
    return pointerToPath(
      m[1]!.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      root,
    );
  } catch {
    return [];
  }
}

function cleanAjv(message: string): string {
  return message
    .replace(/^strict mode: /, '')
    .replace(/ \(strict\w+\)$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * How many schema nodes `root` has with every $ref replaced by its target (a recursive one counts once), counting
 * up to a little past `limit` only: each target's size is computed once, so the count itself stays cheap.
 */
function expandedSize(root: Record<string, unknown>, limit: number): number {
  const memo = new Map<string, number>();
  const open = new Set<string>();
  const size = (node: unknown, top: boolean): number => {
    if (!isObject(node)) return 0;
    let total = 1;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#')) {
      if (open.has(ref)) total += 1;
      else {
        let target = memo.get(ref);
        if (target === undefined) {
          open.add(ref);
          target = size(resolvePointer(root, ref), false);
          open.delete(ref);
          memo.set(ref, target);
        }
        total += target;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (top && (key === '$defs' || key === 'definitions')) continue; // reached through the $refs
      for (const [child] of children(key, value)) {
        total += size(child, false);
        if (total > limit) return total;
      }
    }
    return Math.min(total, limit + 1);
  };
  return size(root, true);
}

/** Whether an in-place subschema at `at` (a branch of allOf, then, …) sits in a schema whose properties define `name`. */
function definedAround(root: Record<string, unknown>, at: SchemaPath, name: string): boolean {
  let path = at;
  for (;;) {
    const last = path[path.length - 1];
    const beforeLast = path[path.length - 2];
    if (typeof last === 'string' && IN_PLACE.has(last) && last !== 'dependentSchemas') path = path.slice(0, -1);
    else if (typeof last === 'number' && typeof beforeLast === 'string' && IN_PLACE.has(beforeLast))
      path = path.slice(0, -2);
    else if (beforeLast === 'dependentSchemas') path = path.slice(0, -2);
    else return false;
    const owner = valueAt(root, path);
    const props = isObject(owner) ? owner['properties'] : undefined;
    if (isObject(props) && Object.hasOwn(props, name)) return true;
  }
}

/** `did you mean "text"? (defined: "text"); or define "txt" under "properties"`. */
function requiredHint(name: string, defined: readonly string[]): string {
  const fix = didYouMean(name, defined) || 'fix the name';
  const list = defined.length ? ` (defined: ${quoteList(defined)})` : '';
  return `${fix}${list}; or define ${JSON.stringify(name)} under "properties"`;
}

/**
 * Whether an object schema refuses a property it does not define: `additionalProperties: false` (or
 * `unevaluatedProperties: false` with no in-place branches that could define it), and no `patternProperties` that
 * could match its name.
 */
function rejectsUndeclared(owner: Record<string, unknown>, name: string): boolean {
  const branches = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'dependentSchemas', '$ref'].some(
    (k) => k in owner,
  );
  const closed = owner['additionalProperties'] === false || (owner['unevaluatedProperties'] === false && !branches);
  if (!closed) return false;
  const patterns = isObject(owner['patternProperties']) ? Object.keys(owner['patternProperties']) : [];
  return !patterns.some((p) => {
    try {
      return new RegExp(p, 'u').test(name);
    } catch {
      return true;
    }
  });
}

/** ajv's strict-mode warnings, reworded, at the place they are about (undefined: not worth one). */
function strictWarning(w: string, root: Record<string, unknown>, locate: Locate): Diagnostic | undefined {
  const at = schemaPathIn(w, root);
  const required = /required property "(.*)" is not defined/.exec(w);
  if (required) {
    const name = required[1]!;
    // `required` in an allOf/anyOf/oneOf branch, if/then/else or not applies to the same object as the schema
    // around it: a property defined there is defined (ajv looks at the branch alone).
    if (definedAround(root, at, name)) return undefined;
    const list = valueAt(root, [...at, 'required']);
    const i = Array.isArray(list) ? list.indexOf(name) : -1;
    const owner = valueAt(root, at);
    const props = isObject(owner) && isObject(owner['properties']) ? Object.keys(owner['properties']) : [];
    if (isObject(owner) && rejectsUndeclared(owner, name)) {
      const closed = owner['additionalProperties'] === false ? 'additionalProperties' : 'unevaluatedProperties';
      return diagnostic(
        'TS045',
        locate(i === -1 ? at : [...at, 'required', i]),
        `${JSON.stringify(name)} is required but not defined under "properties", and "${closed}: false" rejects it: no call can satisfy this schema`,
        requiredHint(name, props),
      );
    }
    return diagnostic(
      'TS029',
      locate(i === -1 ? at : [...at, 'required', i]),
      `${JSON.stringify(name)} is listed in "required" but not defined under "properties"`,
      requiredHint(name, props),
      'warning',
    );
  }
  if (/default is ignored/.test(w)) {
    return diagnostic(
      'TS029',
      locate(at),
      cleanAjv(w),
      "a default applies only where it sits on a property's own schema: move it there, or drop it",
      'warning',
    );
  }
  return diagnostic(
    'TS029',
    locate(at),
    cleanAjv(w),
    'add the missing "type", or drop the keyword that does not apply',
    'warning',
  );
}
