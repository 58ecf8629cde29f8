/**
 * The type check and build of `toolspec dev`: the project's tsconfig.json, compiled in this process by an
 * incremental builder program (TypeScript's own, as `tsc --watch` uses), kept from one cycle to the next. Parsed
 * files are kept while their text (the project's files) or their size and time (libraries, node_modules) stay the
 * same, and the builder re-checks only what an edit can affect. Nothing is emitted while there are errors (the
 * server that runs keeps the last good build, and no half-good file lands beside it); the files an error held back
 * are emitted with the next good cycle. The project's own TypeScript is used when it has one (so the errors are
 * the ones its `tsc` prints), otherwise the one toolspec ships with ts-morph. This module writes nothing itself: the
 * command hands it the writer.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ts as TS } from 'ts-morph';
import { displayPath, isInside, packageRoot } from '../core/paths.js';
import { sha256 } from '../cache/store.js';

/** A builder for the project in `rootDir` (its tsconfig.json; without one, the options `toolspec init` writes). */
export async function createBuilder(rootDir: string, cwd: string) {
  const ts = await typescriptFor(rootDir);
  const configPath = path.join(rootDir, 'tsconfig.json');
  let host: TS.CompilerHost | undefined;
  let hostOptions = '';
  let old: TS.EmitAndSemanticDiagnosticsBuilderProgram | undefined;
  const cache = new Map<string, { key: string; file: TS.SourceFile }>();
  let read = new Map<string, string>();
  const inProject = (f: string) => isInside(rootDir, f) && !f.split(/[\\/]/).includes('node_modules');

  const format = (d: TS.Diagnostic): string => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    const kind = d.category === ts.DiagnosticCategory.Error ? 'error' : 'warning';
    if (!d.file || d.start === undefined) return `${kind} TS${d.code} ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${displayPath(d.file.fileName, cwd)}:${line + 1}:${character + 1} ${kind} TS${d.code} ${text}`;
  };

  const parse = (): TS.ParsedCommandLine => {
    if (!fs.existsSync(configPath)) {
      // The one tsconfig toolspec writes (templates/init/tsconfig.json), which the tests and the bench use too.
      return ts.parseJsonConfigFileContent(
        JSON.parse(fs.readFileSync(path.join(packageRoot, 'templates/init/tsconfig.json'), 'utf8')),
        ts.sys,
        rootDir,
      );
    }
    const problems: TS.Diagnostic[] = [];
    const parsed = ts.getParsedCommandLineOfConfigFile(
      configPath,
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => problems.push(d) },
    );
    return parsed ?? { options: {}, fileNames: [], errors: problems };
  };

  /**
   * A compiler host that hands back the SourceFile it parsed before while the file is the same: for the project's
   * files the same text, for the rest (libraries, node_modules) the same size and modification time.
   */
  const cachingHost = (options: TS.CompilerOptions): TS.CompilerHost => {
    const host = ts.createIncrementalCompilerHost(options, ts.sys);
    const parseFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      const abs = path.resolve(fileName);
      const how =
        typeof languageVersion === 'object'
          ? `${languageVersion.languageVersion}:${languageVersion.impliedNodeFormat}`
          : String(languageVersion);
      let key: string;
      if (inProject(abs)) {
        const text = ts.sys.readFile(abs);
        if (text === undefined) return undefined;
        const hash = sha256(text);
        read.set(abs, hash);
        key = `${how}:${hash}`;
      } else {
        let st: fs.Stats | undefined;
        try {
          st = fs.statSync(abs);
        } catch {
          return undefined;
        }
        key = `${how}:${st.size}:${st.mtimeMs}`;
      }
      const hit = cache.get(fileName);
      if (hit && hit.key === key) return hit.file;
      const file = parseFile(fileName, languageVersion, onError, shouldCreate);
      if (file) cache.set(fileName, { key, file });
      else cache.delete(fileName);
      return file;
    };
    return host;
  };

  /**
   * One cycle; `write` writes an emitted file and says whether its bytes changed. What it returns: the errors as
   * "file:line:col error TS1234 message" (paths as shown from cwd; none when the build is good); the files emitted
   * with new bytes (absolute, in a good cycle); the project's files the program read, not libraries (absolute path
   * → sha256 of the text read); the JavaScript file of a source module, if it has one (absolute in, absolute out);
   * and the outDir the config names.
   */
  return (write: (file: string, text: string) => boolean) => {
    const config = parse();
    // dev builds to run: whatever the config says about emitting for editors or CI, it emits here.
    const { tsBuildInfoFile, incremental, composite, ...own } = config.options;
    const options: TS.CompilerOptions = { ...own, noEmit: false, emitDeclarationOnly: false };
    const outputOf = (source: string) =>
      ts
        .getOutputFileNames({ ...config, options }, source, !ts.sys.useCaseSensitiveFileNames)
        .find((f) => /\.[cm]?js$/.test(f));
    const outDir = options.outDir;
    const result = (errors: string[], emitted: string[] = []) => ({ errors, emitted, read, outputOf, outDir });
    if (config.errors.length) return result(config.errors.map(format));
    const key = JSON.stringify(options);
    if (!host || key !== hostOptions) {
      // New options: a new host, and a fresh start.
      host = cachingHost(options);
      hostOptions = key;
      old = undefined;
      cache.clear();
    }
    read = new Map();
    const program = ts.createEmitAndSemanticDiagnosticsBuilderProgram(
      config.fileNames,
      options,
      host,
      old,
      ts.getConfigFileParsingDiagnostics(config),
    );
    old = program;
    const diagnostics = [
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...program.getSemanticDiagnostics(),
    ].filter((d) => d.category === ts.DiagnosticCategory.Error);
    // Files the builder did not ask the host for (unchanged since the last cycle) were read then.
    for (const sf of program.getSourceFiles()) {
      if (inProject(sf.fileName) && !read.has(path.resolve(sf.fileName)))
        read.set(path.resolve(sf.fileName), sha256(sf.text));
    }
    if (diagnostics.length) return result(diagnostics.map(format));
    const emitted: string[] = [];
    const emit = program.emit(undefined, (file, text) => {
      if (write(file, text)) emitted.push(path.resolve(file));
    });
    const errors = emit.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).map(format);
    return result(errors, emitted);
  };
}

/** The project's TypeScript (node_modules/typescript), or the one toolspec ships with ts-morph. */
async function typescriptFor(rootDir: string): Promise<typeof TS> {
  try {
    const own = createRequire(path.join(rootDir, 'package.json'))('typescript') as typeof TS;
    if (typeof own.createEmitAndSemanticDiagnosticsBuilderProgram === 'function') return own;
  } catch {
    // not installed in the project
  }
  return (await import('ts-morph')).ts;
}
