/**
 * `toolspec check`: the files the spec generates (in memory, never from a cache) compared with the disk, then the
 * handlers read against the contract in memory: coverage (handler modules ↔ tools), contracts, prompt and resource
 * modules. Writes nothing; returns every finding, sorted: generated files, then handlers, each by file and position.
 */
import type { OutputFile } from '../pipeline/emit/generate.js';
import type { ServerModel } from '../pipeline/model.js';
import { checkContracts } from './contracts.js';
import { checkCoverage } from './coverage.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { subjectOf } from './subject.js';

const byPlace = (a: Finding, b: Finding) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;

export async function checkProject(model: ServerModel, files: readonly OutputFile[], cwd: string): Promise<Finding[]> {
  const generated = checkGenerated(model, files, cwd);
  const subject = subjectOf(model);
  const coverage = checkCoverage(subject, cwd);
  const handlers = [...coverage.findings, ...(await checkContracts(subject, coverage, cwd, files))];
  return [...generated.sort(byPlace), ...handlers.sort(byPlace)];
}
