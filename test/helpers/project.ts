import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './cli.js';

/** Compiler options of a strict user project: the generated code must compile under all of them. */
export const STRICT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
};

/** A scratch copy of a fixture inside the repository (so the repository's node_modules resolve), removed by cleanup. */
export function scratchCopy(fixture: string, name: string): { dir: string; cleanup: () => void } {
  const base = path.join(repoRoot, 'test', '.tmp');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, `${name}-`));
  fs.cpSync(fixture, dir, { recursive: true });
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The runtime's transports and entry points, which only server.ts reaches and which are byte-for-byte the runtime
 * template in every project (templates.test.ts and the golden compile check them): left out by `specFiles`.
 */
export const ENTRY_POINTS: ReadonlySet<string> = new Set(['stdio.ts', 'web.ts', 'http.ts', 'main.ts', 'index.ts']);

/** A project's .ts files but the runtime's entry points: what depends on its spec, for a compile that checks that. */
export function specFiles(dir: string): string[] {
  return tsFiles(dir).filter((f) => !ENTRY_POINTS.has(path.basename(f)));
}

/** Every .ts file below `dir`, sorted. */
export function tsFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/**
 * The declaration files every program of a test run reads (the compiler's lib, the SDK's and Node's types), parsed
 * once per worker and shared, as a language service's document registry shares them: by path and exact text.
 */
const declarations = new Map<string, { text: string; file: ts.SourceFile }>();

function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, fresh) => {
    if (!fileName.endsWith('.d.ts') || !fileName.includes('node_modules'))
      return getSourceFile(fileName, version, onError, fresh);
    const text = host.readFile(fileName);
    if (text === undefined) return getSourceFile(fileName, version, onError, fresh);
    const key = `${fileName}\0${typeof version === 'object' ? version.languageVersion : version}`;
    const hit = declarations.get(key);
    if (hit?.text === text) return hit.file;
    const file = ts.createSourceFile(fileName, text, version);
    declarations.set(key, { text, file });
    return file;
  };
  return host;
}

/** Type-checks `files` in one program; with outDir, also emits JavaScript. Returns the diagnostics as text. */
export function compile(files: string[], extra: ts.CompilerOptions = {}): string[] {
  const options = { ...STRICT_OPTIONS, ...(extra.outDir ? {} : { noEmit: true }), ...extra };
  const program = ts.createProgram(files, options, sharingHost(options));
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return msg;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(repoRoot, d.file.fileName)}:${line + 1}:${character + 1} ${msg}`;
  });
}
