/**
 * `toolspec check`: regenerate in memory and compare with the disk, then read the handlers. Writes nothing to the
 * project; returns every finding, sorted: generated files, then handlers, each by file and position.
 *
 * When the local cache proves the generated files are exactly what generate would write now (state.ts), the
 * regeneration is skipped: the inputs and the generator are unchanged, so the output would be too.
 */
import { generate, type OutputFile } from '../emit/generate.js';
import type { ServerModel } from '../model.js';
import type { LoadResult } from '../spec.js';
import { saveState, stateFor, type GenerateState } from '../state.js';
import { ContractCache } from './cache.js';
import { checkContracts } from './contracts.js';
import { checkCoverage } from './coverage.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { subjectOf, type CheckSubject } from './subject.js';

const byPlace = (a: Finding, b: Finding) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column);

/** The full check, from a loaded spec. Saves the state when the generated files turn out current. */
export async function checkProject(model: ServerModel, cwd: string, inputs?: LoadResult['inputs'], specPath?: string): Promise<Finding[]> {
  const files = await generate(model);
  const generated = checkGenerated(model, files, cwd);
  const subject = subjectOf(model);
  if (!generated.length && inputs && specPath) {
    saveState(specPath, stateFor(specPath, { ...subject, inputs, files, tools: subject.tools }));
  }
  return [...generated.sort(byPlace), ...(await checkHandlers(subject, cwd, files, specPath))];
}

/** The check when the state holds: no spec to load, no generating; the generated files on disk are current. */
export async function checkFromState(state: GenerateState, cwd: string, specPath: string): Promise<Finding[]> {
  return checkHandlers(state, cwd, undefined, specPath);
}

async function checkHandlers(subject: CheckSubject, cwd: string, files?: readonly OutputFile[], specPath?: string): Promise<Finding[]> {
  const coverage = checkCoverage(subject, cwd);
  // Handlers known to fit in exactly this state (same handler code, contract, config and packages) are not read again.
  const cache = specPath ? new ContractCache(specPath, subject, files) : undefined;
  const pending = cache ? cache.pending(coverage.handlers) : coverage.handlers;
  const contracts = await checkContracts({ subject, ...(files ? { files } : {}) }, pending, cwd);
  if (cache) {
    const failed = new Set(contracts.map((f) => f.tool));
    cache.save(coverage.handlers, pending.filter((h) => !failed.has(h.tool)));
  }
  return [...coverage.findings, ...contracts].sort(byPlace);
}
