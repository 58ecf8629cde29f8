/**
 * The handler half of the check (coverage and contracts), on its own so that the cached path of `toolspec check`
 * loads neither the spec nor the generator.
 */
import path from 'node:path';
import type { OutputFile } from '../emit/generate.js';
import { ContractCache } from './cache.js';
import { checkContracts } from './contracts.js';
import { checkCoverage } from './coverage.js';
import { checkPrimitiveHandlers } from './primitives.js';
import type { Finding } from './findings.js';
import type { CheckSubject } from './subject.js';

export const byPlace = (a: Finding, b: Finding) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;

export async function checkHandlers(
  subject: CheckSubject,
  cwd: string,
  files?: readonly OutputFile[],
  specPath?: string,
): Promise<Finding[]> {
  const coverage = checkCoverage(subject, cwd);
  // Handlers known to fit in exactly this state (same handler code, contract, config and packages) are not read again.
  const cache = specPath ? new ContractCache(specPath, subject, files) : undefined;
  const pending = cache ? cache.pending(coverage.handlers) : coverage.handlers;
  const contracts = await checkContracts({ subject, ...(files ? { files } : {}) }, pending, cwd);
  if (cache) {
    // A handler is clean when nothing was found in it nor in a module it imports.
    const failed = new Set(contracts.map((f) => f.tool));
    const broken = new Set(contracts.filter((f) => !f.tool).map((f) => path.resolve(cwd, f.file)));
    cache.save(
      coverage.handlers,
      pending.filter((h) => !failed.has(h.tool) && !cache.reaches(h, broken)),
    );
  }
  const primitives = await checkPrimitiveHandlers(subject, cwd, files);
  // A module shared by tools' and prompts' or resources' handlers is read by both checks: one finding each.
  const seen = new Set<string>();
  const all = [...coverage.findings, ...contracts, ...primitives].filter((f) => {
    const key = [f.kind, f.tool, f.file, f.line, f.column, f.message, f.expected, f.actual].join('\0');
    return !seen.has(key) && seen.add(key);
  });
  return all.sort(byPlace);
}
