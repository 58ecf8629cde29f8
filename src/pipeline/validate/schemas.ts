/**
 * A tool's inputSchema or outputSchema: its dialect, its keywords and types, its $refs (shared $defs are bundled
 * into the schema's own $defs), ref loops, the dialect's meta-schema, and finally ajv in strict mode.
 */
import { diagnostic, type Diagnostic, type Diagnostics, type Span } from '../../core/diagnostics.js';
import type { Origin, RawDef } from '../load/load.js';
import { didYouMean, quoteList } from '../../core/suggest.js';
import { compiledSchema } from './ajv.js';
import { valueAt } from './defaults.js';
import { defaultPlaces, metaErrors, type JudgeJob, type Verdict } from './judge.js';
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
import { MAX_EXPANDED_NODES } from '../load/limits.js';
import { checkMcpHeaders, type Report } from './mcp-header.js';
import type { McpHeaderDeclaration, SchemaModel } from '../model.js';
import { backtracksExponentially } from './regex.js';

/** The model's schema (bundled: the author's schema with the shared $defs it uses), and what the checks found. */
export interface CheckedSchema {
  model: SchemaModel;
  /** The x-mcp-header declarations, in schema order (none for an output schema). */
  mcpHeaders: McpHeaderDeclaration[];
  /** Compiled in an instance of its own: the validator and its standalone code. */
  compiled: ReturnType<typeof compiledSchema>;
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

/** Where a path below `o` is written, in the file it came from. */
function locatorAt(o: Origin): Locate {
  return (p, key = false) => o.file.locate([...o.path, ...p], { key });
}

/**
 * A schema checked in two steps: what walks the schema with positions, now, and what ajv judges (src/pipeline/validate/
 * judge.ts), as a job whose verdict `finish` turns into diagnostics and the checked schema. Between the two, the
 * verdicts are computed or taken from the cache (verdicts.ts).
 */
export function prepareToolSchema(
  raw: unknown,
  origin: Origin,
  which: 'inputSchema' | 'outputSchema',
  defs: ReadonlyMap<string, RawDef>,
  diags: Diagnostics,
): { job: JudgeJob; finish(verdict: Verdict): CheckedSchema | undefined } | undefined {
  if (!isObject(raw)) return undefined; // the structure check has said so
  let errors = 0;
  const report: Report = (code, span, message, hint) => {
    errors++;
    diags.add(diagnostic(code, span, message, hint || undefined));
  };
  const own = locatorAt(origin);

  const uri = raw['$schema'];
  const dialect = !('$schema' in raw) ? '2020-12' : typeof uri === 'string' ? dialectOf(uri) : undefined;
  if (!dialect) {
    report(
      'TS024',
      own(['$schema']),
      `unsupported JSON Schema dialect ${JSON.stringify(uri)} in ${which}`,
      `toolspec reads ${quoteList(Object.values(DIALECT_URIS))}; leave $schema out for 2020-12`,
    );
    return undefined;
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
  const locate: Locate = (p, key) =>
    p[0] === '$defs' && typeof p[1] === 'string' && added.has(p[1])
      ? locatorAt(defs.get(p[1])!)(p.slice(2), key)
      : own(p, key);
  const extensionKeywords = new Set<string>();
  const pending: { schema: unknown; loc: Locate }[] = [{ schema: bundled, loc: own }];
  const refs: { ref: string; loc: Locate; path: SchemaPath }[] = [];

  /** The schema's nodes outside its own $defs: what it expands to when it holds no $ref (expandedSize). */
  let plainSize = 0;
  while (pending.length) {
    const { schema, loc } = pending.pop()!;
    walkSchema(schema, (node, path) => {
      if (schema === bundled && path[0] !== '$defs' && path[0] !== 'definitions') plainSize++;
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
      pending.push({ schema: copy, loc: locatorAt(def) });
    });
  }
  const sharedDefs = [...added.keys()].sort();
  if (added.size) bundled['$defs'] = { ...localDefs, ...Object.fromEntries(sharedDefs.map((n) => [n, added.get(n)])) };

  // Every $ref must land somewhere inside the bundled schema.
  const names = [...Object.keys(localDefs), ...defs.keys()];
  for (const { ref, loc, path } of refs) {
    const at = loc([...path, '$ref']);
    if (!ref.startsWith('#')) {
      // "$defs/Priority", "/$defs/Priority" or "Priority": a ref into the spec without its "#".
      const bare = /^\/?(?:\$defs|definitions)\/[^/]+$/.test(ref)
        ? `#${ref.startsWith('/') ? '' : '/'}${ref}`
        : names.includes(ref)
          ? `#/$defs/${ref}`
          : undefined;
      report(
        'TS027',
        at,
        `$ref ${JSON.stringify(ref)} points outside the spec`,
        bare
          ? `did you mean "${bare}"? a $ref to a schema in this spec starts with "#"`
          : 'toolspec resolves only refs inside the spec: put the schema under $defs and write $ref: "#/$defs/Name"',
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
  const mcpHeaders = checkMcpHeaders(bundled, which, locate, report);
  // ajv judges by the instance's own meta-schema; the dialect was chosen above, so $schema need not resolve.
  // ($id goes too: it would clash between two tools that carry the same one, and every ref here is local.)
  const { $schema: _schema, $id: _id, ...forAjv } = bundled;
  // A $ref loop or a schema that expands past the bound must not reach the compiler; what they report waits for
  // the meta-schema's verdict, which comes first.
  const deferred: (() => void)[] = [];
  const later: Report = (...args) => deferred.push(() => report(...args));
  // Without a $ref nothing loops and nothing expands: the walk's count is the size (test/schema-size.test.ts).
  const loop = !errors && refs.length > 0 && findRefLoop(bundled, locate, later);
  const size = () => (refs.length ? expandedSize(bundled, MAX_EXPANDED_NODES) : plainSize);
  if (!errors && !loop && size() > MAX_EXPANDED_NODES) {
    later(
      'TS042',
      origin.file.locate(origin.path, { key: true }),
      `${which} expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en')} schema nodes when its $refs are followed`,
      'some $defs point at others more than once, and those at others again, so each level doubles the whole: point at a shared schema from one place, or flatten the chain',
    );
  }
  const kind = which === 'inputSchema' ? 'input' : 'output';
  const job: JudgeJob = {
    dialect,
    kind,
    extensions: [...extensionKeywords].sort(),
    forAjv,
    bundled,
    compile: !errors && !deferred.length,
  };

  const finish = (verdict: Verdict): CheckedSchema | undefined => {
    // The dialect's meta-schema, for what the walk above does not judge (types and $refs it has judged already).
    for (const e of metaErrors(verdict.meta)) {
      const path = pointerToPath(e.instancePath, bundled);
      const hint =
        path[path.length - 1] === 'required' && typeof valueAt(bundled, path) === 'boolean'
          ? 'list required properties in the parent object\'s "required" array, e.g. required: [query]'
          : undefined;
      const where = path.length ? `"${path.join('.')}"` : 'the schema';
      report('TS020', locate(path), `invalid schema: ${where} ${e.message ?? 'is invalid'}`, hint);
    }
    if (errors) return undefined;
    for (const d of deferred) d();
    if (errors || !job.compile) return undefined;
    // ajv in strict mode is the final word; its warnings keep their positions.
    for (const w of verdict.compiled?.warnings ?? []) {
      const d = strictWarning(w, bundled, locate);
      if (d) diags.add(d);
    }
    const places = verdict.defaults?.length ? defaultPlaces(bundled) : [];
    for (const [i, why] of verdict.defaults ?? []) {
      const path = places[i]!;
      const value = valueAt(bundled, [...path, 'default']);
      report(
        'TS034',
        locate([...path, 'default']),
        `default ${JSON.stringify(value)} does not match its own schema: ${[...new Set(why)].join('; ')}`,
        'defaults are filled in before the handler runs: make the default a value the schema accepts',
      );
    }
    if (verdict.error !== undefined || !verdict.compiled) {
      const message = cleanAjv(verdict.error ?? 'no validator');
      report('TS028', locate(schemaPathIn(message, bundled)), `ajv rejects this ${which}: ${message}`);
      return undefined;
    }
    const compiled = compiledSchema(forAjv, dialect, kind, verdict.compiled);
    return { model: { schema: bundled, dialect, sharedDefs }, mcpHeaders, compiled };
  };
  return { job, finish };
}

function checkNode(
  node: Record<string, unknown>,
  path: SchemaPath,
  dialect: Dialect,
  loc: Locate,
  report: Report,
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
  // A pattern whose matching can backtrack exponentially is refused, with the usual rewrite: the generated server
  // matches patterns in linear time (regex.ts), but the spec's schemas also reach clients and their validators.
  const patterns: [string, SchemaPath][] = [];
  if (typeof node['pattern'] === 'string') patterns.push([node['pattern'], [...path, 'pattern']]);
  if (isObject(node['patternProperties'])) {
    for (const k of Object.keys(node['patternProperties'])) patterns.push([k, [...path, 'patternProperties', k]]);
  }
  for (const [pattern, at] of patterns) {
    // Said here, at the pattern: ajv would name only the schema's root, once for every tool that uses it.
    const span = loc(at, at[at.length - 2] === 'patternProperties');
    try {
      new RegExp(pattern, 'u');
    } catch (e) {
      const invalid = (e as Error).message.replace(/^Invalid regular expression: \/[\s\S]*\/u?: /, '');
      report(
        'TS028',
        span,
        `pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${invalid}`,
        'a pattern is an ECMAScript regular expression, read with the u flag as ajv compiles it: escape a literal [ ] { } ( ) | as \\[ \\] \\{ \\} \\( \\) \\|',
      );
      continue;
    }
    const verdict = backtracksExponentially(pattern);
    if (verdict) {
      report(
        'TS041',
        span,
        verdict === 'exponential'
          ? `pattern ${JSON.stringify(pattern)} can take exponential time to match (it can read the same text two ways, again and again)`
          : `pattern ${JSON.stringify(pattern)} could not be proved free of exponential matching time (too large, or syntax the check does not read)`,
        verdict === 'exponential'
          ? 'a crafted value would freeze a client or tool that validates it with a backtracking engine: make each repetition read a text one way only, e.g. ^([a-z]+)+$ as ^[a-z]+$, (\\w|\\d)+ as \\w+, (\\w+\\s?)* as [\\w\\s]*'
          : "validation runs on the server's event loop, where a slow pattern freezes every session: split it, or check the value in the handler",
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
function findRefLoop(root: Record<string, unknown>, locate: Locate, report: Report): boolean {
  const state = new Map<object, 'open' | 'done'>();
  /** Where a node is (the last path the walk gives it: an alias may share it), found when a loop is reported. */
  const pathOf = (target: object) => {
    let at: SchemaPath | undefined;
    walkSchema(root, (node, path) => {
      if (node === target) at = path;
    });
    return at;
  };
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
          locate([...(pathOf(node) ?? []), '$ref']),
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

/** The schema position an ajv message names ('at "#/properties/x"' or 'at path "#/…"'), as a path. */
function schemaPathIn(message: string, root: unknown): SchemaPath {
  // ajv names the place as "<schema key>#<pointer>" (the key toolspec added the schema under) or "#<pointer>".
  const m = /at (?:path )?"[^"#]*#([^"]*)"/.exec(message);
  if (!m) return [];
  return pointerToPath(
    m[1]!.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    root,
  );
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
export function expandedSize(root: Record<string, unknown>, limit: number): number {
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
  // Every pattern compiles: ajv warns only about a schema whose checks found nothing (TS028 otherwise).
  const patterns = isObject(owner['patternProperties']) ? Object.keys(owner['patternProperties']) : [];
  return !patterns.some((p) => new RegExp(p, 'u').test(name));
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
    const span = locate(i === -1 ? at : [...at, 'required', i]);
    if (isObject(owner) && rejectsUndeclared(owner, name)) {
      const closed = owner['additionalProperties'] === false ? 'additionalProperties' : 'unevaluatedProperties';
      return diagnostic(
        'TS045',
        span,
        `${JSON.stringify(name)} is required but not defined under "properties", and "${closed}: false" rejects it: no call can satisfy this schema`,
        requiredHint(name, props),
      );
    }
    const message = `${JSON.stringify(name)} is listed in "required" but not defined under "properties"`;
    return diagnostic('TS029', span, message, requiredHint(name, props), 'warning');
  }
  const hint = /default is ignored/.test(w)
    ? "a default applies only where it sits on a property's own schema: move it there, or drop it"
    : 'add the missing "type", or drop the keyword that does not apply';
  return diagnostic('TS029', locate(at), cleanAjv(w), hint, 'warning');
}
