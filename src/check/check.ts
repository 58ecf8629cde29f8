/**
 * `toolspec check`: regenerate in memory and compare with the disk, then read the handlers against the contract in
 * memory. Writes nothing; returns every finding, sorted: generated files, then handlers, each by file and position.
 * Nothing is taken from a cache: what it compares with is computed from the spec, every time.
 */
import { generate } from '../emit/generate.js';
import type { CompiledValidators, ServerModel } from '../model.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { byPlace, checkHandlers } from './handlers.js';
import { subjectOf } from './subject.js';

export async function checkProject(
  model: ServerModel,
  validators: CompiledValidators,
  cwd: string,
): Promise<Finding[]> {
  const files = await generate(model, validators);
  const generated = checkGenerated(model, files, cwd);
  const handlers = await checkHandlers(subjectOf(model), cwd, files);
  return [...generated.sort(byPlace), ...handlers];
}
