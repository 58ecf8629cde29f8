/**
 * `toolspec check`: regenerate in memory and compare with the disk, then read the handlers. Writes nothing to the
 * project; returns every finding, sorted: generated files, then handlers, each by file and position.
 *
 * When the local cache proves the generated files are exactly what generate would write now (state.ts), the
 * regeneration is skipped: the inputs and the generator are unchanged, so the output would be too.
 */
import { generate } from '../emit/generate.js';
import type { PieceStore } from '../emit/types.js';
import type { CompiledValidators, ServerModel } from '../model.js';
import type { LoadResult } from '../spec.js';
import { saveState, stateFor } from '../state.js';
import type { Finding } from './findings.js';
import { checkGenerated } from './generated.js';
import { byPlace, checkHandlers } from './handlers.js';
import { sameContract, type CheckWorker } from './parallel.js';
import { subjectOf } from './subject.js';

/** The full check, from a loaded spec. Saves the state when the generated files turn out current. */
export async function checkProject(
  model: ServerModel,
  validators: CompiledValidators,
  cwd: string,
  inputs?: LoadResult['inputs'],
  specPath?: string,
  worker?: CheckWorker,
  store?: PieceStore,
): Promise<Finding[]> {
  const subject = subjectOf(model);
  // With a worker, the handlers are checked against the contract on disk while the generator runs here; see
  // parallel.ts for when its findings stand.
  const early = worker?.check(subject, cwd, specPath);
  const files = await generate(model, validators, store);
  const generated = checkGenerated(model, files, cwd);
  if (!generated.length && inputs && specPath) {
    saveState(specPath, stateFor({ ...subject, inputs, files, tools: subject.tools }));
  }
  let handlers: Finding[] | undefined;
  if (early && sameContract(early, subject.rootDir, files)) handlers = await early.findings.catch(() => undefined);
  if (!handlers) {
    // A stale contract on disk, or a worker that failed: stop it (no second writer of the handler cache) and check
    // here, against the contract in memory.
    await worker?.close();
    handlers = await checkHandlers(subject, cwd, files, specPath);
  }
  return [...generated.sort(byPlace), ...handlers];
}
