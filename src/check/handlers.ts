/** The handler half of the check: coverage (handler modules ↔ tools), contracts, prompt and resource modules. */
import type { OutputFile } from '../pipeline/emit/generate.js';
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
): Promise<Finding[]> {
  const coverage = checkCoverage(subject, cwd);
  const contracts = await checkContracts({ subject, ...(files ? { files } : {}) }, coverage.handlers, cwd);
  const primitives = await checkPrimitiveHandlers(subject, cwd, files);
  // A module shared by tools' and prompts' or resources' handlers is read by both checks: one finding each.
  const seen = new Set<string>();
  const all = [...coverage.findings, ...contracts, ...primitives].filter((f) => {
    const key = [f.kind, f.tool, f.file, f.line, f.column, f.message, f.expected, f.actual].join('\0');
    return !seen.has(key) && seen.add(key);
  });
  return all.sort(byPlace);
}
