/**
 * `toolspec check`: regenerate in memory, compare with the disk, then read the handlers. Writes nothing; returns
 * every finding, sorted: generated files, then handlers, each by file and position.
 */
import { generate } from '../emit/generate.js';
import type { ServerModel } from '../model.js';
import { checkContracts } from './contracts.js';
import { checkCoverage } from './coverage.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';

export async function checkProject(model: ServerModel, cwd: string): Promise<Finding[]> {
  const files = await generate(model);
  const generated = checkGenerated(model, files, cwd);
  const coverage = checkCoverage(model, cwd);
  const contracts = await checkContracts(model, files, coverage.handlers, cwd);
  const byPlace = (a: Finding, b: Finding) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column);
  return [...generated.sort(byPlace), ...[...coverage.findings, ...contracts].sort(byPlace)];
}
