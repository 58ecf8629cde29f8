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
import { namesIn } from '../write/write.js';
import { checkProgram, lineAndColumn, moduleFindings } from './contracts.js';
import { fileFinding, type Finding } from './findings.js';
import type { CheckSubject, PrimitiveHandler } from './subject.js';

const FOLDERS = { prompt: 'prompts', resource: 'resources' } as const;

export async function checkPrimitiveHandlers(
  subject: CheckSubject,
  cwd: string,
  files: readonly OutputFile[],
): Promise<Finding[]> {
  const items = subject.primitives;
  const findings: Finding[] = [];
  const add = (...f: Parameters<typeof fileFinding>) => findings.push(fileFinding(...f));
  const present: PrimitiveHandler[] = [];
  for (const item of items) {
    if (fs.existsSync(item.handler)) present.push(item);
    else
      add(
        'missing-handler',
        'generate',
        displayPath(item.handler, cwd),
        `${item.kind} "${item.name}" has no handler module; generate creates a stub`,
      );
  }
  for (const kind of ['prompt', 'resource'] as const) {
    const dir = path.join(subject.handlersDir, FOLDERS[kind]);
    const names = namesIn(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
    const owned = new Set(items.filter((i) => i.kind === kind).map((i) => path.basename(i.handler)));
    for (const n of names.sort()) {
      if (owned.has(n)) continue;
      const message = `handler of "${n.replace(/\.ts$/, '')}", a ${kind} the spec does not have; if it was renamed, move its code to the new name's module; if it is gone for good, the file is yours to remove (toolspec never deletes a handler)`;
      add('orphan-handler', 'handler', displayPath(path.join(dir, n), cwd), message);
    }
  }
  if (!present.length) return findings;
  // The modules that are there, read against their contracts.
  const typeOf = (item: PrimitiveHandler) => (item.kind === 'prompt' ? 'PromptModule' : 'ResourceModule');
  // One assignment per module: `export const c3: PromptModule<'name'> = m3;`.
  const { ts, program, checkSf } = await checkProgram(subject, files, {
    name: '__toolspec_check_primitives__.ts',
    head: `import type { ${[...new Set(present.map(typeOf))].join(', ')} } from './contract.js';`,
    modules: present.map((i) => i.handler),
    lines: (spec, i) =>
      `import * as m${i} from ${JSON.stringify(spec)};\nexport const c${i}: ${typeOf(present[i]!)}<${JSON.stringify(present[i]!.name)}> = m${i};`,
  });
  const seen = new Set<number>();
  for (const d of program.getSemanticDiagnostics(checkSf)) {
    if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined) continue;
    const i = Math.floor((checkSf.getLineAndCharacterOfPosition(d.start).line - 1) / 2);
    const item = present[i];
    if (!item || seen.has(i)) continue;
    seen.add(i);
    const sf = program.getSourceFile(item.handler);
    findings.push({
      kind: 'handler-contract',
      file: displayPath(item.handler, cwd),
      ...(sf ? handlerPosition(ts, sf) : { line: 1, column: 1 }),
      message: `the module of ${item.kind} "${item.name}" does not fit its contract: ${lastLines(ts.flattenDiagnosticMessageText(d.messageText, '\n'))}`,
      fix: 'handler',
      expected: `${typeOf(item)}<'${item.name}'>: export const handler: ${
        item.kind === 'prompt' ? 'PromptHandler' : 'ResourceHandler'
      }<'${item.name}'> (and complete, where the spec says complete: handler)`,
    });
  }
  // The modules and the project's modules they import: what the contract breaks there (check/check.ts drops a
  // finding the tools' handlers share, and sorts them all by place).
  return [...findings, ...moduleFindings(ts, program, subject.generatedDir, cwd)];
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

/** Where the module declares its `handler` (else its first line). */
function handlerPosition(api: typeof ts, sf: ts.SourceFile): { line: number; column: number } {
  const d = sf.statements
    .filter(api.isVariableStatement)
    .flatMap((s) => [...s.declarationList.declarations])
    .find((d) => api.isIdentifier(d.name) && d.name.text === 'handler');
  return d ? lineAndColumn(sf, d.name.getStart(sf)) : { line: 1, column: 1 };
}
