/** The spec's `options`, resolved: defaults applied (core/options.ts) and the folders checked. */
import path from 'node:path';
import { diagnostic, type Diagnostics } from '../../core/diagnostics.js';
import { checkTimeout, MAX_DURATION_MS, parseDuration } from '../../core/duration.js';
import { DEFAULT_LINT_OPTIONS, DEFAULT_OPTIONS, type LintOptions, type Options } from '../../core/options.js';
import { isInside } from '../../core/paths.js';
import { diskSource, type FileSource } from '../load/files.js';
import type { SourceFile } from '../load/source.js';
import { isObject } from '../schema/keywords.js';

/** Applies defaults to the spec's `options` (already checked against the spec schema) and checks the folders. */
export function resolveOptions(
  raw: unknown,
  rootDir: string,
  file: SourceFile,
  diags: Diagnostics,
  source: FileSource = diskSource,
): Options {
  const given = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<keyof Options | 'timeout', unknown>>;
  const pick = <K extends keyof Options>(k: K, ok: (v: unknown) => boolean): Options[K] =>
    (ok(given[k]) ? given[k] : DEFAULT_OPTIONS[k]) as Options[K];
  const options: Options = {
    generatedDir: pick('generatedDir', (v) => typeof v === 'string' && v !== ''),
    handlersDir: pick('handlersDir', (v) => typeof v === 'string' && v !== ''),
    refs: pick('refs', (v) => v === 'bundle' || v === 'inline'),
    pageSize: pick('pageSize', (v) => Number.isInteger(v) && (v as number) >= 0),
    contractTests: pick('contractTests', (v) => typeof v === 'boolean'),
    timeoutMs: checkTimeout(given['timeout'], file.locate(['options', 'timeout']), diags) ?? DEFAULT_OPTIONS.timeoutMs,
    cache: resolveCache(given['cache'], file, diags),
    subscriptions: pick('subscriptions', (v) => typeof v === 'boolean'),
    toolTables: [],
    lint: resolveLintOptions(given['lint']),
  };
  const unsafe = (key: string, message: string, hint: string) =>
    diags.add(diagnostic('TS016', file.locate(['options', key]), message, hint));
  const folders = ['generatedDir', 'handlersDir'] as const;
  const abs: Partial<Record<(typeof folders)[number], string>> = {};
  for (const key of folders) {
    const value = options[key];
    const resolved = below(rootDir, value);
    const blocker = resolved && fileInTheWay(source, rootDir, resolved);
    if (!resolved)
      unsafe(
        key,
        `options.${key} "${value}" must be a folder below the spec's folder`,
        `use a relative path such as "${DEFAULT_OPTIONS[key]}"; toolspec never writes outside the project`,
      );
    else if (blocker)
      unsafe(
        key,
        `options.${key} "${value}" must be a folder, but ${blocker === resolved ? 'it' : `"${relative(rootDir, blocker)}"`} is a file`,
        `name a folder (toolspec creates it when missing), such as "${DEFAULT_OPTIONS[key]}"; an existing file is never replaced`,
      );
    else {
      abs[key] = resolved;
      options[key] = relative(rootDir, resolved);
    }
  }
  const { generatedDir: gen, handlersDir: handlers } = abs;
  if (gen && handlers && (isInside(gen, handlers) || isInside(handlers, gen)))
    unsafe(
      'handlersDir',
      'options.generatedDir and options.handlersDir overlap',
      'generated files are rewritten on every run and handler files are yours: keep them in separate folders',
    );
  options.toolTables = projectFiles('toolTables', given['toolTables'], rootDir, abs, file, diags);
  const [bundle] = projectFiles('bundleManifest', given['bundleManifest'], rootDir, abs, file, diags);
  if (bundle !== undefined) options.bundleManifest = bundle;
  return options;
}

/**
 * options.toolTables (a list) or options.bundleManifest (one file): files of the project that toolspec keeps a part
 * of, below the spec's folder and outside the folders toolspec owns or the handlers' folder.
 */
function projectFiles(
  key: 'toolTables' | 'bundleManifest',
  raw: unknown,
  rootDir: string,
  folders: Partial<Record<'generatedDir' | 'handlersDir', string>>,
  file: SourceFile,
  diags: Diagnostics,
): string[] {
  const list = key === 'bundleManifest' ? (raw === undefined ? [] : [raw]) : Array.isArray(raw) ? raw : [];
  const files: string[] = [];
  list.forEach((value: unknown, i) => {
    if (typeof value !== 'string' || value === '') return;
    const resolved = path.resolve(rootDir, value);
    const inFolder = Object.values(folders).some((dir) => isInside(dir, resolved));
    if (below(rootDir, value) && !inFolder) return void files.push(relative(rootDir, resolved));
    diags.add(
      diagnostic(
        'TS016',
        file.locate(['options', key, ...(key === 'toolTables' ? [i] : [])]),
        inFolder
          ? `options.${key} "${value}" is inside the generated or the handlers folder`
          : `options.${key} "${value}" must be a file below the spec's folder`,
        key === 'toolTables'
          ? 'name a Markdown file of the project, such as "README.md"'
          : 'name the bundle\'s manifest, such as "manifest.json"',
      ),
    );
  });
  return files;
}

/** `value` resolved against `rootDir`, when it is a relative path to something strictly below it. */
function below(rootDir: string, value: string): string | undefined {
  const resolved = path.resolve(rootDir, value);
  return path.isAbsolute(value) || !isInside(rootDir, resolved) || resolved === rootDir ? undefined : resolved;
}

/** `abs` relative to `rootDir`, with forward slashes. */
function relative(rootDir: string, abs: string): string {
  return path.relative(rootDir, abs).split(path.sep).join('/');
}

/** The first existing non-folder on the way from `rootDir` down to `target` (both absolute), if any. */
function fileInTheWay(source: FileSource, rootDir: string, target: string): string | undefined {
  let cur = rootDir;
  for (const seg of path.relative(rootDir, target).split(path.sep)) {
    cur = path.join(cur, seg);
    try {
      if (source.stat(cur).kind !== 'folder') return cur;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** options.cache with its defaults (the spec schema has checked its form). */
function resolveCache(raw: unknown, file: SourceFile, diags: Diagnostics): Options['cache'] {
  const given = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const ttl = given['ttl'] === 0 ? 0 : parseDuration(given['ttl']);
  if (ttl !== undefined && ttl > MAX_DURATION_MS)
    diags.add(
      diagnostic(
        'TS009',
        file.locate(['options', 'cache', 'ttl']),
        `cache ttl ${String(given['ttl'])} is longer than a day`,
        'use at most 24h: clients should see a new build the same day',
      ),
    );
  return {
    ttlMs: ttl === undefined || ttl > MAX_DURATION_MS ? DEFAULT_OPTIONS.cache.ttlMs : ttl,
    scope: given['scope'] === 'private' ? 'private' : DEFAULT_OPTIONS.cache.scope,
  };
}

/**
 * options.lint with its defaults. The spec's JSON Schema has checked its form (a spec with a mistake there gets no
 * model); the guards only keep a malformed one from throwing.
 */
function resolveLintOptions(raw: unknown): LintOptions {
  const given = (isObject(raw) ? raw : {}) as Partial<LintOptions>;
  const d = DEFAULT_LINT_OPTIONS;
  return {
    failOn: given.failOn ?? d.failOn,
    rules: { ...given.rules },
    ignore: (Array.isArray(given.ignore) ? (given.ignore as unknown[]) : []).map((e) => {
      const entry = isObject(e) ? e : {};
      const tools = Array.isArray(entry['tools'])
        ? entry['tools'].filter((t): t is string => typeof t === 'string')
        : [];
      return {
        rule: String(entry['rule']),
        tools,
        ...(typeof entry['reason'] === 'string' ? { reason: entry['reason'] } : {}),
      };
    }),
    budget: { ...d.budget, ...given.budget },
    toolSearch: { ...d.toolSearch, ...given.toolSearch },
    encoding: given.encoding ?? d.encoding,
  };
}
