/**
 * One YAML file with its positions: parses with the `yaml` package, keeps the document so any JSON path can be
 * mapped back to file:line:col, and turns YAML's own problems into diagnostics.
 */
import {
  Composer,
  Document as YamlDocument,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  Pair as YamlPair,
  parseDocument,
  Scalar as YamlScalar,
  visit,
  YAMLMap as YamlMap,
  YAMLParseError,
  YAMLSeq as YamlSeq,
} from 'yaml';
import type { CST, Document, Node, Pair, YAMLMap } from 'yaml';
import { diagnostic, type Diagnostic, type Span } from '../diagnostics.js';
import { MAX_DEPTH, MAX_TEXT_CHARS } from './limits.js';

export type JsonPath = readonly (string | number)[];

/** A document patched after an edit (SourceFile.patched): its parts, and where its nodes are in the new text. */
interface Patch {
  document: Document.Parsed;
  value: unknown;
  where: (node: Node) => [number, number, number] | undefined;
  lineStarts: number[];
  generation: number;
}

/** After this many patches in a row a file is parsed whole again, so that finding a node's place stays cheap. */
const MAX_PATCHES = 16;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Aliases expand to at most this many nodes in one file; more is taken as an alias bomb. */
export const MAX_ALIAS_COUNT = 1000;

export class SourceFile {
  readonly lineCounter = new LineCounter();
  readonly document: Document.Parsed;
  /** The plain data, or undefined when the file could not be turned into data. */
  readonly value: unknown;
  readonly diagnostics: Diagnostic[] = [];

  /** Where a node of the document starts and ends in this file's text (see `Patch`). */
  readonly #where: (node: Node) => [number, number, number] | undefined;
  /** How many patches this file's document is from a whole parse. */
  readonly generation: number;
  /** Whether the document holds an anchor or an alias: such a file is always parsed whole. */
  #linked = false;

  get linked(): boolean {
    return this.#linked;
  }

  constructor(
    /** As shown to the user. */
    readonly displayPath: string,
    readonly text: string,
    /** Absolute, when read from disk. */
    readonly absPath: string = displayPath,
    patch?: Patch,
  ) {
    this.generation = patch ? patch.generation : 0;
    this.#where = patch ? patch.where : (node) => node.range ?? undefined;
    if (patch) {
      this.document = patch.document;
      this.value = patch.value;
      for (const at of patch.lineStarts) this.lineCounter.addNewLine(at);
      return;
    }
    const parsed = parseWithin(text, this.lineCounter);
    if (typeof parsed === 'number') {
      // Refused before composing: the composer recurses per level of nesting.
      this.document = parseDocument('', PARSE_OPTIONS);
      this.diagnostics.push(tooDeep(this.spanOf(parsed, parsed + 1), 'the YAML here nests'));
      this.value = undefined;
      return;
    }
    this.document = parsed;
    for (const e of [...this.document.errors, ...this.document.warnings]) {
      this.diagnostics.push(
        diagnostic(
          'TS001',
          this.spanOf(e.pos[0], Math.max(e.pos[1], e.pos[0] + 1)),
          yamlMessage(e.message),
          YAML_HINTS[e.code] ?? YAML_HINT,
        ),
      );
    }
    // Duplicate keys leave the data well-formed (the last one wins), so the rest of the file is still checked.
    this.#checkDuplicateKeys();
    this.value = this.document.errors.length ? undefined : this.#toData();
  }

  /**
   * Each key once per mapping. (yaml's own uniqueKeys check compares every key with every other one, which takes
   * minutes on a mapping of 100,000 keys; a set of seen keys takes milliseconds.)
   */
  #checkDuplicateKeys(): void {
    visit(this.document, {
      Seq: (_, seq) => {
        if (seq.anchor) this.#linked = true;
      },
      Scalar: (_, scalar) => {
        if (scalar.anchor) this.#linked = true;
      },
      Map: (_, map) => {
        if (map.anchor) this.#linked = true;
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
        this.#linked = true;
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
    const range = this.#where(node) ?? [0, 1, 1];
    return this.spanOf(range[0], range[1]);
  }

  /** The node's range in this file's text: [start, value end, node end]. */
  rangeOf(node: Node): [number, number, number] | undefined {
    return this.#where(node);
  }

  /**
   * This file after an edit inside one item of its `tools` list (watch, dev): that item parsed alone, in place (the
   * rest of the text blanked out, so its offsets are the file's), and set into a shallow copy of this document;
   * every other node is shared, its offsets moved by the edit's length. Undefined when the edit is anything else,
   * or when this file or the item has anything a whole parse must judge (diagnostics, anchors, aliases, nesting
   * near the limit): the caller parses the whole file then. The data and the positions are the whole parse's.
   */
  patched(text: string): SourceFile | undefined {
    if (this.diagnostics.length || this.#linked || this.generation >= MAX_PATCHES || !isRecord(this.value)) return;
    const old = this.text;
    const end = Math.min(old.length, text.length);
    let p = 0;
    while (p < end && old.charCodeAt(p) === text.charCodeAt(p)) p++;
    let q = 0;
    while (q < end - p && old.charCodeAt(old.length - 1 - q) === text.charCodeAt(text.length - 1 - q)) q++;
    const root = this.document.contents;
    if (!isMap(root)) return;
    const pair = root.items.find((it) => isScalar(it.key) && it.key.value === 'tools');
    const list = pair?.value;
    if (!pair || !isSeq(list) || !Array.isArray(this.value['tools'])) return;
    const index = list.items.findIndex((item) => {
      const r = isMap(item) ? this.#where(item) : undefined;
      return r !== undefined && r[0] <= p && old.length - q <= r[2];
    });
    const item = list.items[index];
    const range = item ? this.#where(item as Node) : undefined;
    if (!item || !range) return;
    // The item's text after the edit, alone in a file of the same lines.
    const delta = text.length - old.length;
    const [a, e] = [range[0], range[2] + delta];
    if (e < a || /\r/.test(text.slice(a, e))) return;
    // Alone, a line indented less than the item's first key could read differently than in the file: parse it whole.
    const column = a - (text.lastIndexOf('\n', a - 1) + 1);
    for (const line of text.slice(a, e).split('\n').slice(1)) {
      const indent = line.length - line.trimStart().length;
      if (indent < column && line.trim() !== '' && !line.trimStart().startsWith('#')) return;
    }
    // Parsed at its own column (its first line's start blanked), then moved to where it is in the file.
    const alone = new SourceFile(this.displayPath, ' '.repeat(column) + text.slice(a, e));
    const fresh = alone.document.contents;
    if (alone.diagnostics.length || alone.#linked || !isMap(fresh) || !isRecord(alone.value)) return;
    const by = a - column;
    visit(alone.document, {
      Node: (_, n) => {
        if (n.range) n.range = [n.range[0] + by, n.range[1] + by, n.range[2] + by];
      },
    });
    const freshRange = fresh.range;
    if (!freshRange || freshRange[0] !== a || freshRange[1] > e) return;
    if (depthOf(alone.value) > MAX_DEPTH - 4) return;

    // The path from the root to the item, copied; everything else shared.
    // Every own property, the symbol that marks a node's kind (not enumerable) included.
    const copy = <T extends object>(o: T, changes: Partial<T>): T =>
      Object.assign(
        Object.create(Object.getPrototypeOf(o) as object, Object.getOwnPropertyDescriptors(o)) as T,
        changes,
      );
    const items = [...list.items];
    items[index] = fresh;
    const list2 = copy(list, { items } as Partial<typeof list>);
    const pair2 = copy(pair, { value: list2 } as Partial<typeof pair>);
    const root2 = copy(root, { items: root.items.map((it) => (it === pair ? pair2 : it)) } as Partial<typeof root>);
    const document = copy(this.document, { contents: root2 } as Partial<Document.Parsed>);
    const own = new WeakSet<object>();
    visit(alone.document, { Node: (_, n) => void own.add(n) });
    const before = this.#where;
    const moved = new Map<object, [number, number, number]>([[fresh, [freshRange[0], freshRange[1], e]]]);
    for (const [o, n] of [
      [list, list2],
      [root, root2],
    ] as const) {
      const r = before(o);
      if (r) moved.set(n, [r[0], r[1] + delta, r[2] + delta]);
    }
    const where = (node: Node): [number, number, number] | undefined => {
      const kept = moved.get(node);
      if (kept) return kept;
      if (own.has(node)) return node.range ?? undefined;
      const r = before(node);
      if (!r) return undefined;
      const shift = (x: number) => (x >= range[2] ? x + delta : x);
      return [shift(r[0]), shift(r[1]), shift(r[2])];
    };
    const tools = [...this.value['tools']];
    tools[index] = alone.value;
    return new SourceFile(this.displayPath, text, this.absPath, {
      document,
      value: { ...this.value, tools },
      where,
      lineStarts: lineStartsOf(text),
      generation: this.generation + 1,
    });
  }

  /**
   * Where a JSON path is written. `key: true` points at the key of the last segment (for unknown fields);
   * otherwise at the value. A path that does not exist in full points at its deepest existing part.
   */
  locate(path: JsonPath, opts: { key?: boolean } = {}): Span {
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
 * Files parsed by earlier loads of this process (watch, dev), by path and text: a load parses only the files whose
 * bytes changed. A SourceFile is read-only once made, so one made before is as good as a new one. Entries the last
 * two loads did not use are dropped.
 */
const parsedFiles = new Map<string, { file: SourceFile; used: number }>();
let parses = 0;

/** A new load begins (loadSpec): files neither it nor the previous one read go. */
export function startParsing(): void {
  parses++;
  for (const [key, e] of parsedFiles) if (e.used < parses - 1) parsedFiles.delete(key);
  const kept = new Set([...parsedFiles.values()].map((e) => e.file));
  for (const [key, file] of latest) if (!kept.has(file)) latest.delete(key);
}

/**
 * The file parsed, or the same text parsed before under the same paths: in this process, or kept in `store` by an
 * earlier run. An edit inside one tool since then patches the earlier parse (SourceFile.patched). What is returned
 * is kept in the store for the next run.
 */
export function parsedFile(displayPath: string, text: string, absPath: string, store?: ParseStore): SourceFile {
  const key = `${displayPath}\0${absPath}\0${text}`;
  const hit = parsedFiles.get(key);
  const kept = store?.get(absPath);
  let file = hit?.file;
  if (!file) {
    const last = latest.get(`${displayPath}\0${absPath}`) ?? keptFile(displayPath, absPath, kept);
    file = last?.text === text ? last : (last?.patched(text) ?? new SourceFile(displayPath, text, absPath));
  }
  parsedFiles.set(key, { file, used: parses });
  latest.set(`${displayPath}\0${absPath}`, file);
  if (store) {
    const same = (kept as Partial<KeptParse> | undefined)?.text === text;
    const keep = same ? (kept as KeptParse) : keepParse(file);
    if (keep) store.put(absPath, keep);
  }
  return file;
}

/** The file last parsed under each pair of paths: the next edit of it may be a patch (SourceFile.patched). */
const latest = new Map<string, SourceFile>();

/**
 * A parsed file kept between processes (the command's cache, src/piece-cache.ts): its text, its data and its
 * document's nodes with their places. Only files without diagnostics, anchors or aliases are kept.
 */
export interface KeptParse {
  text: string;
  value: unknown;
  /** The document's nodes: [kind, start, value end, end, items or value], kind m(ap), s(equence) or c (scalar). */
  tree: KeptNode;
}
type KeptNode =
  | null
  | ['m', number, number, number, [KeptNode, KeptNode][]]
  | ['s', number, number, number, KeptNode[]]
  | ['c', number, number, number, unknown];

/** Where parses are kept between processes, by the file's absolute path. */
export interface ParseStore {
  get(absPath: string): unknown;
  put(absPath: string, kept: KeptParse): void;
}

/** The file as plain data to keep, or undefined when it has anything a whole parse must judge again. */
export function keepParse(file: SourceFile): KeptParse | undefined {
  if (file.diagnostics.length || file.linked || file.value === undefined) return undefined;
  const node = (n: unknown): KeptNode => {
    if (n === null || n === undefined) return null;
    const r = file.rangeOf(n as Node);
    if (!r) return null;
    if (isMap(n)) return ['m', r[0], r[1], r[2], n.items.map((p) => [node(p.key), node(p.value)])];
    if (isSeq(n)) return ['s', r[0], r[1], r[2], n.items.map(node)];
    if (isScalar(n)) return ['c', r[0], r[1], r[2], n.value];
    throw new Error('a node that is not a map, a list or a scalar');
  };
  try {
    return { text: file.text, value: file.value, tree: node(file.document.contents) };
  } catch {
    return undefined;
  }
}

/** A kept parse as a SourceFile again (undefined when it is not one): the same data and places, not parsed. */
export function keptFile(displayPath: string, absPath: string, kept: unknown): SourceFile | undefined {
  const k = kept as Partial<KeptParse> | undefined;
  if (typeof k !== 'object' || k === null || typeof k.text !== 'string' || k.value === undefined) return undefined;
  const node = (t: KeptNode): YamlMap | YamlSeq | YamlScalar | null => {
    if (t === null) return null;
    let n: YamlMap | YamlSeq | YamlScalar;
    if (t[0] === 'm') {
      const map = new YamlMap();
      map.items = t[4].map(([key, value]) => new YamlPair(node(key), node(value)));
      n = map;
    } else if (t[0] === 's') {
      const seq = new YamlSeq();
      seq.items = t[4].map(node);
      n = seq;
    } else n = new YamlScalar(t[4]);
    n.range = [t[1], t[2], t[3]];
    return n;
  };
  let contents;
  try {
    contents = node(k.tree as KeptNode);
  } catch {
    return undefined;
  }
  const document = new YamlDocument() as unknown as Document.Parsed;
  document.contents = contents as Document.Parsed['contents'];
  return new SourceFile(displayPath, k.text, absPath, {
    document,
    value: k.value,
    where: (n) => n.range ?? undefined,
    lineStarts: lineStartsOf(k.text),
    generation: 0,
  });
}

/** The offsets where the text's lines start. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}
