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

/** Every .ts file below `dir`, sorted. */
export function tsFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Type-checks `files` in one program; with outDir, also emits JavaScript. Returns the diagnostics as text. */
export function compile(files: string[], extra: ts.CompilerOptions = {}): string[] {
  const options = { ...STRICT_OPTIONS, ...(extra.outDir ? {} : { noEmit: true }), ...extra };
  const program = ts.createProgram(files, options);
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return msg;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(repoRoot, d.file.fileName)}:${line + 1}:${character + 1} ${msg}`;
  });
}
