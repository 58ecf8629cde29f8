/**
 * generate(model) → the files toolspec owns and the handler stubs it would create. Pure: no disk writes, no
 * console; the same model gives the same bytes.
 */
import path from 'node:path';
import type { ServerModel } from '../model.js';
import { emitRegistry, emitTools, handlerFileName } from './bindings.js';
import { emitContract } from './contract.js';
import { formatTypeScript, normalizeText } from './format.js';
import { emitManifestJson, emitManifestModule } from './manifest.js';
import { emitStub } from './stub.js';
import { readTemplate, STATIC_FILES } from './templates.js';
import { header } from './text.js';
import { emitTypes } from './types.js';
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

export async function generate(model: ServerModel): Promise<OutputFile[]> {
  const dir = model.options.generatedDir;
  const specName = path.posix.basename(model.specFile);
  const head = header(specName);
  const ts = async (name: string, body: string | Promise<string>): Promise<OutputFile> => ({
    path: `${dir}/${name}`,
    contents: normalizeText(await formatTypeScript(head + (await body))),
    kind: 'generated',
  });
  const files = await Promise.all([
    ts('types.ts', emitTypes(model)),
    ts('contract.ts', emitContract(model)),
    ts('manifest.ts', emitManifestModule(model)),
    ts('tools.ts', emitTools(model)),
    ts('registry.ts', emitRegistry(model)),
    ...STATIC_FILES.map((name) => ts(name, readTemplate(name))),
  ]);
  // Machine-made code, deterministic already: formatting it would only cost time.
  files.push({ path: `${dir}/validators.ts`, contents: normalizeText(head + emitValidators(model)), kind: 'generated' });
  files.push({ path: `${dir}/manifest.json`, contents: emitManifestJson(model), kind: 'generated' });
  for (const tool of model.tools) {
    const file = `${model.options.handlersDir}/${handlerFileName(tool)}`;
    files.push({ path: file, contents: normalizeText(await formatTypeScript(emitStub(model, tool, file))), kind: 'handler', tool: tool.name });
  }
  return files.sort((a, b) => (a.kind === b.kind ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : a.kind === 'generated' ? -1 : 1));
}
