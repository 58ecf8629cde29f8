/**
 * validators.ts: ajv standalone code, one validator per tool schema, compiled now so that no schema is compiled
 * at run time and nothing is evaluated. Inputs are compiled with useDefaults (schema defaults are filled in
 * before the handler runs); outputs without. ajv's standalone code is CommonJS that requires small runtime
 * helpers; each chunk is wrapped in a function scope and its requires become ESM imports.
 */
import Ajv, { type Options } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import type { SchemaModel, ServerModel } from '../model.js';
import { compiledSchemas, VALIDATION_OPTIONS, type AnyAjv } from '../validate/ajv.js';
import { inheritedNames, renameInherited } from '../validate/inherited.js';
import { walkSchema, type Dialect } from '../validate/keywords.js';
import { clientSchema } from './manifest.js';
import { toolTypeNames } from './types.js';

/** The export name of each tool's validators in validators.ts. */
export function validatorNames(model: ServerModel): Map<string, { input: string; output?: string }> {
  const types = toolTypeNames(model);
  return new Map(
    model.tools.map((t) => {
      const n = types.get(t.name)!;
      return [t.name, { input: `validate${n.input}`, ...(n.output ? { output: `validate${n.output}` } : {}) }];
    }),
  );
}

export function emitValidators(model: ServerModel): string {
  const names = validatorNames(model);
  // Each group is one ajv instance and the schemas to export from it, as [export name, key].
  const groups: { ajv: AnyAjv; exports: [string, string][] }[] = [];
  // Validators of schemas with inherited property names (constructor, __proto__, …), and how to guard them.
  const guards = new Map<string, string>();
  const groupOf = (ajv: AnyAjv) => {
    let g = groups.find((x) => x.ajv === ajv);
    if (!g) groups.push((g = { ajv, exports: [] }));
    return g;
  };
  // The validators the loader compiled are reused; a model from elsewhere (or with refs inlined) is compiled here.
  const fresh = new Map<string, AnyAjv>();
  const add = (schema: SchemaModel, kind: 'input' | 'output', exportName: string) => {
    const compiled = compiledSchemas.get(schema);
    const guard = (names: string[]) => names.length && guards.set(exportName, `${JSON.stringify(names)}, ${kind === 'output'}`);
    if (compiled && model.options.refs === 'bundle') {
      groupOf(compiled.ajv).exports.push([exportName, compiled.key]);
      guard(compiled.inherited);
      return;
    }
    const id = `${schema.dialect}:${kind}`;
    let ajv = fresh.get(id);
    if (!ajv) fresh.set(id, (ajv = newAjv(schema.dialect, kind === 'input')));
    const { $schema: _dialect, $id: _id, ...rest } = clientSchema(schema, model.options);
    walkSchema(rest, (node) => {
      for (const k of Object.keys(node)) if (k.startsWith('x-') && !ajv.getKeyword(k)) ajv.addKeyword({ keyword: k, schemaType: [] });
    });
    const names = inheritedNames(rest);
    ajv.addSchema(names.length ? (renameInherited(rest, new Set(names)) as object) : rest, exportName);
    groupOf(ajv).exports.push([exportName, exportName]);
    guard(names);
  };
  for (const tool of model.tools) {
    const n = names.get(tool.name)!;
    add(tool.input, 'input', n.input);
    if (tool.output && n.output) add(tool.output, 'output', n.output);
  }

  const requires = new Map<string, string>();
  const chunks: string[] = [];
  const exports: string[] = [];
  groups.forEach((g, i) => {
    const code = standaloneCode.default(g.ajv, Object.fromEntries(g.exports));
    const body = code.replace(/require\("([^"]+)"\)/g, (_m, mod: string) => {
      let id = requires.get(mod);
      if (!id) requires.set(mod, (id = `runtime${requires.size}`));
      return id;
    });
    chunks.push(`const chunk${i} = (() => {\nconst module = { exports: {} };\nconst exports = module.exports;\n${body}\nreturn module.exports;\n})();`);
    for (const [name] of g.exports) {
      const fn = `chunk${i}[${JSON.stringify(name)}]`;
      const guard = guards.get(name);
      exports.push(`export const ${name} = ${guard ? `guardInherited(${fn}, ${guard})` : fn};`);
    }
  });
  // Node gives a CommonJS module's exports as the default import; bundlers (vite, esbuild) may give its
  // `default` export instead. `cjs` restores module.exports either way.
  const imports = [...requires].map(([mod, id]) => `import * as ${id}ns from ${JSON.stringify(`${mod}.js`)};\nconst ${id} = cjs(${id}ns);`);
  const interop = 'function cjs(ns) {\n  return ns.default && ns.default.__esModule ? ns.default : ns;\n}';
  if (guards.size) imports.push("import { guardInherited } from './dispatcher.js';");
  return ['// @ts-nocheck', interop, ...imports, '', ...chunks, '', ...exports, ''].join('\n');
}

function newAjv(dialect: Dialect, defaults: boolean) {
  const options: Options = {
    ...VALIDATION_OPTIONS,
    // What the loader only warns about (TS029) must not stop generate: the same leniency, without the log.
    strict: true,
    strictSchema: 'log',
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    useDefaults: defaults,
    logger: false,
  };
  const ajv = dialect === '2020-12' ? new Ajv2020.default(options) : new Ajv.default(options);
  addFormats.default(ajv);
  return ajv;
}
