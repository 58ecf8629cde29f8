/**
 * The written spec is held to what toolspec itself will do with it: it is loaded with the same loader as
 * `toolspec validate` (from a private temporary folder), linted as generate lints, and the manifest generate would
 * send is compared with what the server sent. Loader diagnostics are turned into notes that name the tool they are
 * about, since the user has no spec file yet to look at.
 */
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { Diagnostic } from '../core/diagnostics.js';
import { manifestTools } from '../pipeline/emit/manifest.js';
import { lintLoaded } from '../lint/index.js';
import { memorySource } from '../pipeline/load/files.js';
import { SourceFile } from '../pipeline/load/source.js';
import type { ServerModel } from '../pipeline/model.js';
import { loadModel } from '../compile.js';
import { isObject } from '../pipeline/schema/keywords.js';
import type { ImportNote } from './build.js';

/**
 * Loads `text` as a spec file would be loaded (from memory: nothing touches the disk). `toolNames` and
 * `positions` are the spec's tools' names and their places in the server's list, for messages. Returns the loader's
 * errors and warnings by tool (notes), the positions in the spec's tool list of the tools with errors (failing),
 * and, when the spec has no errors, its model and lint result.
 */
export async function verifySpec(text: string, toolNames: readonly string[], positions: readonly number[]) {
  // A folder that exists only in memory: options' folders are judged against it, and nothing else is there.
  const dir = path.resolve(os.tmpdir(), 'toolspec-import');
  const file = path.join(dir, 'toolspec.yaml');
  const result = loadModel(file, { cwd: dir, source: memorySource(new Map([[file, text]])) });
  const source = new SourceFile('toolspec.yaml', text);
  const notes: ImportNote[] = [];
  const failing = new Set<number>();
  for (const d of result.diagnostics) {
    const at = placeOf(d, source);
    if (d.severity === 'error' && at.index !== undefined) failing.add(at.index);
    const tool = at.index === undefined ? undefined : toolNames[at.index];
    const where = at.where && !d.message.includes(`"${at.where}"`) ? `${at.where}: ` : '';
    notes.push({
      severity: d.severity,
      ...(tool === undefined ? {} : { tool }),
      message: `${where}${unplace(d.message, source, positions)} (${d.code})`,
      ...(d.hint ? { hint: unplace(d.hint, source, positions) } : {}),
    });
  }
  if (!result.model) return { notes, failing };
  const lint = await lintLoaded({ ...result, model: result.model });
  return { model: result.model, notes, failing, lint };
}

/** "toolspec.yaml:13:11" names a file the user does not have: it becomes the tool there ("tool #2"). */
function unplace(text: string, source: SourceFile, positions: readonly number[]): string {
  return text.replace(/toolspec\.yaml:(\d+):(\d+)/g, (all, line: string, column: string) => {
    const { index } = placeOf({ line: Number(line), column: Number(column) }, source);
    const position = index === undefined ? undefined : positions[index];
    return position === undefined ? all : `tool #${position + 1}`;
  });
}

/**
 * Which tool a diagnostic is about (by the tools' places in the text), and the path inside it, e.g.
 * "inputSchema.properties.q.type": the innermost node at the diagnostic's place, walked down from the root.
 */
function placeOf(d: Pick<Diagnostic, 'line' | 'column'>, source: SourceFile): { index?: number; where?: string } {
  const offset = (source.lineCounter.lineStarts[d.line - 1] ?? 0) + d.column - 1;
  const path: (string | number)[] = [];
  for (let node = source.document.contents as Node | null; node;) {
    let next: Node | null = null;
    if (isMap(node)) {
      for (const pair of node.items) {
        const k = pair.key as Node | null;
        const v = pair.value as Node | null;
        const start = k?.range?.[0] ?? v?.range?.[0];
        const end = v?.range?.[2] ?? k?.range?.[2];
        if (start === undefined || end === undefined || offset < start || offset >= end) continue;
        path.push(isScalar(k) ? String(k.value) : '?');
        next = v?.range && offset >= v.range[0] ? v : null;
        break;
      }
    } else if (isSeq(node)) {
      const i = node.items.findIndex((item) => {
        const r = (item as Node).range;
        return r && offset >= r[0] && offset < r[2];
      });
      if (i >= 0) {
        path.push(i);
        next = node.items[i] as Node;
      }
    }
    node = next;
  }
  const index = path[0] === 'tools' && typeof path[1] === 'number' ? path[1] : undefined;
  const where = (index === undefined ? path : path.slice(2))
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 || p.startsWith('[') ? p : `.${p}`))
    .join('');
  return index === undefined ? { where } : { index, where };
}

/**
 * Compares the manifest generate would send with the tools the server sent. With hoisted `$defs`, each `$ref` to
 * one is put back in place first: the comparison is then of meaning, not of bytes. Returns the first tool that
 * differs, or undefined.
 */
export function firstDifference(
  model: ServerModel,
  expected: readonly Record<string, unknown>[],
  hoisted: Record<string, unknown>,
): string | undefined {
  const sent = manifestTools(model) as unknown as Record<string, unknown>[];
  if (sent.length !== expected.length) return `${sent.length} tools instead of ${expected.length}`;
  const names = Object.keys(hoisted);
  for (let i = 0; i < sent.length; i++) {
    const tool = { ...sent[i]! };
    for (const k of ['inputSchema', 'outputSchema'])
      if (isObject(tool[k]) && names.length) tool[k] = restore(tool[k], hoisted);
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(tool)), JSON.parse(JSON.stringify(expected[i]))))
      return `tool "${String(expected[i]!['name'])}"`;
  }
  return undefined;
}

/** The schema with every `$ref` to a hoisted def replaced by the def, and those defs removed from its `$defs`. */
function restore(schema: Record<string, unknown>, hoisted: Record<string, unknown>): unknown {
  const inline = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(inline);
    if (!isObject(v)) return v;
    const ref = v['$ref'];
    if (typeof ref === 'string' && Object.keys(v).length === 1 && ref.startsWith('#/$defs/')) {
      const name = ref.slice('#/$defs/'.length);
      if (Object.hasOwn(hoisted, name)) return inline(hoisted[name]);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, inline(x)]));
  };
  const { $defs: defs, ...rest } = schema;
  if (!isObject(defs)) return inline(schema);
  const kept = Object.fromEntries(Object.entries(defs).filter(([k]) => !Object.hasOwn(hoisted, k)));
  return inline(Object.keys(kept).length ? { ...rest, $defs: kept } : rest);
}
