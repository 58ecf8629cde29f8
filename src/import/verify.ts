/**
 * The written spec is held to what toolspec itself will do with it: it is loaded with the same loader as
 * `toolspec validate` (from a private temporary folder), linted as generate lints, and the manifest generate would
 * send is compared with what the server sent. Loader diagnostics are turned into notes that name the tool they are
 * about, since the user has no spec file yet to look at.
 */
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
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
 * "inputSchema.properties.q.type": the deepest key or item whose text, from its key to the end of its value,
 * holds the diagnostic's place.
 */
function placeOf(d: Pick<Diagnostic, 'line' | 'column'>, source: SourceFile): { index?: number; where?: string } {
  const offset = (line: number, column: number) => (source.lineCounter.lineStarts[line - 1] ?? 0) + column - 1;
  const at = offset(d.line, d.column);
  const path: (string | number)[] = [];
  for (let value = source.value; ;) {
    const keys = Array.isArray(value) ? value.map((_, i) => i) : isObject(value) ? Object.keys(value) : [];
    const key = keys.find((k) => {
      const { line, column } = source.locate([...path, k], { key: true });
      const { endLine, endColumn } = source.locate([...path, k]);
      return offset(line, column) <= at && at < offset(endLine, endColumn);
    });
    if (key === undefined) break;
    path.push(key);
    value = (value as Record<string | number, unknown>)[key];
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
