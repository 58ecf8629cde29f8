/**
 * One YAML file with its positions: parses with the `yaml` package, keeps the document so any JSON path can be
 * mapped back to file:line:col, and turns YAML's own problems into diagnostics.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Document, Node } from 'yaml';
import { diagnostic, type Diagnostic, type Span } from '../diagnostics.js';

export type JsonPath = readonly (string | number)[];

/** Aliases expand to at most this many nodes in one file; more is taken as an alias bomb. */
export const MAX_ALIAS_COUNT = 1000;

export class SourceFile {
  readonly lineCounter = new LineCounter();
  readonly document: Document.Parsed;
  /** The plain data, or undefined when the file could not be turned into data. */
  readonly value: unknown;
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    /** As shown to the user. */
    readonly displayPath: string,
    readonly text: string,
    /** Absolute, when read from disk. */
    readonly absPath: string = displayPath,
  ) {
    this.document = parseDocument(text, {
      lineCounter: this.lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      strict: true,
      logLevel: 'error',
    });
    for (const e of [...this.document.errors, ...this.document.warnings]) {
      const duplicate = e.code === 'DUPLICATE_KEY';
      const message = duplicate ? duplicateKeyMessage(this.document, e.pos[0]) : yamlMessage(e.message);
      this.diagnostics.push(
        diagnostic(
          duplicate ? 'TS002' : 'TS001',
          this.spanOf(e.pos[0], Math.max(e.pos[1], e.pos[0] + 1)),
          message,
          duplicate ? 'each key may appear once per mapping; remove or rename one of them' : YAML_HINTS[e.code] ?? YAML_HINT,
        ),
      );
    }
    // Duplicate keys leave the data well-formed (the last one wins), so the rest of the file is still checked.
    const fatal = this.document.errors.some((e) => e.code !== 'DUPLICATE_KEY');
    this.value = fatal ? undefined : this.#toData();
  }

  #toData(): unknown {
    let unresolved = false;
    visit(this.document, {
      Pair: (_, pair) => {
        if (pair.key !== null && !isScalar(pair.key) && !isAlias(pair.key)) {
          unresolved = true;
          this.diagnostics.push(
            diagnostic('TS001', this.spanOfNode(pair.key as Node), 'a mapping key must be a plain value, not a list or mapping', 'write the key as a string'),
          );
        }
      },
      Alias: (_, node) => {
        if (node.resolve(this.document) === undefined) {
          unresolved = true;
          this.diagnostics.push(
            diagnostic(
              'TS004',
              this.spanOfNode(node),
              `alias "*${node.source}" refers to no anchor`,
              `define "&${node.source}" on a value before this alias uses it`,
            ),
          );
        }
      },
    });
    if (unresolved) return undefined;
    try {
      return this.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      if (e instanceof ReferenceError) {
        let first: Node | undefined;
        visit(this.document, {
          Alias: (_, node) => {
            first = node;
            return visit.BREAK;
          },
        });
        this.diagnostics.push(
          diagnostic(
            'TS003',
            first ? this.spanOfNode(first) : this.spanOf(0, 1),
            `aliases in this file expand to more than ${MAX_ALIAS_COUNT} nodes`,
            'nested aliases multiply; this is refused as a resource-exhaustion attack. Write the values out or use $defs and $ref',
          ),
        );
        return undefined;
      }
      throw e;
    }
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
    let node: unknown = this.document.contents;
    let keyNode: unknown;
    for (const seg of path) {
      node = this.#deref(node);
      keyNode = undefined;
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
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

  #deref(node: unknown): unknown {
    let n = node;
    for (let i = 0; i < 100 && isAlias(n); i++) n = n.resolve(this.document);
    return n;
  }
}

const YAML_HINT = 'fix the YAML syntax here; quote text that contains ": ", " #", "{", "[", a comma inside { }, or starts with a special character';
const YAML_HINTS: Partial<Record<string, string>> = {
  TAB_AS_INDENT: 'YAML indents with spaces only: replace the tabs with spaces',
  MULTIPLE_DOCS: 'a spec file holds one YAML document: remove the "---" line and what follows, or move it to an included file',
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

function duplicateKeyMessage(doc: Document.Parsed, offset: number): string {
  let key: string | undefined;
  visit(doc, {
    Pair: (_, pair) => {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        key = String(pair.key.value);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return key === undefined ? 'duplicate key in a mapping' : `duplicate key "${key}"`;
}
