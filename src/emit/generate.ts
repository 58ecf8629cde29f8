/**
 * generate(model, validators) → the files toolspec owns and the handler stubs it would create. Pure: no disk
 * writes, no console; the same model and validators (the loader's, see loadModel) give the same bytes.
 */
import path from 'node:path';
import type { CompiledValidators, ServerModel } from '../model.js';
import { emitRegistry, emitTools, handlerFileName } from './bindings.js';
import { emitContract } from './contract.js';
import { emitExamples, hasExamples } from './examples.js';
import { formatIfNeeded, normalizeText } from './format.js';
import { emitManifestJson, emitManifestModule } from './manifest.js';
import {
  emitPrimitives,
  emitPromptStub,
  emitResourceStub,
  promptHandlerFile,
  resourceHandlerFile,
} from './primitives.js';
import { emitStub } from './stub.js';
import { EXAMPLES_RUNNER, readTemplate, STATIC_FILES } from './templates.js';
import { header } from './text.js';
import { emitTypes, type PieceStore } from './types.js';
import { emitValidators } from './validators.js';

export interface OutputFile {
  /** Relative to the spec's folder, with forward slashes. */
  path: string;
  contents: string;
  /** generated: toolspec's, rewritten every run. handler: the user's, created only when missing. */
  kind: 'generated' | 'handler';
  /** For handler stubs: the tool it is for. */
  tool?: string;
}

/**
 * `store` keeps pieces of output by the content that produced them (the types of each tool): the caller's cache
 * between runs. It changes no byte, only how much is computed again.
 */
export async function generate(
  model: ServerModel,
  validators: CompiledValidators,
  store?: PieceStore,
): Promise<OutputFile[]> {
  const dir = model.options.generatedDir;
  const specName = path.posix.basename(model.specFile);
  const head = header(specName);
  // Emitters write prettier's shape for the pinned options; prettier runs only where a line would not fit (it is
  // the slowest stage of all on large specs). A golden test holds every generated file to prettier's output.
  const ts = async (name: string, body: string | Promise<string>): Promise<OutputFile> => ({
    path: `${dir}/${name}`,
    contents: normalizeText(await formatIfNeeded(head + (await body))),
    kind: 'generated',
  });
  const plain = async (name: string, body: string | Promise<string>): Promise<OutputFile> => ({
    path: `${dir}/${name}`,
    contents: normalizeText(head + (await body)),
    kind: 'generated',
  });
  const files = await Promise.all([
    // json-schema-to-typescript's output is indented by its own rules (prettier would take seconds on 500 tools).
    plain('types.ts', emitTypes(model, store)),
    ts('contract.ts', emitContract(model)),
    ts('manifest.ts', emitManifestModule(model)),
    ts('tools.ts', emitTools(model)),
    ts('registry.ts', emitRegistry(model)),
    ts('primitives.ts', emitPrimitives(model)),
    // The spec's examples as contract tests, for vitest: only when there are any.
    ...(model.options.contractTests && hasExamples(model)
      ? [ts('examples.test.ts', emitExamples(model)), plain(EXAMPLES_RUNNER, readTemplate(EXAMPLES_RUNNER))]
      : []),
    // Kept formatted in the repository (a test holds them to the pinned prettier options).
    ...STATIC_FILES.map((name) => plain(name, readTemplate(name))),
  ]);
  // Machine-made code, deterministic already: formatting it would only cost time.
  files.push({
    path: `${dir}/validators.ts`,
    contents: normalizeText(head + emitValidators(model, validators)),
    kind: 'generated',
  });
  files.push({ path: `${dir}/manifest.json`, contents: emitManifestJson(model), kind: 'generated' });
  // Code review tools (GitHub's linguist) fold this folder's files in pull requests: nobody reviews them by hand.
  files.push({
    path: `${dir}/.gitattributes`,
    contents: `${header(specName, '#')}* linguist-generated=true\n`,
    kind: 'generated',
  });
  for (const tool of model.tools) {
    const file = `${model.options.handlersDir}/${handlerFileName(tool)}`;
    // Written in prettier's shape already (a golden test holds them to it): formatting 500 stubs would take seconds.
    files.push({
      path: file,
      contents: normalizeText(await formatIfNeeded(emitStub(model, tool, file))),
      kind: 'handler',
      tool: tool.name,
    });
  }
  // Prompts' and resources' stubs: created once, never overwritten, like the tools'.
  for (const prompt of model.prompts) {
    const file = promptHandlerFile(model, prompt);
    files.push({
      path: file,
      contents: normalizeText(await formatIfNeeded(emitPromptStub(model, prompt, file))),
      kind: 'handler',
    });
  }
  for (const resource of model.resources) {
    const file = resourceHandlerFile(model, resource);
    files.push({
      path: file,
      contents: normalizeText(await formatIfNeeded(emitResourceStub(model, resource, file))),
      kind: 'handler',
    });
  }
  return files.sort((a, b) =>
    a.kind === b.kind ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : a.kind === 'generated' ? -1 : 1,
  );
}
