/**
 * The check of prompt and resource handler modules (src/handlers/prompts/, src/handlers/resources/): each prompt
 * and resource has its module, each module there belongs to one, and each module fits its contract
 * (`PromptModule<'name'>`, `ResourceModule<'name'>`: its `handler`, and its `complete` where the spec says
 * `complete: handler`), read with the type checker against the contract as the spec says it is now.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import type { OutputFile } from '../pipeline/emit/generate.js';
import { displayPath } from '../core/paths.js';
import { compilerHost, compilerOptions, CONTRACT_MODULES, libraries, ownModules } from './contracts.js';
import type { Finding } from './findings.js';
import type { PrimitiveHandler } from './subject.js';

export interface PrimitiveSubject {
  rootDir: string;
  generatedDir: string;
  handlersDir: string;
  primitives?: PrimitiveHandler[];
}

const FOLDERS = { prompt: 'prompts', resource: 'resources' } as const;
const CHECK_FILE = '__toolspec_check_primitives__.ts';

export async function checkPrimitiveHandlers(
  subject: PrimitiveSubject,
  cwd: string,
  files?: readonly OutputFile[],
): Promise<Finding[]> {
  const items = subject.primitives ?? [];
  const findings: Finding[] = [];
  const present: PrimitiveHandler[] = [];
  for (const item of items) {
    if (fs.existsSync(item.handler)) present.push(item);
    else
      findings.push({
        kind: 'missing-handler',
        file: displayPath(item.handler, cwd),
        line: 1,
        column: 1,
        message: `${item.kind} "${item.name}" has no handler module; generate creates a stub`,
        fix: 'generate',
      });
  }
  for (const kind of ['prompt', 'resource'] as const) {
    const dir = path.join(subject.handlersDir, FOLDERS[kind]);
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
    } catch {
      continue;
    }
    const owned = new Set(items.filter((i) => i.kind === kind).map((i) => path.basename(i.handler)));
    for (const n of names.sort()) {
      if (owned.has(n)) continue;
      findings.push({
        kind: 'orphan-handler',
        file: displayPath(path.join(dir, n), cwd),
        line: 1,
        column: 1,
        message: `handler of "${n.replace(/\.ts$/, '')}", a ${kind} the spec does not have; if it was renamed, move its code to the new name's module; if it is gone for good, the file is yours to remove (toolspec never deletes a handler)`,
        fix: 'handler',
      });
    }
  }
  if (present.length) findings.push(...(await checkModules(subject, present, cwd, files)));
  return findings;
}

async function checkModules(
  subject: PrimitiveSubject,
  items: readonly PrimitiveHandler[],
  cwd: string,
  files?: readonly OutputFile[],
): Promise<Finding[]> {
  const { ts } = await import('@ts-morph/common');
  const memory = new Map<string, string>();
  for (const f of files ?? []) {
    if (f.kind === 'generated' && CONTRACT_MODULES.includes(path.posix.basename(f.path)))
      memory.set(path.resolve(subject.rootDir, f.path), f.contents);
  }
  // One assignment per module: `export const c3: PromptModule<'name'> = m3;`, two lines each.
  const lines = items.map((item, i) => {
    let spec = path.relative(subject.generatedDir, item.handler).split(path.sep).join('/').replace(/\.ts$/, '.js');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    const type = item.kind === 'prompt' ? 'PromptModule' : 'ResourceModule';
    return `import * as m${i} from ${JSON.stringify(spec)};\nexport const c${i}: ${type}<${JSON.stringify(item.name)}> = m${i};`;
  });
  const types = [
    ...(items.some((i) => i.kind === 'prompt') ? ['PromptModule'] : []),
    ...(items.some((i) => i.kind === 'resource') ? ['ResourceModule'] : []),
  ];
  const checkPath = path.join(subject.generatedDir, CHECK_FILE);
  memory.set(checkPath, `import type { ${types.join(', ')} } from './contract.js';\n${lines.join('\n')}\n`);
  const options = compilerOptions(ts, subject.rootDir);
  const program = ts.createProgram({
    rootNames: [checkPath, ...items.map((i) => i.handler)],
    options,
    host: compilerHost(ts, options, memory, await libraries()),
  });
  const checkSf = program.getSourceFile(checkPath)!;
  const flatten = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const findings: Finding[] = [];
  const seen = new Set<number>();
  for (const d of program.getSemanticDiagnostics(checkSf)) {
    if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined) continue;
    const i = Math.floor((checkSf.getLineAndCharacterOfPosition(d.start).line - 1) / 2);
    const item = items[i];
    if (!item || seen.has(i)) continue;
    seen.add(i);
    const sf = program.getSourceFile(item.handler);
    const where = sf ? exportPosition(ts, sf, 'handler') : { line: 1, column: 1 };
    findings.push({
      kind: 'handler-contract',
      file: displayPath(item.handler, cwd),
      ...where,
      message: `the module of ${item.kind} "${item.name}" does not fit its contract: ${lastLines(flatten(d))}`,
      fix: 'handler',
      expected: `${item.kind === 'prompt' ? 'PromptModule' : 'ResourceModule'}<'${item.name}'>: export const handler: ${
        item.kind === 'prompt' ? 'PromptHandler' : 'ResourceHandler'
      }<'${item.name}'> (and complete, where the spec says complete: handler)`,
    });
  }
  // The project's modules these import: what the contract breaks there (check/handlers.ts drops a finding the
  // tools' handlers share).
  const lib = (await libraries()).files;
  const own = ownModules(program, { generatedDir: subject.generatedDir, tools: items }, lib);
  for (const item of [...items, ...own.map((sf) => ({ handler: sf.fileName }))]) {
    const sf = program.getSourceFile(item.handler);
    if (!sf) continue;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      if (d.category !== ts.DiagnosticCategory.Error || d.file !== sf) continue;
      const p = sf.getLineAndCharacterOfPosition(d.start ?? 0);
      findings.push({
        kind: 'handler-contract',
        file: displayPath(item.handler, cwd),
        line: p.line + 1,
        column: p.character + 1,
        message: flatten(d).split('\n')[0]!,
        fix: 'handler',
      });
    }
  }
  return findings;
}

/** The most specific lines of a compiler message chain (the last two), joined; module paths left out. */
function lastLines(text: string): string {
  return text
    .replace(/typeof import\("[^"]*"(?:, \{[^\n]*?\} \})?\)/g, 'the module')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-2)
    .join(' ');
}

function exportPosition(api: typeof ts, sf: ts.SourceFile, name: string): { line: number; column: number } {
  for (const statement of sf.statements) {
    if (!api.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (api.isIdentifier(d.name) && d.name.text === name) {
        const p = sf.getLineAndCharacterOfPosition(d.name.getStart(sf));
        return { line: p.line + 1, column: p.character + 1 };
      }
    }
  }
  return { line: 1, column: 1 };
}
