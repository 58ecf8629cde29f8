/** Coverage: every tool has a handler module, and every handler module belongs to a tool. Text only: no type checker. */
import fs from 'node:fs';
import path from 'node:path';
import { displayPath } from '../paths.js';
import type { CheckSubject } from './subject.js';
import { closest } from '../suggest.js';
import type { Finding } from './findings.js';

/** A module that exports `handler` is a handler module; other modules in the folder are shared code. */
const EXPORTS_HANDLER =
  /\bexport\s+(?:declare\s+)?(?:const|let|var|(?:async\s+)?function\*?)\s+handler\b|\bexport\s*\{[^}]*\bhandler\b[^}]*\}/;

export interface HandlerModule {
  tool: string;
  abs: string;
}

export function checkCoverage(subject: CheckSubject, cwd: string): { findings: Finding[]; handlers: HandlerModule[] } {
  const dir = subject.handlersDir;
  let names: string[] = [];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts') && !/\.(test|spec)\.ts$/.test(n));
  } catch {
    // no handlers folder: every tool is missing its handler
  }
  const present = new Set(names);
  const findings: Finding[] = [];
  const handlers: HandlerModule[] = [];
  const missing: string[] = [];
  for (const tool of subject.tools) {
    if (present.has(path.basename(tool.handler))) {
      handlers.push({ tool: tool.name, abs: tool.handler });
      continue;
    }
    missing.push(tool.name);
  }
  const ownedBy = new Set(subject.tools.map((t) => path.basename(t.handler)));
  const orphans = names.filter(
    (n) => !ownedBy.has(n) && EXPORTS_HANDLER.test(fs.readFileSync(path.join(dir, n), 'utf8')),
  );
  const renamedTo = new Map<string, string>();
  for (const n of orphans.sort()) {
    const base = n.replace(/\.ts$/, '');
    // One orphan and one tool without a handler: most likely a rename, however different the names.
    const guess =
      closest(base, missing) ??
      (orphans.length === 1 && missing.length === 1
        ? missing[0]
        : closest(
            base,
            subject.tools.map((t) => t.name),
          ));
    if (guess && missing.includes(guess)) renamedTo.set(guess, base);
    findings.push({
      kind: 'orphan-handler',
      file: displayPath(path.join(dir, n), cwd),
      line: 1,
      column: 1,
      message:
        `handler for a tool the spec does not have: "${base}"` +
        (guess
          ? `; did you mean "${guess}"? If the tool was renamed, rename this file to ${guess}.ts and its Handler<'${base}'> to Handler<'${guess}'>`
          : '; delete it, or add the tool back to the spec'),
      fix: 'handler',
    });
  }
  for (const name of missing) {
    const from = renamedTo.get(name);
    const tool = subject.tools.find((t) => t.name === name)!;
    findings.push({
      kind: 'missing-handler',
      tool: name,
      file: displayPath(tool.handler, cwd),
      line: 1,
      column: 1,
      message: `tool "${name}" has no handler module${from ? ` (was it "${from}"? its handler is still ${from}.ts)` : ''}; generate creates a stub`,
      fix: 'generate',
    });
  }
  return { findings, handlers };
}
