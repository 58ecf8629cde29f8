/**
 * One YAML file with its positions: parses with the `yaml` package, keeps the document so any JSON path can be
 * mapped back to file:line:col, and turns YAML's own problems into diagnostics.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  Composer,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  parseDocument,
  visit,
  YAMLParseError,
} from 'yaml';
import type { CST, Document, Node, Pair, YAMLMap } from 'yaml';
import { diagnostic, type Diagnostic, type Span } from '../../core/diagnostics.js';
import { MAX_DEPTH, MAX_TEXT_CHARS } from './limits.js';

export type JsonPath = readonly (string | number)[];

/** Aliases expand to at most this many nodes in one file; more is taken as an alias bomb. */
export const MAX_ALIAS_COUNT = 1000;

export class SourceFile {
  readonly lineCounter = new LineCounter();
  #document: Document.Parsed | undefined;
  /**
   * A kept parse's node tree (fromKept): places are read from it. test/parse-cache.test.ts holds its places to the
   * whole parse's.
   */
  readonly #tree: KeptNode | undefined;
  /** The plain data, or undefined when the file could not be turned into data. */
  readonly value: unknown;
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    /** As shown to the user. */
    readonly displayPath: string,
    readonly text: string,
    /** Absolute, when read from disk. */
    readonly absPath: string = displayPath,
    /** What a whole parse of this very text gave before (fromKept, its tree checked): taken instead of parsing. */
    kept?: { tree: KeptNode; value: unknown },
  ) {
    if (kept) {
      this.#tree = kept.tree;
      this.value = kept.value;
      this.lineCounter.addNewLine(0);
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineCounter.addNewLine(i + 1);
      return;
    }
    const parsed = parseWithin(text, this.lineCounter);
    if (typeof parsed === 'number') {
      // Refused before composing: the composer recurses per level of nesting.
      this.#document = parseDocument('', PARSE_OPTIONS);
      this.diagnostics.push(tooDeep(this.spanOf(parsed, parsed + 1), 'the YAML here nests'));
      this.value = undefined;
      return;
    }
    this.#document = parsed;
    for (const e of [...this.document.errors, ...this.document.warnings]) {
      const indent = e.code === 'BAD_INDENT' ? this.#misindented(e.pos[0]) : undefined;
      this.diagnostics.push(
        diagnostic(
          'TS001',
          indent?.span ?? this.spanOf(e.pos[0], Math.max(e.pos[1], e.pos[0] + 1)),
          yamlMessage(e.message),
          indent?.hint ??
            // "flow sequence … must … end with a ]": an unclosed [ or { above, not an indentation to fix.
            (/flow (sequence|mapping)/i.test(e.message) ? YAML_HINTS['MISSING_CHAR'] : undefined) ??
            YAML_HINTS[e.code] ??
            YAML_HINT,
        ),
      );
    }
    // Duplicate keys leave the data well-formed (the last one wins), so the rest of the file is still checked.
    this.#checkDuplicateKeys();
    this.value = this.document.errors.length ? undefined : this.#toData();
  }

  /** The YAML document of a file parsed here (a kept parse has none: it answers locate and listItems). */
  get document(): Document.Parsed {
    if (!this.#document) throw new Error(`${this.displayPath} was kept, not parsed: it has no YAML document`);
    return this.#document;
  }

  /**
   * Each key once per mapping. (yaml's own uniqueKeys check compares every key with every other one, which takes
   * minutes on a mapping of 100,000 keys; a set of seen keys takes milliseconds.)
   */
  #checkDuplicateKeys(): void {
    visit(this.document, {
      Map: (_, map) => {
        const seen = new Set<string>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const value = pair.key.value;
          const id = `${typeof value}:${String(value)}`;
          if (!seen.has(id)) {
            seen.add(id);
            continue;
          }
          this.diagnostics.push(
            diagnostic(
              'TS002',
              this.spanOfNode(pair.key),
              `duplicate key ${JSON.stringify(String(value))}`,
              'each key may appear once per mapping; remove or rename one of them',
            ),
          );
        }
      },
    });
  }

  #toData(): unknown {
    let unresolved = false;
    let firstAlias: Node | undefined;
    visit(this.document, {
      Pair: (_, pair) => {
        if (pair.key !== null && !isScalar(pair.key) && !isAlias(pair.key)) {
          unresolved = true;
          this.diagnostics.push(
            diagnostic(
              'TS001',
              this.spanOfNode(pair.key as Node),
              'a mapping key must be a plain value, not a list or mapping',
              'write the key as a string',
            ),
          );
        }
      },
      Scalar: (key, node) => {
        // YAML allows printable characters only; the parser lets a raw NUL or escape through, into descriptions
        // that reach clients and models. Written escaped ("\0", "\e") they are the author's choice.
        // (A key is reported as an unknown field with its characters shown, which says more.)
        const raw = node.range && key !== 'key' ? this.text.slice(node.range[0], node.range[1]) : '';
        const control = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f]/.exec(raw);
        if (control && node.range) {
          const at = node.range[0] + control.index;
          this.diagnostics.push(
            diagnostic(
              'TS001',
              this.spanOf(at, at + 1),
              `a raw control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}) in a value; YAML allows printable characters only`,
              'remove it, or write it as an escape inside double quotes (e.g. "\\0" or "\\u0007") if it is meant',
            ),
          );
        }
        if (typeof node.value === 'string' && node.value.length > MAX_TEXT_CHARS) {
          this.diagnostics.push(
            diagnostic(
              'TS037',
              this.spanOf(node.range?.[0] ?? 0, (node.range?.[0] ?? 0) + 1),
              `a text of ${node.value.length.toLocaleString('en')} characters; one value may hold at most ${MAX_TEXT_CHARS.toLocaleString('en')}`,
              'a description is read by models on every tools/list: keep it to what a model needs to choose the tool and call it',
            ),
          );
        }
        // JSON has no Infinity or NaN: 1e400 would reach the manifest and the validators as null.
        if (typeof node.value === 'number' && !Number.isFinite(node.value)) {
          unresolved = true;
          this.diagnostics.push(
            diagnostic(
              'TS009',
              this.spanOfNode(node),
              `${node.source ?? String(node.value)} is not a number JSON can hold (it is ${String(node.value)})`,
              'JSON numbers are finite: use a number within ±1.8e308, or quote it to make it a string',
            ),
          );
        }
      },
      Alias: (_, node) => {
        firstAlias ??= node;
        const target = node.resolve(this.document);
        if (target === undefined) {
          unresolved = true;
          this.diagnostics.push(
            diagnostic(
              'TS004',
              this.spanOfNode(node),
              `alias "*${node.source}" refers to no anchor`,
              `define "&${node.source}" on a value before this alias uses it`,
            ),
          );
        } else if (target.range && node.range && target.range[0] <= node.range[0] && node.range[1] <= target.range[1]) {
          // An alias inside its own anchor's value makes the data infinitely deep.
          unresolved = true;
          this.diagnostics.push(
            diagnostic(
              'TS038',
              this.spanOfNode(node),
              `alias "*${node.source}" is inside the value of its own anchor, so that value would contain itself without end`,
              'an alias copies its anchor\'s value; a schema that contains itself is written with $ref, e.g. child: { $ref: "#" } or { $ref: "#/$defs/Node" }',
            ),
          );
        }
      },
    });
    if (unresolved) return undefined;
    let data: unknown;
    try {
      data = this.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      if (e instanceof ReferenceError) {
        this.diagnostics.push(
          diagnostic(
            'TS003',
            firstAlias ? this.spanOfNode(firstAlias) : this.spanOf(0, 1),
            `aliases in this file expand to more than ${MAX_ALIAS_COUNT} nodes`,
            'nested aliases multiply; this is refused as a resource-exhaustion attack. Write the values out or use $defs and $ref',
          ),
        );
        return undefined;
      }
      throw e;
    }
    // The text nests at most MAX_DEPTH levels, but an alias puts a copy of its anchor's value in its own place.
    if (firstAlias && depthOf(data) > MAX_DEPTH) {
      this.diagnostics.push(tooDeep(this.spanOfNode(firstAlias), 'the aliases in this file nest values'));
      return undefined;
    }
    return data;
  }

  spanOf(start: number, end: number): Span {
    const a = this.lineCounter.linePos(start);
    const b = this.lineCounter.linePos(Math.max(start, end));
    return { file: this.displayPath, line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
  }

  spanOfNode(node: Node): Span {
    const range = node.range ?? [0, 1, 1];
    return this.spanOf(range[0], range[1]);
  }

  /**
   * Where a JSON path is written. `key: true` points at the key of the last segment (for unknown fields);
   * otherwise at the value. A path that does not exist in full points at its deepest existing part.
   */
  locate(path: JsonPath, opts: { key?: boolean } = {}): Span {
    if (this.#tree !== undefined) return this.#locateKept(path, opts);
    let node: unknown = this.document.contents;
    let keyNode: unknown;
    for (const seg of path) {
      node = this.#deref(node);
      keyNode = undefined;
      let next: unknown;
      if (isMap(node)) {
        const pair = this.#pairs(node).get(String(seg));
        if (pair) {
          keyNode = pair.key;
          next = pair.value ?? pair.key;
        }
      } else if (isSeq(node) && typeof seg === 'number') {
        next = node.items[seg];
      }
      if (next === undefined) break;
      node = next;
    }
    const target = opts.key && keyNode ? keyNode : node;
    if (target && typeof target === 'object' && 'range' in target) return this.spanOfNode(target as Node);
    return this.spanOf(0, 1);
  }

  /**
   * A key out of line with its mapping: the span of the key itself (YAML names the line's start), and a hint with
   * the columns where the keys above it start (the mapping it may belong to, and the one around that).
   */
  #misindented(offset: number): { span: Span; hint: string } | undefined {
    const lineStart = this.text.lastIndexOf('\n', offset - 1) + 1;
    const newline = this.text.indexOf('\n', lineStart);
    const line = this.text.slice(lineStart, newline === -1 ? this.text.length : newline);
    const column = line.search(/\S/);
    const key = /^[^\s:#[\]{},-][^:#]*(?=:)/.exec(line.slice(Math.max(column, 0)))?.[0].trimEnd();
    if (column < 0 || !key) return undefined;
    // The key lines above: the nearest one indented deeper than this line, and the nearest one indented less.
    let deeper: [string, number] | undefined;
    let shallower: [string, number] | undefined;
    for (const l of this.text.slice(0, lineStart).split('\n').reverse()) {
      const m = /^(\s*)(?:- )?([^\s:#][^:#]*?)\s*:/.exec(l);
      if (!m) continue;
      const at = m[1]!.length + (l.slice(m[1]!.length).startsWith('- ') ? 2 : 0);
      if (at === column) return undefined; // lined up with a key above: something else is wrong here
      if (at > column) deeper ??= [m[2]!, at];
      else shallower ??= [m[2]!, at];
      if (shallower) break;
    }
    const place = (k: [string, number]) => `column ${k[1] + 1} ("${k[0]}")`;
    const above = [deeper, shallower].filter((k): k is [string, number] => k !== undefined).map(place);
    if (!above.length) return undefined;
    return {
      span: this.spanOf(lineStart + column, lineStart + column + key.length),
      hint: `"${key}" starts at column ${column + 1}; the keys above it start at ${above.join(' and ')}: put it at the column of the mapping it belongs to, with spaces`,
    };
  }

  /** locate() on a kept tree: the same steps on its arrays (a kept parse has no aliases, nor any but these kinds). */
  #locateKept(path: JsonPath, opts: { key?: boolean }): Span {
    let node: KeptNode | undefined = this.#tree;
    let keyNode: KeptNode | undefined;
    for (const seg of path) {
      keyNode = undefined;
      let next: KeptNode | undefined;
      if (node?.[0] === 'm') {
        const pair = this.#keptPairs(node).get(String(seg));
        if (pair) {
          keyNode = pair[0];
          next = pair[1] ?? pair[0];
        }
      } else if (node?.[0] === 's' && typeof seg === 'number') {
        next = node[4][seg];
      }
      if (next === undefined) break;
      node = next;
    }
    const target = opts.key && keyNode ? keyNode : node;
    return target ? this.spanOf(target[1], target[2]) : this.spanOf(0, 1);
  }

  /**
   * Where each item of the root mapping's list `key` is written, for the items that are mappings (how lint finds
   * the item a model's position names).
   */
  listItems(key: string): { index: number; span: Span }[] {
    const out: { index: number; span: Span }[] = [];
    if (this.#tree !== undefined) {
      const root = this.#tree;
      const list = root?.[0] === 'm' ? this.#keptPairs(root).get(key)?.[1] : undefined;
      if (list?.[0] === 's')
        list[4].forEach((item, index) => {
          if (item?.[0] === 'm') out.push({ index, span: this.spanOf(item[1], item[2]) });
        });
      return out;
    }
    const root = this.document.contents;
    const items = isMap(root) ? root.get(key, true) : undefined;
    if (isSeq(items))
      items.items.forEach((item, index) => {
        if (isMap(item) && item.range) out.push({ index, span: this.spanOfNode(item) });
      });
    return out;
  }

  readonly #keptIndex = new WeakMap<object, Map<string, [KeptNode, KeptNode]>>();

  /** A kept mapping's pairs by key (the first of duplicates), as #pairs indexes a document's. */
  #keptPairs(map: Extract<KeptNode, ['m', ...unknown[]]>): Map<string, [KeptNode, KeptNode]> {
    let index = this.#keptIndex.get(map);
    if (!index) {
      index = new Map();
      for (const pair of map[4]) {
        const k = pair[0];
        if (k?.[0] === 'c' && !index.has(String(k[4]))) index.set(String(k[4]), pair);
      }
      this.#keptIndex.set(map, index);
    }
    return index;
  }

  readonly #index = new WeakMap<YAMLMap, Map<string, Pair>>();

  /** A mapping's pairs by key (the first of duplicates), built once: locating is then linear in the path only. */
  #pairs(map: YAMLMap): Map<string, Pair> {
    let index = this.#index.get(map);
    if (!index) {
      index = new Map();
      for (const p of map.items) {
        if (isPair(p) && isScalar(p.key) && !index.has(String(p.key.value))) index.set(String(p.key.value), p);
      }
      this.#index.set(map, index);
    }
    return index;
  }

  #deref(node: unknown): unknown {
    let n = node;
    for (let i = 0; i < 100 && isAlias(n); i++) n = n.resolve(this.document);
    return n;
  }
}

const YAML_HINT =
  'fix the YAML syntax here; quote text that contains ": ", " #", "{", "[", a comma inside { }, or starts with a special character';
const YAML_HINTS: Partial<Record<string, string>> = {
  TAB_AS_INDENT: 'YAML indents with spaces only: replace the tabs with spaces',
  MULTIPLE_DOCS:
    'a spec file holds one YAML document: remove the "---" line and what follows, or move it to an included file',
  BAD_INDENT: 'align the keys of one mapping at the same column, with spaces',
  MISSING_CHAR: 'close every "[" with "]" and every "{" with "}"; quote text that contains a comma inside { }',
  BAD_DQ_ESCAPE:
    'in double quotes a backslash starts an escape (\\n, \\t, \\\\): write a pattern in single quotes, where it stays as it is (\'^\\w+$\'), or double each backslash ("^\\\\w+$")',
};

function yamlMessage(message: string): string {
  const m = message
    .replace(/ at line \d+, column \d+:?[\s\S]*$/, '')
    .replace(/;? ?please use YAML\.parseAllDocuments\(\)/i, '')
    .trim();
  return `YAML syntax error: ${m.charAt(0).toLowerCase()}${m.slice(1)}`;
}

const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: true, logLevel: 'error' } as const;

const COLLECTIONS: ReadonlySet<string> = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * parseDocument, with nesting counted while parsing: the syntax parser keeps an explicit stack, but the composer
 * that builds the document from it recurses per level, and a few thousand levels overflow the call stack (or make
 * V8 run out of memory). Returns the offset where the text nests past MAX_DEPTH instead of a document.
 */
function parseWithin(text: string, lineCounter: LineCounter): Document.Parsed | number {
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0); // as Parser.parse does
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    const offset = parser.offset;
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack also holds the document and the node being read; count only the collections when it is long.
    if (parser.stack.length > MAX_DEPTH && parser.stack.filter((t) => COLLECTIONS.has(t.type)).length > MAX_DEPTH)
      return offset;
  }
  for (const token of parser.end()) tokens.push(token);
  let doc: Document.Parsed | undefined;
  for (const next of new Composer(PARSE_OPTIONS).compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(
        new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'),
      );
      break;
    }
  }
  return doc!;
}

function tooDeep(span: Span, what: string): Diagnostic {
  return diagnostic(
    'TS038',
    span,
    `${what} deeper than ${MAX_DEPTH} levels`,
    `real specs nest far less; this is refused so a nesting bomb cannot exhaust the stack. Move nested schemas to $defs and refer to them with $ref: "#/$defs/Name"`,
  );
}

/** How many collections deep `value` nests (a scalar: 0), without recursion; shared values are measured once. */
export function depthOf(value: unknown): number {
  const isNode = (v: unknown): v is object => typeof v === 'object' && v !== null;
  if (!isNode(value)) return 0;
  const depth = new Map<object, number>();
  const open = new Set<object>();
  const stack: object[] = [value];
  while (stack.length) {
    const node = stack[stack.length - 1]!;
    if (depth.has(node)) {
      stack.pop();
      continue;
    }
    const kids = Object.values(node).filter(isNode);
    if (!open.has(node)) {
      open.add(node);
      for (const k of kids) if (!depth.has(k) && !open.has(k)) stack.push(k);
      continue;
    }
    stack.pop();
    open.delete(node);
    depth.set(node, 1 + kids.reduce((m, k) => Math.max(m, depth.get(k) ?? 0), 0));
  }
  return depth.get(value)!;
}

/**
 * The files the previous load of this process parsed (watch and dev load again after every edit), by paths and
 * exact text: a file whose bytes did not change is the same SourceFile, which is read-only once made. Nothing is
 * kept between processes, and nothing is ever parsed but whole.
 */
let previous = new Map<string, SourceFile>();
let current = new Map<string, SourceFile>();

/** A new load begins: what the one before it parsed is kept for it, the rest let go. */
export function startParsing(): void {
  previous = current;
  current = new Map();
}

/**
 * The file parsed, or the same text parsed before: by this process, or kept in `store` (generate's cache) by an
 * earlier run; what a parse gives is kept there when it is plain data and places. test/parse-cache.test.ts holds a
 * kept parse to the whole parse's data, diagnostics and positions.
 */
export function parsedFile(displayPath: string, text: string, absPath: string, store?: Store): SourceFile {
  const key = `${displayPath}\0${absPath}\0${text}`;
  let file = current.get(key) ?? previous.get(key);
  if (!file) {
    const kept = store?.get('parse', text);
    file =
      (kept === undefined ? undefined : fromKept(displayPath, text, absPath, kept)) ??
      new SourceFile(displayPath, text, absPath);
    if (kept === undefined && store) {
      const json = keepParse(file);
      if (json !== undefined) store.put('parse', text, json);
    }
  }
  current.set(key, file);
  return file;
}

/** For the property test of the kept parse: a file as it would come back from the cache, or undefined if not kept. */
export function keptAgain(file: SourceFile): SourceFile | undefined {
  const json = keepParse(file);
  return json === undefined ? undefined : fromKept(file.displayPath, file.text, file.absPath, json);
}

/** What a parse is kept as (cache/store.ts, kind "parse", by the file's text): its data and its nodes' places. */
interface KeptParse {
  value: unknown;
  /** The document's nodes: [kind, start, value end, end, items or a key's value], kind m(ap), s(equence) or c (scalar). */
  tree: KeptNode;
}
type KeptNode =
  | null
  | ['m', number, number, number, [KeptNode, KeptNode][]]
  | ['s', number, number, number, KeptNode[]]
  | ['c', number, number, number, unknown];

/**
 * The caller's cache (cache/store.ts, which load may not import): work done before, by kind and input. Here whole
 * parses by the file's text; validate keeps its schemas' verdicts in it too.
 */
export interface Store {
  get(kind: string, input: string): string | undefined;
  put(kind: string, input: string, value: string): void;
}

/**
 * The file as data to keep, or undefined when anything in it is more than data and places: a diagnostic, an anchor
 * or alias, a tag, or a value JSON does not give back the same (a date, -0, a key that is not text).
 */
function keepParse(file: SourceFile): string | undefined {
  if (file.diagnostics.length || file.value === undefined) return undefined;
  let plain = true;
  // A scalar's value is kept for keys alone (how places are found); the data holds the rest.
  const node = (n: unknown, key = false): KeptNode => {
    if (n === null || n === undefined) return null;
    const x = n as Node;
    if (!x.range || x.anchor || x.tag) plain = false;
    const [a, b, c] = x.range ?? [0, 0, 0];
    if (isMap(n)) return ['m', a, b, c, n.items.map((p) => [node(p.key, true), node(p.value)])];
    if (isSeq(n)) return ['s', a, b, c, n.items.map((item) => node(item))];
    if (isScalar(n)) return ['c', a, b, c, key ? n.value : null];
    plain = false; // an alias
    return null;
  };
  const kept: KeptParse = { value: file.value, tree: node(file.document.contents) };
  const json = JSON.stringify(kept);
  return plain && isDeepStrictEqual(JSON.parse(json), kept) ? json : undefined;
}

/**
 * A kept parse of `text` as a SourceFile again: the same data and places, not parsed. Undefined for anything that
 * is not exactly the shape keepParse writes, with every place inside the text (an entry is outside input too).
 */
function fromKept(displayPath: string, text: string, absPath: string, json: string): SourceFile | undefined {
  let kept: Partial<KeptParse>;
  try {
    kept = JSON.parse(json) as Partial<KeptParse>;
  } catch {
    return undefined;
  }
  if (typeof kept !== 'object' || kept === null || kept.value === undefined) return undefined;
  const place = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= text.length;
  const valid = (t: unknown, depth: number): boolean => {
    if (t === null) return true;
    if (!Array.isArray(t) || t.length !== 5 || !t.slice(1, 4).every(place) || depth > MAX_DEPTH) return false;
    const [kind, , , , inner] = t as [unknown, number, number, number, unknown];
    if (kind === 'm')
      return (
        Array.isArray(inner) &&
        inner.every((p) => Array.isArray(p) && p.length === 2 && valid(p[0], depth + 1) && valid(p[1], depth + 1))
      );
    if (kind === 's') return Array.isArray(inner) && inner.every((item) => valid(item, depth + 1));
    return kind === 'c';
  };
  if (!valid(kept.tree, 0)) return undefined;
  return new SourceFile(displayPath, text, absPath, { tree: kept.tree!, value: kept.value });
}
