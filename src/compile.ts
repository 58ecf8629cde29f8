/**
 * The pipeline, in one call, for every command: load (YAML with positions, src/load) → validate (src/validate) →
 * model (plain data, spec.ts) → emit (src/emit) → format. Nothing is written; the commands decide what to do with
 * what it returns (write it, compare it with the disk, run it, report it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Cache } from './cache/store.js';
import type { OutputFile } from './emit/generate.js';
import { EXAMPLES_RUNNER, STATIC_FILES } from './emit/templates.js';
import type { FileSource } from './load/files.js';
import { packageRoot } from './paths.js';
import { loadModel, type LoadResult } from './spec.js';

export interface CompileOptions {
  cwd: string;
  /** Where the search for a spec looked, when none was named (src/discover.ts): for the "cannot find" message. */
  lookedIn?: string | undefined;
  /** Where the files are read from: the disk unless given (a git revision, memory). */
  source?: FileSource;
  /** generate's cache (src/cache/store.ts), which may skip compile work; the other commands pass none. */
  cache?: Cache | undefined;
  /** Emit the files too (not for commands that only report); `stubs`: which handler stubs (default: all). */
  emit?: { stubs?: (file: string) => boolean };
}

export interface Compiled extends LoadResult {
  /** The generated files and stubs, when emitting was asked for and the spec has no error. */
  output?: OutputFile[];
}

export async function compile(spec: string, options: CompileOptions): Promise<Compiled> {
  const { cwd, lookedIn, source, cache, emit } = options;
  const result = loadModel(spec, { cwd, lookedIn, ...(source ? { source } : {}), cache });
  if (!emit || !result.model) return result;
  const { generate } = await import('./emit/generate.js');
  const output = await generate(result.model, result.validators!, {
    templates: runtimeTemplates(),
    store: cache,
    ...(emit.stubs ? { stubs: emit.stubs } : {}),
  });
  return { ...result, output };
}

let templates: Map<string, string> | undefined;

/** The runtime's static files (templates/runtime), read once. */
export function runtimeTemplates(): ReadonlyMap<string, string> {
  templates ??= new Map(
    [...STATIC_FILES, EXAMPLES_RUNNER].map((name) => [
      name,
      fs.readFileSync(path.join(packageRoot, 'templates', 'runtime', name), 'utf8'),
    ]),
  );
  return templates;
}
