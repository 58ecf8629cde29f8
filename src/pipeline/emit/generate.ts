/**
 * generate(model, validators, options) → the files toolspec owns and the handler stubs it would create. Pure: no
 * disk, no console; the runtime's static files come in `options.templates`, read by the caller. The same model,
 * validators and templates give the same bytes, with or without `options.store`.
 */
import path from 'node:path';
import type { CompiledValidators, ServerModel } from '../model.js';
import { emitRegistry, emitTools } from './bindings.js';
import { emitClient } from './client.js';
import { emitContract } from './contract.js';
import { emitExamples, hasExamples } from './examples.js';
import { formatPieces, normalizeText, type PieceStore } from './format.js';
import { emitManifestJson, emitManifestModule } from './manifest.js';
import { emitPrimitives, emitPrimitiveStub, handlerFile } from './primitives.js';
import { emitStub } from './stub.js';
import { AUTH_VERIFIER, EXAMPLES_RUNNER, STATIC_FILES } from './templates.js';
import { header } from './text.js';
import { emitTypes } from './types.js';
import { emitValidators } from './validators.js';

export interface OutputFile {
  /** Relative to the spec's folder, with forward slashes. */
  path: string;
  contents: string;
  /**
   * generated: toolspec's, rewritten every run. handler: the user's, created only when missing. published: a file
   * of the project outside the generated folder with a part that toolspec keeps (src/publish), rewritten whole.
   */
  kind: 'generated' | 'handler' | 'published';
  /** For handler stubs: the tool it is for. */
  tool?: string;
  /** For published files: the text on disk they were computed from (the write is refused if it changed since). */
  based?: string;
  /** For published files toolspec writes whole: what its own copy contains (one without it is never replaced). */
  mark?: string;
}

export interface GenerateOptions {
  /** The runtime's static files (templates/runtime), by name: copied into the generated folder as they are. */
  templates: ReadonlyMap<string, string>;
  /** Pieces kept by the content that produced them (types, formatted code): the caller's cache between runs. */
  store?: PieceStore | undefined;
  /** Which handler stubs to make, by path relative to the spec's folder (default: all; check needs none). */
  stubs?: (file: string) => boolean;
}

export async function generate(
  model: ServerModel,
  validators: CompiledValidators,
  { templates, store, stubs = () => true }: GenerateOptions,
): Promise<OutputFile[]> {
  const dir = model.options.generatedDir;
  const head = header(path.posix.basename(model.specFile));
  const file = (name: string, contents: string): OutputFile => ({
    path: `${dir}/${name}`,
    contents: normalizeText(contents),
    kind: 'generated',
  });
  /** Code, formatted a piece at a time; the header leads the first piece. */
  const code = async (name: string, pieces: string[] | Promise<string[]>) => {
    const [first = '', ...rest] = await pieces;
    return file(name, await formatPieces([head + first, ...rest], store));
  };
  const template = (name: string) => {
    const text = templates.get(name);
    if (text === undefined) throw new Error(`no runtime template ${name}`);
    return file(name, head + text);
  };
  const files = await Promise.all([
    // Formatted by emitTypes itself, a piece per tool kept formatted in the store.
    emitTypes(model, store).then((pieces) => file('types.ts', head + pieces.join('\n'))),
    code('contract.ts', emitContract(model)),
    code('tools.ts', emitTools(model)),
    code('registry.ts', emitRegistry(model)),
    code('primitives.ts', emitPrimitives(model)),
    // The typed client of this server (typed-client.ts, a runtime file, does the work).
    code('client.ts', emitClient(model)),
    // The spec's examples as contract tests, for vitest: only when there are any.
    ...(model.options.contractTests && hasExamples(model)
      ? [code('examples.test.ts', emitExamples(model)), template(EXAMPLES_RUNNER)]
      : []),
    ...(model.auth ? [template(AUTH_VERIFIER)] : []),
    // Kept formatted in the repository (a test holds them to the pinned prettier options).
    ...STATIC_FILES.map(template),
  ]);
  // Data and machine-made code, printed by JSON.stringify and ajv: deterministic already.
  files.push(file('manifest.ts', head + emitManifestModule(model)));
  files.push(file('validators.ts', head + emitValidators(model, validators)));
  files.push({ path: `${dir}/manifest.json`, contents: emitManifestJson(model), kind: 'generated' });
  // Code review tools (GitHub's linguist) fold this folder's files in pull requests: nobody reviews them by hand.
  files.push(file('.gitattributes', `${header(path.posix.basename(model.specFile), '#')}* linguist-generated=true`));

  const stub = async (target: string, pieces: (file: string) => string[], tool?: string) => {
    if (!stubs(target)) return;
    const contents = normalizeText(await formatPieces(pieces(target), store));
    files.push({ path: target, contents, kind: 'handler', ...(tool ? { tool } : {}) });
  };
  for (const t of model.tools) await stub(handlerFile(model, t), (f) => emitStub(model, t, f), t.name);
  // Prompts' and resources' stubs: created once, never overwritten, like the tools'.
  for (const p of [...model.prompts, ...model.resources])
    await stub(handlerFile(model, p), (f) => emitPrimitiveStub(model, p, f));
  return files.sort((a, b) =>
    a.kind === b.kind ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : a.kind === 'generated' ? -1 : 1,
  );
}
