/**
 * Stage 1, load: read the spec and every file it includes, parse each as YAML with positions, and check each
 * against the JSON Schema that toolspec ships for the spec file. Produces the raw tools and shared $defs with
 * their origins, so that later stages can point at any part of them.
 */
import path from 'node:path';
import { diagnostic, type DiagnosticCode, type Diagnostics, type Span } from '../../core/diagnostics.js';
import { displayPath, isInside } from '../../core/paths.js';
import { closest } from '../../core/suggest.js';
import { diskSource, type FileSource } from './files.js';
import { checkStructure } from './structure.js';
import { decodeUtf8 } from './decode.js';
import { MAX_FILE_BYTES, MAX_TOOLS, MAX_TOTAL_BYTES } from './limits.js';
import { isObject } from '../schema/keywords.js';
import { parsedFile, startParsing, SourceFile, type JsonPath, type Store } from './source.js';

export { MAX_FILE_BYTES } from './limits.js';

/** Where something was written: a file and the JSON path inside it. */
export interface Origin {
  file: SourceFile;
  path: JsonPath;
}

export interface RawTool extends Origin {
  value: Record<string, unknown>;
}

export interface RawDef extends Origin {
  value: unknown;
}

export interface RawSpec {
  main: SourceFile;
  /** Every file read, main first, in the order read. */
  files: SourceFile[];
  /** The main file's data (an object when the file had no structural errors at its top level). */
  root: Record<string, unknown>;
  tools: RawTool[];
  /** The prompts, resources and resource templates of every file, in load order (checked by validate/primitives.ts). */
  prompts: RawTool[];
  resources: RawTool[];
  resourceTemplates: RawTool[];
  defs: Map<string, RawDef>;
  /** Folders included whole (absolute): what they hold is part of the input too. */
  folders: string[];
  /** True when tools past MAX_TOOLS were left out (and reported). */
  tooManyTools: boolean;
}

export interface LoadOptions {
  cwd?: string;
  /** Where the files are read from: the disk unless given (a git revision, memory). */
  source?: FileSource;
  /**
   * Set when the user named no spec and none was found (src/core/discover.ts): where the search looked, added to the
   * "cannot find" message.
   */
  lookedIn?: string | undefined;
  /**
   * generate's cache (the other commands pass none): a file whose text was parsed before is not parsed again, a
   * schema judged before not judged again.
   */
  cache?: Store | undefined;
}

/** Loads the spec at `specPath`. Returns undefined when the main file could not be read or parsed at all. */
export function loadSpec(specPath: string, diags: Diagnostics, opts: LoadOptions = {}): RawSpec | undefined {
  startParsing();
  const cwd = opts.cwd ?? process.cwd();
  const source = opts.source ?? diskSource;
  const abs = path.resolve(cwd, specPath);
  /** Bytes read so far, across the spec and its includes. */
  let used = 0;

  /**
   * `context`, for an include: where it is named (its diagnostics point there) and the entry as written. For the
   * main spec: where the search for it looked, when it was searched for (src/core/discover.ts).
   */
  const readSource = (
    abs: string,
    context: { from?: Span; entry?: string; lookedIn?: string | undefined } = {},
  ): SourceFile | undefined => {
    const shown = displayPath(abs, cwd);
    const start = { file: shown, line: 1, column: 1, endLine: 1, endColumn: 1 };
    const where = context.from ?? start;
    const fail = (code: DiagnosticCode, at: Span, message: string, hint: string) =>
      void diags.add(diagnostic(code, at, message, hint));
    let bytes: Buffer;
    try {
      const st = source.stat(abs);
      if (st.kind === 'folder')
        return fail(
          'TS005',
          where,
          `${shown} is a folder, not a spec file`,
          'name a .yaml file; to include a whole folder, end the path with /',
        );
      // A pipe or a device would block the read or never end.
      if (st.kind !== 'file') return fail('TS005', where, `${shown} is not a regular file`, 'name a .yaml file');
      // Sizes are checked before reading, so an enormous file costs a stat, not the memory to hold it.
      if (st.size > MAX_FILE_BYTES)
        return fail(
          'TS037',
          start,
          `${shown} is ${mib(st.size)}; a spec file may hold at most ${mib(MAX_FILE_BYTES)}`,
          'check that this is the spec you meant; a large spec can be split across files with include',
        );
      if (used + st.size > MAX_TOTAL_BYTES)
        return fail(
          'TS037',
          where,
          `${shown} (${mib(st.size)}) would bring the spec and its includes to ${mib(used + st.size)}; together they may hold at most ${mib(MAX_TOTAL_BYTES)}`,
          'check the include paths: a folder include reads every .yaml file in that folder',
        );
      bytes = source.read(abs);
      used += bytes.length;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const missing = code === 'ENOENT';
      // A misspelt name: the closest .yaml file of the folder it names, as the user would write it.
      const meant = missing ? nearbySpecFile(source, abs) : undefined;
      const suggestion = meant === undefined ? '' : `did you mean "${besideOf(context.entry ?? shown, meant)}"?`;
      const searched = missing && context.lookedIn ? `; ${context.lookedIn}` : '';
      return fail(
        'TS005',
        where,
        missing ? `cannot find ${shown}${searched}` : `cannot read ${shown} (${code ?? String(e)})`,
        context.from
          ? `${suggestion ? `${suggestion} ` : ''}include paths are relative to the file that includes them`
          : suggestion ||
              (context.lookedIn
                ? "run toolspec in your spec's folder or below it, or pass its path, e.g. toolspec validate path/to/toolspec.yaml"
                : 'pass the path of your spec file, e.g. toolspec validate toolspec.yaml'),
      );
    }
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) {
      const { line, column } = decoded;
      const at = { file: shown, line, column, endLine: line, endColumn: column + 1 };
      return fail('TS036', at, `${shown} ${decoded.message}`, decoded.hint);
    }
    const file = parsedFile(shown, decoded.text, abs, opts.cache);
    for (const d of file.diagnostics) diags.add(d);
    return file;
  };

  const rootDir = path.dirname(abs);
  /** The files an include entry names: itself, or a folder's .yaml files; none when it is refused. */
  const resolveInclude = (file: SourceFile, entry: string, index: number): string[] => {
    const at = file.locate(['include', index]);
    const refuse = (why: string) => {
      diags.add(
        diagnostic(
          'TS016',
          at,
          `include "${entry}" ${why}`,
          "included files must lie in the spec file's folder or below it; use a relative path",
        ),
      );
      return [];
    };
    if (path.isAbsolute(entry) || /^[A-Za-z]:[\\/]/.test(entry)) return refuse('is an absolute path');
    const target = path.resolve(path.dirname(file.absPath), entry);
    if (!isInside(rootDir, target)) return refuse("points outside the spec's folder");
    if (exists(source, target) && !isInside(source.realpath(rootDir), source.realpath(target)))
      return refuse("is a link that points outside the spec's folder");
    if (!/[\\/]$/.test(entry)) return [target];
    let names: string[];
    try {
      names = source.list(target);
    } catch {
      diags.add(
        diagnostic(
          'TS005',
          at,
          `cannot read folder "${entry}"`,
          'include paths are relative to the file that includes them',
        ),
      );
      return [];
    }
    return names
      .filter((n) => /\.ya?ml$/i.test(n))
      .sort()
      .map((n) => path.join(target, n));
  };

  const main = readSource(abs, { lookedIn: opts.lookedIn });
  if (!main) return undefined;

  const spec: RawSpec = {
    main,
    files: [main],
    root: {},
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [],
    defs: new Map(),
    folders: [],
    tooManyTools: false,
  };
  const seen = new Map<string, SourceFile>([[source.realpath(abs), main]]);
  /** The chain of includes being read, for naming cycles. */
  const stack: SourceFile[] = [main];

  const visit = (file: SourceFile, kind: 'main' | 'include'): void => {
    if (file.value === undefined) return;
    checkStructure(file, kind, diags);
    const data = file.value;
    if (!isObject(data)) return;
    if (kind === 'main') spec.root = data;
    const defs = data['$defs'];
    for (const [name, value] of isObject(defs) ? Object.entries(defs) : []) {
      const prev = spec.defs.get(name);
      if (!prev) {
        spec.defs.set(name, { value, file, path: ['$defs', name] });
        continue;
      }
      const p = prev.file.locate(prev.path, { key: true });
      diags.add(
        diagnostic(
          'TS018',
          file.locate(['$defs', name], { key: true }),
          `$defs "${name}" is defined twice`,
          `it is defined first at ${p.file}:${p.line}:${p.column}; shared $defs form one namespace across all included files`,
        ),
      );
    }
    // Each list in order. Past MAX_TOOLS tools (counted across files) the rest are left out, so no more schemas are
    // checked than a server may hold, and the first one left out is reported.
    for (const list of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
      const items = data[list];
      if (!Array.isArray(items)) continue;
      for (const [i, value] of items.entries()) {
        if (!isObject(value)) continue;
        if (list === 'tools' && spec.tools.length === MAX_TOOLS) {
          const more = items.length - i;
          if (!spec.tooManyTools)
            diags.add(
              diagnostic(
                'TS037',
                file.locate(['tools', i]),
                `the spec has more than ${MAX_TOOLS} tools: this is tool ${MAX_TOOLS + 1}${more > 1 ? `, and ${more - 1} more follow in this file` : ''}`,
                `a server may have at most ${MAX_TOOLS} tools (clients and models handle a few hundred at most); the tools past the limit were not checked`,
              ),
            );
          spec.tooManyTools = true;
          break;
        }
        spec[list].push({ value, file, path: [list, i] });
      }
    }
    const includes = data['include'];
    if (!Array.isArray(includes)) return;
    includes.forEach((entry, i) => {
      if (typeof entry !== 'string' || entry === '') return;
      if (/[\\/]$/.test(entry)) spec.folders.push(path.resolve(path.dirname(file.absPath), entry));
      for (const target of resolveInclude(file, entry, i)) {
        const real = source.realpath(target);
        const already = seen.get(real);
        if (already) {
          const cycle = stack.indexOf(already);
          diags.add(
            diagnostic(
              'TS017',
              file.locate(['include', i]),
              cycle === -1
                ? `${JSON.stringify(entry)} is included twice: ${already.displayPath} is already part of the spec`
                : `include cycle: ${[...stack.slice(cycle), already].map((f) => f.displayPath).join(' → ')}`,
              'include each file once; a repeated include would load its tools twice',
            ),
          );
          continue;
        }
        const child = readSource(target, { from: file.locate(['include', i]), entry });
        if (!child) continue;
        seen.set(real, child);
        spec.files.push(child);
        stack.push(child);
        visit(child, 'include');
        stack.pop();
      }
    });
  };
  visit(main, 'main');
  return spec;
}

/** The .yaml or .yml file beside `abs` whose name is closest to its name, if one is close enough. */
function nearbySpecFile(source: FileSource, abs: string): string | undefined {
  let names: string[];
  try {
    names = source.list(path.dirname(abs)).filter((n) => /\.ya?ml$/i.test(n));
  } catch {
    return undefined;
  }
  const name = path.basename(abs);
  const found = closest(name, names);
  if (found !== undefined || /\.ya?ml$/i.test(name)) return found;
  // A name without its extension (toolspec validate toolspc): compared with the files' names without theirs.
  const stems = new Map(names.map((n) => [n.replace(/\.ya?ml$/i, ''), n]));
  const stem = closest(name, stems.keys());
  return stem === undefined ? undefined : stems.get(stem);
}

/** `written` (a path as the user wrote it) with its last segment replaced by `name`. */
function besideOf(written: string, name: string): string {
  const slash = Math.max(written.lastIndexOf('/'), written.lastIndexOf('\\'));
  return written.slice(0, slash + 1) + name;
}

function mib(bytes: number): string {
  const m = bytes / 1024 / 1024;
  return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
}

function exists(source: FileSource, abs: string): boolean {
  try {
    source.stat(abs);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fields of `v` among `keys` that are given, deep-copied, in the order of `keys`: the optional fields of a
 * definition, whose types the structure check has seen (a model is made only when it found nothing).
 */
export function fieldsOf(v: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => v[k] !== undefined).map((k) => [k, structuredClone(v[k])]));
}
