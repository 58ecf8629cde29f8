/**
 * Output options: their one home is the spec's `options` mapping, so a person and CI run the same command with
 * no flags. Defaults are set here and nowhere else.
 */
import path from 'node:path';
import { diagnostic, type Diagnostics } from './diagnostics.js';
import type { SourceFile } from './load/source.js';
import { isInside } from './paths.js';

export interface Options {
  /** Folder of generated files, relative to the spec's folder, with forward slashes. */
  generatedDir: string;
  /** Folder of the user's handler modules, relative to the spec's folder. */
  handlersDir: string;
  /** "bundle": each schema carries the $defs it uses; "inline": refs replaced by their targets where possible. */
  refs: 'bundle' | 'inline';
  /** Tools per tools/list page; 0 sends every tool in one page. */
  pageSize: number;
}

export const DEFAULT_OPTIONS: Readonly<Options> = Object.freeze({
  generatedDir: 'src/generated',
  handlersDir: 'src/handlers',
  refs: 'bundle',
  pageSize: 0,
});

/** Applies defaults to the spec's `options` (already checked against the spec schema) and checks the folders. */
export function resolveOptions(raw: unknown, rootDir: string, file: SourceFile, diags: Diagnostics): Options {
  const given = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<keyof Options, unknown>>;
  const pick = <K extends keyof Options>(k: K, ok: (v: unknown) => boolean): Options[K] =>
    (ok(given[k]) ? given[k] : DEFAULT_OPTIONS[k]) as Options[K];
  const options: Options = {
    generatedDir: pick('generatedDir', (v) => typeof v === 'string' && v !== ''),
    handlersDir: pick('handlersDir', (v) => typeof v === 'string' && v !== ''),
    refs: pick('refs', (v) => v === 'bundle' || v === 'inline'),
    pageSize: pick('pageSize', (v) => Number.isInteger(v) && (v as number) >= 0),
  };
  const folders = ['generatedDir', 'handlersDir'] as const;
  const abs: Partial<Record<(typeof folders)[number], string>> = {};
  for (const key of folders) {
    const value = options[key];
    const resolved = path.resolve(rootDir, value);
    if (path.isAbsolute(value) || !isInside(rootDir, resolved) || resolved === rootDir) {
      diags.add(
        diagnostic(
          'TS016',
          file.locate(['options', key]),
          `options.${key} "${value}" must be a folder below the spec's folder`,
          `use a relative path such as "${DEFAULT_OPTIONS[key]}"; toolspec never writes outside the project`,
        ),
      );
      continue;
    }
    abs[key] = resolved;
    options[key] = path.relative(rootDir, resolved).split(path.sep).join('/');
  }
  if (abs.generatedDir && abs.handlersDir && (isInside(abs.generatedDir, abs.handlersDir) || isInside(abs.handlersDir, abs.generatedDir))) {
    diags.add(
      diagnostic(
        'TS016',
        file.locate(['options', 'handlersDir']),
        'options.generatedDir and options.handlersDir overlap',
        'generated files are rewritten on every run and handler files are yours: keep them in separate folders',
      ),
    );
  }
  return options;
}
