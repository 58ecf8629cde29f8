/**
 * The project's TypeScript made runnable without its build step, for `toolspec call`: every module reachable from
 * the entry files by relative imports is transpiled (TypeScript's transpileModule: types stripped, nothing checked)
 * into a mirror of its absolute path inside the project's cache folder (node_modules/.cache/toolspec/run/), so that
 * relative imports between the copies hold and bare imports (`@modelcontextprotocol/server`, the user's own
 * dependencies) resolve from the project's node_modules as they do for the built server. A module whose source and
 * transpiler have not changed is not transpiled again: each output starts with the hash of what it came from and
 * of the rest of the copy, so a copy edited since is made again; copies are written by rename, and never through a
 * folder that is a link out of the cache folder (which cache/store.ts makes the user's alone).
 *
 * The copies are ES modules (the cache folder has its own `package.json` saying so); `import.meta.url`, `dirname`
 * and `filename` are replaced by the source file's, so a handler that reads a file beside itself finds it; stack
 * traces point at the TypeScript source (inline source maps, once the caller enables them).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ts as TS } from 'ts-morph';
import { UserError } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { cacheFolder, readText, sha256 } from './store.js';

export interface Mirror {
  /** The runnable copy of a source module (absolute path in, absolute path out). */
  outputOf(source: string): string;
  /** Relative imports that point at no file: [the importing module, the specifier]. */
  missing: [string, string][];
  /** Syntax errors: the module, "line:col" when known, the message. */
  errors: [string, string | undefined, string][];
}

export interface MirrorInput {
  /** Absolute paths of the modules to start from. */
  entries: readonly string[];
  /** Module texts to use instead of the disk's (generated files built in memory), by absolute path. */
  overrides: ReadonlyMap<string, string>;
  /** The cache folder (cacheDir(rootDir)). */
  cacheDir: string;
  /** Imports not to follow, e.g. the handlers of the tools not called. */
  skip?: (from: string, to: string) => boolean;
}

const TS_EXT = /\.(ts|mts|cts|tsx)$/;
const JS_EXT = /\.(js|mjs|cjs)$/;

/** Transpiles (or finds up to date) every module reachable from the entries. */
export async function mirrorModules(input: MirrorInput): Promise<Mirror> {
  // TypeScript is loaded only when a module has to be read or transpiled: a call whose modules are all up to date
  // reads their imports from the copies' first lines and starts much sooner.
  let api: typeof TS | undefined;
  const typescript = async () => (api ??= (await import('ts-morph')).ts);
  const root = path.join(input.cacheDir, 'run');
  const outputOf = (source: string) => {
    const rel = path
      .resolve(source)
      .replace(/^([A-Za-z]):/, '$1')
      .replace(/^[\\/]+/, '');
    return path
      .join(root, 'fs', rel)
      .replace(TS_EXT, (_, ext: string) => `.${ext === 'tsx' ? 'js' : ext.replace('t', 'j')}`);
  };
  fs.mkdirSync(root, { recursive: true });
  writeIfChanged(root, path.join(root, 'package.json'), '{ "type": "module", "private": true }\n');

  const mirror: Mirror = { outputOf, missing: [], errors: [] };
  const seen = new Set<string>();
  const queue = [...input.entries];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = input.overrides.get(file) ?? readText(file);
    if (text === undefined) continue;
    let imports: string[] | undefined = [];
    if (TS_EXT.test(file)) imports = await transpiled(root, file, text, outputOf(file), typescript, mirror);
    else {
      if (JS_EXT.test(file)) imports = relativeImports(await typescript(), text);
      writeIfChanged(root, outputOf(file), text);
    }
    for (const spec of imports ?? []) {
      const target = resolveImport(file, spec, input.overrides);
      // A module left out on purpose (another tool's handler, loaded only when called) may be missing too: a tool
      // new in the spec, with no stub yet, blocks nothing but itself.
      if (input.skip?.(file, target ?? path.resolve(path.dirname(file), spec))) continue;
      if (!target) mirror.missing.push([file, spec]);
      else queue.push(target);
    }
  }
  return mirror;
}

/**
 * The copy's first line: the hash of what it came from, the hash of the rest of the copy (a copy edited since is
 * made again, never run), and the module's relative imports (so no re-reading).
 */
const HEAD = /^\/\/ toolspec-run ([0-9a-f]{64}) ([0-9a-f]{64}) (\[.*\])\n/;

/**
 * A TypeScript module's runnable copy, made unless it is up to date: its relative imports, or undefined when it
 * does not parse (the errors are added to the mirror).
 */
async function transpiled(
  root: string,
  file: string,
  text: string,
  out: string,
  typescript: () => Promise<typeof TS>,
  mirror: Mirror,
): Promise<string[] | undefined> {
  const hash = sha256(`${FINGERPRINT}\n${file}\n${text}`);
  const copy = readText(out) ?? '';
  const head = HEAD.exec(copy);
  if (head && head[1] === hash && sha256(copy.slice(head[0].length)) === head[2]) {
    const kept = importList(head[3]!);
    if (kept) return kept;
  }
  const ts = await typescript();
  const result = ts.transpileModule(text, {
    fileName: file,
    compilerOptions: compilerOptions(ts),
    reportDiagnostics: true,
    transformers: { before: [importMetaOf(ts, file)] },
  });
  const errors = (result.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  for (const d of errors) {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const place = at && `${at.line + 1}:${at.character + 1}`;
    mirror.errors.push([file, place, ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
  }
  if (errors.length) return undefined;
  const imports = relativeImports(ts, text);
  const body = withSourceMap(result.outputText, result.sourceMapText, file);
  writeIfChanged(root, out, `// toolspec-run ${hash} ${sha256(body)} ${JSON.stringify(imports)}\n${body}`);
  return imports;
}

/** A copy's import list as its first line gives it, or undefined when it is not a JSON list of strings (edited). */
function importList(json: string): string[] | undefined {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) && list.every((s) => typeof s === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}

function relativeImports(ts: typeof TS, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((f) => f.startsWith('./') || f.startsWith('../'));
}

const tsMorph = createRequire(import.meta.url)('ts-morph/package.json') as { version: string };
/** What the copies depend on besides their source: the transpiler's version and options (below). */
const FINGERPRINT = `ts-morph ${tsMorph.version}; ESNext, ES2022, source maps, no verbatimModuleSyntax; 4`;

function compilerOptions(ts: typeof TS): TS.CompilerOptions {
  return {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    sourceMap: true,
    // Type-only imports written without `import type` are dropped, as a type-checked build would drop them.
    verbatimModuleSyntax: false,
    esModuleInterop: true,
    jsx: ts.JsxEmit.ReactJSX,
  };
}

/** The file a relative specifier means: `./x.js` is x.ts when there is one (the NodeNext convention), else x.js. */
function resolveImport(from: string, spec: string, overrides: ReadonlyMap<string, string>): string | undefined {
  const base = path.resolve(path.dirname(from), spec.split(/[?#]/, 1)[0]!);
  // .js, .mjs, .cjs: the same name with `ts` for `js` (x.mts for x.mjs), and for .js also .tsx.
  const stem = /\.[mc]?js$/.test(base) ? base.slice(0, -'js'.length) : undefined;
  const candidates = stem
    ? [`${stem}ts`, ...(base.endsWith('.js') ? [`${stem}tsx`] : []), base]
    : [base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => overrides.has(c) || isFile(c));
}

/** `import.meta.url` (and `dirname`, `filename`) of the source file, not of its copy. */
function importMetaOf(ts: typeof TS, file: string): TS.TransformerFactory<TS.SourceFile> {
  const values: Record<string, string> = {
    url: pathToFileURL(file).href,
    dirname: path.dirname(file),
    filename: file,
  };
  return (context) => (sourceFile) => {
    const visit = (node: TS.Node): TS.Node => {
      if (
        ts.isPropertyAccessExpression(node) &&
        ts.isMetaProperty(node.expression) &&
        node.expression.keywordToken === ts.SyntaxKind.ImportKeyword &&
        Object.hasOwn(values, node.name.text)
      ) {
        return ts.factory.createStringLiteral(values[node.name.text]!);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitNode(sourceFile, visit) as TS.SourceFile;
  };
}

/** The output with its source map inline, pointing at the source file itself (the hash line above it counted). */
function withSourceMap(code: string, map: string | undefined, file: string): string {
  const body = code.replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
  if (!map) return body;
  const parsed = JSON.parse(map) as { sources: string[]; sourceRoot?: string; mappings: string };
  // The first line of the output is the hash comment: one generated line without mappings.
  parsed.mappings = `;${parsed.mappings}`;
  parsed.sources = [pathToFileURL(file).href];
  delete parsed.sourceRoot;
  const data = Buffer.from(JSON.stringify(parsed)).toString('base64');
  return `${body.trimEnd()}\n//# sourceMappingURL=data:application/json;base64,${data}\n`;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Writes a copy under `root` (run/) unless it holds that text already; by rename: no call reads half a module. */
function writeIfChanged(root: string, file: string, text: string): void {
  if (readText(file) === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The rename replaces a link at the file itself; a folder on the way that is a link would lead the copy elsewhere.
  const inside = path.relative(fs.realpathSync(root), fs.realpathSync(path.dirname(file)));
  if (inside.startsWith('..') || path.isAbsolute(inside))
    throw new UserError(`${path.dirname(file)} leads out of toolspec's cache folder (a link): remove ${root}`);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/**
 * What keeps the transpiled project from loading (a module that does not parse, an import of nothing), as the
 * message `toolspec call` ends with; undefined when nothing does.
 */
export function whyUnloadable(mirror: Mirror, cwd: string): string | undefined {
  if (!mirror.errors.length && !mirror.missing.length) return undefined;
  const lines = [
    ...mirror.errors.map(([file, at, message]) => `${at ? `${displayPath(file, cwd)}:${at}` : file} ${message}`),
    ...mirror.missing.map(([from, spec]) => `${displayPath(from, cwd)} imports ${spec}, which does not exist`),
  ];
  return `${lines.join('\n')}\ntoolspec call: the project's code cannot be loaded; nothing was called\n`;
}

/**
 * The cache folder the project's modules are transpiled into, when it is safe to use and inside the project's
 * node_modules, where the SDK is installed: bare imports of the copies resolve from there.
 */
export function runFolder(rootDir: string): string | undefined {
  const cache = cacheFolder(rootDir);
  const modules = cache && path.dirname(path.dirname(cache));
  const installed =
    modules &&
    path.basename(modules) === 'node_modules' &&
    fs.existsSync(path.join(modules, '@modelcontextprotocol', 'server', 'package.json'));
  return installed ? cache : undefined;
}

export const notInstalled = (rootDir: string, cwd: string): string =>
  `the project's dependencies are not installed (no @modelcontextprotocol/server in its node_modules): run npm install in ${displayPath(rootDir, cwd) || '.'}`;
