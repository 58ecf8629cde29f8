/**
 * `toolspec check`: the files the spec generates (in memory, never from a cache) compared with the disk, then the
 * handlers read against the contract in memory. Writes nothing; returns every finding, sorted: generated files,
 * then handlers, each by file and position.
 */
import type { OutputFile } from '../pipeline/emit/generate.js';
import type { ServerModel } from '../pipeline/model.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { byPlace, checkHandlers } from './handlers.js';
import { subjectOf } from './subject.js';

export async function checkProject(model: ServerModel, files: readonly OutputFile[], cwd: string): Promise<Finding[]> {
  const generated = checkGenerated(model, files, cwd);
  const handlers = await checkHandlers(subjectOf(model), cwd, files);
  return [...generated.sort(byPlace), ...handlers];
}
