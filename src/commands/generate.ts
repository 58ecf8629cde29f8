/**
 * `toolspec generate`, one run: load (with the cache) → lint → generate → write. Returns what to print and the exit
 * code (the CLI prints), and what the run read, so that `generate --watch` (src/watch.ts) can tell an edit that
 * matters from one that does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openCache, sha256 } from '../cache/store.js';
import { countSummary, type Style } from '../report/text.js';
import { renderJson, renderTexts } from '../report/findings.js';
import { writeOutput, type WriteReport } from '../write/write.js';
import { compile } from '../compile.js';
import { countsOf, lintBeside, plural, served, type SpecInput } from './result.js';

export interface GenerateInput extends Omit<SpecInput, 'style'> {
  format: 'text' | 'json';
  /** Style of stderr, where diagnostics and lint findings go. */
  style: Style;
  /**
   * Create stubs for new tools even when handler modules of vanished tools are there (`--new-stubs`). Without it,
   * generate stops and asks whether a new tool is one of those renamed (src/write/renames.ts).
   */
  newStubs?: boolean;
  /** Compute everything, reading no cache (`--no-cache`); what is computed replaces what the cache held. */
  noCache?: boolean;
}

/** What a run that wrote (or found nothing to write) did: the writer's report (paths relative to the spec's folder). */
export type GenerateSummary = WriteReport &
  ReturnType<typeof countsOf> & {
    /** The generated folder, relative to the spec's folder. */
    generatedDir: string;
    ms: number;
  };

export interface GenerateResult {
  /** 0 written (or nothing to do), 1 lint fails, 2 invalid spec: nothing written in either. */
  code: 0 | 1 | 2;
  /** Exactly what `toolspec generate` prints on stdout and on stderr. */
  stdout: string;
  stderr: string;
  /** stderr without the last line that says nothing was written: the diagnostics and lint findings. */
  notes: string;
  /** Why nothing was written, in a few words ("2 errors", "lint fails (1 error)"); absent when it wrote. */
  failure?: string;
  /** The object `--format json` prints. */
  json: Record<string, unknown>;
  summary?: GenerateSummary;
  /** What the run read: the sha256 of each file's text by absolute path, and the folders included whole. */
  inputs: { files: Map<string, string>; folders: string[] };
  /** Where it writes (absolute), when the spec got that far: the generated and handlers folders. */
  outputDirs: string[];
}

export async function generateCommand(input: GenerateInput): Promise<GenerateResult> {
  const started = performance.now();
  const { spec, format, style } = input;
  const text = format === 'text';
  const specPath = path.resolve(input.cwd, spec);

  const cache = openCache(path.dirname(specPath), { read: !input.noCache });
  // Stubs only for handlers that are missing: the others would not be written.
  const stubs = (file: string) => !fs.existsSync(path.resolve(path.dirname(specPath), file));
  const result = await compile(spec, { cwd: input.cwd, lookedIn: input.lookedIn, cache, stubs });
  const inputs = {
    files: new Map(result.inputs.files.map((f) => [f.path, sha256(f.text)])),
    folders: result.inputs.folders,
  };
  let notes = text && result.diagnostics.length ? `${renderTexts(result.diagnostics, style, result.sources)}\n\n` : '';
  const model = result.model;
  const outputDirs = model
    ? [path.resolve(model.rootDir, model.options.generatedDir), path.resolve(model.rootDir, model.options.handlersDir)]
    : [];
  /** A run that writes nothing: `last` ends stderr (text only), `more` are notes to keep for watch. */
  const stop = (code: 1 | 2, json: Record<string, unknown>, failure: string, last = '', more = ''): GenerateResult => ({
    code,
    stdout: text ? '' : `${JSON.stringify(json, null, 2)}\n`,
    stderr: text ? notes + more + last : '',
    notes: notes + (text ? more : ''),
    failure,
    json,
    inputs,
    outputDirs,
  });
  if (!model) {
    const where = `${spec}${result.files.length > 1 ? ' and the files it includes' : ''}`;
    const json = { ok: false, spec, diagnostics: result.diagnostics.map(renderJson) };
    const counted = countSummary(result.diagnostics);
    return stop(2, json, counted, `${counted} in ${where}; nothing was written\n`);
  }

  const api = await import('../lint/index.js');
  const { lint, stderr } = await lintBeside(result, format, false, style, '; nothing was written');
  notes += stderr;
  if (lint.failed) {
    const json = { ok: false, spec, diagnostics: result.diagnostics.map(renderJson), lint: api.lintResultJson(lint) };
    const warnings = lint.warnings ? `, ${plural(lint.warnings, 'warning')}` : '';
    return stop(1, json, `lint fails (${plural(lint.errors, 'error')}${warnings})`);
  }

  const subject = (await import('../check/subject.js')).subjectOf(model);
  const renames = await import('../write/renames.js');
  const plan = renames.planHandlers(subject.handlersDir, subject.tools);
  const askable = plan.missing.length ? renames.askableOrphans(plan, subject.generatedDir) : [];
  if (askable.length && !input.newStubs) {
    // A new tool and the handler of a tool that vanished in this edit: most likely a rename. A stub now would leave
    // the user's code behind in a file that check then calls an orphan; ask instead.
    const asks = renames.renameQuestions({ ...plan, orphans: askable }, input.cwd).map((q) => q.diagnostic);
    const diagnostics = [...result.diagnostics, ...asks];
    const json = { ok: false, spec, diagnostics: diagnostics.map(renderJson), lint: api.lintResultJson(lint) };
    const confirm = `${plural(asks.length, 'rename')} to confirm`;
    const asked = `${renderTexts(asks, style, result.sources)}\n\n`;
    return stop(2, json, confirm, `${confirm}; nothing was written\n`, asked);
  }
  const moves = await Promise.all(
    [...plan.moves, ...plan.blocked].map(async (m) => {
      const original = fs.readFileSync(m.source, 'utf8');
      const { typeName } = model.tools.find((t) => t.name === m.tool)!;
      const contents = await renames.rewriteHandler(original, { ...m, typeName, generatedDir: subject.generatedDir });
      return { source: m.source, target: m.target, original, contents };
    }),
  );
  const report = writeOutput(model.rootDir, model.options, result.output!, moves);
  const summary: GenerateSummary = {
    ...report,
    ...countsOf(model),
    generatedDir: model.options.generatedDir,
    ms: Math.round(performance.now() - started),
  };
  const json = {
    ok: true,
    spec,
    ...report,
    diagnostics: result.diagnostics.map(renderJson),
    lint: api.lintResultJson(lint),
  };
  const stdout = text
    ? `${formatSummary(summary)}\n${report.moved.map((m) => `moved ${m.from} to ${m.to}: renamed tool, your code kept\n`).join('')}` +
      report.created.map((f) => `created ${f}: a stub to fill in\n`).join('')
    : `${JSON.stringify(json, null, 2)}\n`;
  // Both files kept: the user decides what the renamed tool's handler holds.
  const base = path.posix.basename;
  for (const m of text ? report.notMoved : [])
    notes += `${m.from} was not moved to ${m.to}, which exists already; both are kept: move what you need from ${base(m.from)} into ${base(m.to)}, then remove ${base(m.from)}\n`;
  if (text && model.auth && !listsJose(model.rootDir))
    notes += `${model.options.generatedDir}/auth.ts verifies tokens with jose, which your package.json does not list: npm install jose@^6\n`;
  return { code: 0, stdout, stderr: notes, notes, json, summary, inputs, outputDirs };
}

/** Whether the nearest package.json above the spec lists jose (auth.ts imports it); true when there is none to read. */
function listsJose(dir: string): boolean {
  let at = dir;
  while (!fs.existsSync(path.join(at, 'package.json')) && path.dirname(at) !== at) at = path.dirname(at);
  const file = path.join(at, 'package.json');
  try {
    if (!fs.existsSync(file) || fs.statSync(file).size > 1024 * 1024) return true;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    return ['dependencies', 'devDependencies', 'peerDependencies'].some((k) => pkg[k]?.['jose'] !== undefined);
  } catch {
    return true; // not ours to judge: npm will say what is wrong with it
  }
}

/** "src/generated: 13 files, 2 written, 11 unchanged — 3 tools in 85 ms". */
export function formatSummary(s: GenerateSummary): string {
  return (
    `${s.generatedDir}: ${plural(s.written.length + s.unchanged.length, 'file')}, ${s.written.length} written, ${s.unchanged.length} unchanged` +
    (s.removed.length ? `, ${s.removed.length} removed (${s.removed.join(', ')})` : '') +
    (s.published.length ? `; updated ${s.published.join(', ')}` : '') +
    ` — ${served(s)} in ${s.ms} ms`
  );
}
