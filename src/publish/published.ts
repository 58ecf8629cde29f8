/**
 * The files toolspec keeps outside its generated folder, computed from the model and the files as they are on disk:
 * server.json (spec `server.registry`), the tool tables of options.toolTables and the bundle manifest of
 * options.bundleManifest. Read here, written only by write/write.ts (generate), compared by check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { diagnostic, type Diagnostic, type DiagnosticCode, type Span } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { countTokens } from '../lint/tokens.js';
import { MAX_FILE_BYTES } from '../pipeline/load/limits.js';
import type { OutputFile } from '../pipeline/emit/generate.js';
import type { JsonPath } from '../pipeline/load/source.js';
import type { ServerModel } from '../pipeline/model.js';
import { bundleManifest } from './bundle.js';
import { SERVER_JSON_MARK, serverJson } from './registry.js';
import { spliceTable, toolTable } from './table.js';

/** `locate`: where a field of the main spec file is written, for the diagnostics. */
export async function publishedFiles(
  model: ServerModel,
  cwd: string,
  locate: (at: JsonPath) => Span,
): Promise<{ files: OutputFile[]; diagnostics: Diagnostic[] }> {
  const files: OutputFile[] = [];
  const diagnostics: Diagnostic[] = [];
  if (model.registry) {
    const entry = serverJson(model, cwd, locate);
    if ('text' in entry)
      files.push({ path: 'server.json', contents: entry.text, kind: 'published', mark: SERVER_JSON_MARK });
    else diagnostics.push(...entry.diagnostics);
  }
  /** Why the file that `options.<at[1]>` names cannot be kept. */
  const unusable = (code: DiagnosticCode, at: JsonPath, shown: string, { why, hint }: { why: string; hint: string }) =>
    diagnostics.push(diagnostic(code, locate(at), `options.${at[1]} names ${shown}, which ${why}`, hint));
  const bundle = model.options.bundleManifest;
  if (bundle !== undefined) {
    const abs = path.resolve(model.rootDir, bundle);
    const text = readProjectText(abs, 'create it (an MCP bundle manifest), or take out options.bundleManifest');
    const manifest = typeof text === 'string' ? bundleManifest(model, text) : text;
    if ('text' in manifest)
      files.push({ path: bundle, contents: manifest.text, kind: 'published', based: text as string });
    else unusable('TS053', ['options', 'bundleManifest'], displayPath(abs, cwd), manifest);
  }
  if (!model.options.toolTables.length) return { files, diagnostics };
  const report = await countTokens(model);
  const table = toolTable(model, new Map(report.tools.map((t) => [t.name, t.tokens])), report.encoding);
  model.options.toolTables.forEach((rel, i) => {
    const abs = path.resolve(model.rootDir, rel);
    const shown = displayPath(abs, cwd);
    const text = readProjectText(abs, 'create it with the two marker lines, or take it out of options.toolTables');
    if (typeof text !== 'string') return void unusable('TS051', ['options', 'toolTables', i], shown, text);
    const spliced = spliceTable(text, table);
    if ('text' in spliced)
      return void files.push({ path: rel, contents: spliced.text, kind: 'published', based: text });
    const { line, column, message, hint } = spliced;
    const span = { file: shown, line, column, endLine: line, endColumn: column };
    diagnostics.push(diagnostic('TS051', span, `${shown} ${message}`, hint));
  });
  return { files, diagnostics };
}

/** The file's text, or why toolspec cannot keep a part of it: never a link, a folder, a huge or non-UTF-8 file. */
function readProjectText(abs: string, missing: string): string | { why: string; hint: string } {
  let stat;
  try {
    stat = fs.lstatSync(abs);
  } catch {
    return { why: 'does not exist', hint: missing };
  }
  if (!stat.isFile()) return { why: 'is not a plain file (a link or a folder)', hint: 'name the file itself' };
  if (stat.size > MAX_FILE_BYTES)
    return {
      why: `is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`,
      hint: 'toolspec reads project files up to that size',
    };
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(abs));
  } catch {
    return { why: 'is not UTF-8 text', hint: 'save it as UTF-8: toolspec rewrites only text it can read back whole' };
  }
}
