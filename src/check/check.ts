/**
 * `toolspec check`: regenerate in memory and compare with the disk, then read the handlers. Writes nothing to the
 * project; returns every finding, sorted: generated files, then handlers, each by file and position.
 *
 * When the local cache proves the generated files are exactly what generate would write now (state.ts), the
 * regeneration is skipped: the inputs and the generator are unchanged, so the output would be too.
 */
import { generate } from '../emit/generate.js';
import type { CompiledValidators, ServerModel } from '../model.js';
import type { LoadResult } from '../spec.js';
import { saveState, stateFor } from '../state.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { byPlace, checkHandlers } from './handlers.js';
import { subjectOf } from './subject.js';

/** The full check, from a loaded spec. Saves the state when the generated files turn out current. */
export async function checkProject(
  model: ServerModel,
  validators: CompiledValidators,
  cwd: string,
  inputs?: LoadResult['inputs'],
  specPath?: string,
): Promise<Finding[]> {
  const files = await generate(model, validators);
  const generated = checkGenerated(model, files, cwd);
  const subject = subjectOf(model);
  if (!generated.length && inputs && specPath) {
    saveState(specPath, stateFor({ ...subject, inputs, files, tools: subject.tools }));
  }
  return [...generated.sort(byPlace), ...(await checkHandlers(subject, cwd, files, specPath))];
}
