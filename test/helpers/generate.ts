/** A spec loaded without errors, and generate on it: the loader's model and validators, as the CLI uses them. */
import { expect } from 'vitest';
import { generate, type OutputFile } from '../../src/emit/generate.js';
import type { CompiledValidators, ServerModel } from '../../src/model.js';
import { loadModel } from '../../src/spec.js';

export function loadOk(spec: string, cwd: string): { model: ServerModel; validators: CompiledValidators } {
  const result = loadModel(spec, { cwd });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return { model: result.model!, validators: result.validators! };
}

export function generateSpec(spec: string, cwd: string): Promise<OutputFile[]> {
  const { model, validators } = loadOk(spec, cwd);
  return generate(model, validators);
}
