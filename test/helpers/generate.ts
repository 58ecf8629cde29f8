/** A spec loaded without errors, and generate on it: the loader's model and validators, as the CLI uses them. */
import { expect } from 'vitest';
import type { Finding } from '../../src/check/findings.js';
import { checkProject } from '../../src/check/check.js';
import { compile, runtimeTemplates } from '../../src/compile.js';
import { generate as generateWith, type GenerateOptions, type OutputFile } from '../../src/pipeline/emit/generate.js';
import type { CompiledValidators, ServerModel } from '../../src/pipeline/model.js';
import { loadModel } from '../../src/compile.js';

/** generate with the runtime's templates from the repository, as compile() passes them. */
export function generate(
  model: ServerModel,
  validators: CompiledValidators,
  options: Partial<GenerateOptions> = {},
): Promise<OutputFile[]> {
  return generateWith(model, validators, { templates: runtimeTemplates(), ...options });
}

export function loadOk(spec: string, cwd: string): { model: ServerModel; validators: CompiledValidators } {
  const result = loadModel(spec, { cwd });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { model: result.model!, validators: result.validators! };
}

export function generateSpec(spec: string, cwd: string): Promise<OutputFile[]> {
  const { model, validators } = loadOk(spec, cwd);
  return generate(model, validators);
}

/** toolspec check's findings on the project in `dir` (its toolspec.yaml), as the command computes them. */
export async function checkDir(dir: string): Promise<Finding[]> {
  const result = await compile('toolspec.yaml', { cwd: dir, stubs: () => false });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return checkProject(result.model!, result.output!, dir);
}
