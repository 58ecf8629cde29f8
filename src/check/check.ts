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
import { checkPrimitiveHandlers } from './primitives.js';
import { subjectOf } from './subject.js';

const byPlace = (a: Finding, b: Finding) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;

export async function checkProject(model: ServerModel, files: readonly OutputFile[], cwd: string): Promise<Finding[]> {
  const generated = checkGenerated(model, files, cwd);
  const subject = subjectOf(model);
  const coverage = checkCoverage(subject, cwd);
  const contracts = await checkContracts(subject, coverage.handlers, cwd, files);
  const primitives = await checkPrimitiveHandlers(subject, cwd, files);
  // A module shared by tools' and prompts' or resources' handlers is read by both checks: one finding each.
  const seen = new Set<string>();
  const handlers = [...coverage.findings, ...contracts, ...primitives].filter((f) => {
    const key = [f.kind, f.tool, f.file, f.line, f.column, f.message, f.expected, f.actual].join('\0');
    return !seen.has(key) && seen.add(key);
  });
  return [...generated.sort(byPlace), ...handlers.sort(byPlace)];
}
