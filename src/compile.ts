/**
 * The pipeline, in one call, for every command:
 *
 *   load (pipeline/load: the files, YAML with positions, the spec's own schema)
 *   → validate (pipeline/validate: tools, schemas, examples, prompts and resources, options)
 *   → model (pipeline/model.ts: plain data)
 *   → emit (pipeline/emit: one module per artifact, formatted by the one printer)
 *
 * Every problem in every file is collected before anything fails. Nothing is written: the commands decide what to
 * do with what compile returns (write it, compare it with the disk, run it, report it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { diagnostic, Diagnostics, type Diagnostic } from './core/diagnostics.js';
import { fieldsOf, loadSpec, type LoadOptions } from './pipeline/load/load.js';
import type { SourceFile } from './pipeline/load/source.js';
import type { CompiledValidators, ServerInfo, ServerModel } from './pipeline/model.js';
import { checkScopesNeedAuth, resolveAuth } from './pipeline/validate/auth.js';
import { resolveOptions } from './pipeline/validate/options.js';
import { checkPrimitives } from './pipeline/validate/primitives.js';
import { checkTools } from './pipeline/validate/tools.js';
import type { OutputFile } from './pipeline/emit/generate.js';
import { AUTH_VERIFIER, EXAMPLES_RUNNER, STATIC_FILES } from './pipeline/emit/templates.js';
import { packageRoot } from './core/paths.js';

export interface CompileOptions extends LoadOptions {
  cwd: string;
  /** Emit the files too (not for commands that only report), with the handler stubs this accepts. */
  stubs?: (file: string) => boolean;
}

export interface Compiled extends LoadResult {
  /** The generated files and stubs, when emitting was asked for and the spec has no error. */
  output?: OutputFile[];
}

export async function compile(spec: string, options: CompileOptions): Promise<Compiled> {
  const { cwd, cache, stubs } = options;
  const result = loadModel(spec, options);
  if (!stubs || !result.model) return result;
  const { generate } = await import('./pipeline/emit/generate.js');
  const output = await generate(result.model, result.validators!, {
    templates: runtimeTemplates(),
    store: cache,
    stubs,
  });
  const { publishedFiles } = await import('./publish/published.js');
  const main = result.parsed?.get(result.model.specFile);
  const published = await publishedFiles(result.model, cwd, (at) => main!.locate(at));
  if (published.diagnostics.length) {
    // A file the output depends on is not as it must be: like an invalid spec, nothing is generated.
    const { model: _model, validators: _validators, ...rest } = result;
    return { ...rest, diagnostics: [...result.diagnostics, ...published.diagnostics] };
  }
  return { ...result, output: [...output, ...published.files] };
}

let templates: Map<string, string> | undefined;

/** The runtime's static files (templates/runtime), read once. */
export function runtimeTemplates(): ReadonlyMap<string, string> {
  templates ??= new Map(
    [...STATIC_FILES, EXAMPLES_RUNNER, AUTH_VERIFIER].map((name) => [
      name,
      fs.readFileSync(path.join(packageRoot, 'templates', 'runtime', name), 'utf8'),
    ]),
  );
  return templates;
}

export interface LoadResult {
  /** Present only when there is no error (warnings allowed). */
  model?: ServerModel;
  /** The tools' compiled validators, with the model: generate(model, validators) emits them. */
  validators?: CompiledValidators;
  /** Errors and warnings, sorted by file (in load order), line and column. */
  diagnostics: Diagnostic[];
  /** The files read, as shown in diagnostics, main first. */
  files: string[];
  /** Their text, for code frames in messages. */
  sources: Map<string, string>;
  /** What the output depends on: every file read (absolute path and text) and every folder included whole. */
  inputs: { files: { path: string; text: string }[]; folders: string[] };
  /** The parsed files by display path, when there is a model: later stages (lint) find positions in them. */
  parsed?: ReadonlyMap<string, SourceFile>;
}

const SERVER_FIELDS = ['name', 'version', 'title', 'description', 'instructions', 'websiteUrl', 'icons'];

export function loadModel(specPath: string, opts: LoadOptions = {}): LoadResult {
  const diags = new Diagnostics();
  const raw = loadSpec(specPath, diags, opts);
  if (!raw) return { diagnostics: diags.sorted([]), files: [], sources: new Map(), inputs: { files: [], folders: [] } };
  const files = raw.files.map((f) => f.displayPath);
  const sources = new Map(raw.files.map((f) => [f.displayPath, f.text]));
  const inputs = { files: raw.files.map((f) => ({ path: f.absPath, text: f.text })), folders: raw.folders };
  const rootDir = path.dirname(raw.main.absPath);
  const options = resolveOptions(raw.root['options'], rootDir, raw.main, diags, opts.source);
  const { tools, validators } = checkTools(raw.tools, raw.defs, diags, opts.cache);
  const { prompts, resources } = checkPrimitives(raw.prompts, raw.resources, raw.resourceTemplates, diags);
  const auth = resolveAuth(raw.root['auth'], raw.main, diags);
  const resource = [...raw.resources, ...raw.resourceTemplates];
  checkScopesNeedAuth(raw.root['auth'], { tool: raw.tools, prompt: raw.prompts, resource }, diags);
  if (!raw.tools.length && !raw.prompts.length && !resource.length && raw.main.value !== undefined) {
    diags.add(
      diagnostic(
        'TS035',
        raw.main.locate(['tools'], { key: true }),
        'the spec has no tools',
        'add tools under "tools:", or check the paths in "include:"',
        'warning',
      ),
    );
  }
  const diagnostics = diags.sorted(files);
  if (diags.hasErrors) return { diagnostics, files, sources, inputs };
  const server = raw.root['server'] as Record<string, unknown>;
  const model: ServerModel = {
    specFile: raw.main.displayPath,
    rootDir,
    files,
    server: fieldsOf(server, SERVER_FIELDS) as unknown as ServerInfo,
    ...fieldsOf(server, ['registry']),
    ...(auth ? { auth } : {}),
    options,
    tools,
    prompts,
    resources,
  };
  return {
    model,
    validators,
    diagnostics,
    files,
    sources,
    inputs,
    parsed: new Map(raw.files.map((f) => [f.displayPath, f])),
  };
}
