/**
 * validators.ts: ajv standalone code, one validator per tool schema, compiled now so that no schema is compiled
 * at run time and nothing is evaluated. Inputs are compiled with useDefaults (schema defaults are filled in
 * before the handler runs); outputs without. ajv's standalone code is CommonJS that requires small runtime
 * helpers; each chunk is wrapped in a function scope and its requires become ESM imports.
 */
import Ajv, { _, type Options } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import type { ServerModel } from '../model.js';
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
  const groups = new Map<string, { dialect: Dialect; defaults: boolean; schemas: [string, object][] }>();
  const group = (dialect: Dialect, defaults: boolean) => {
    const key = `${dialect}:${defaults ? 'input' : 'output'}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { dialect, defaults, schemas: [] }));
    return g;
  };
  for (const tool of model.tools) {
    const n = names.get(tool.name)!;
    group(tool.input.dialect, true).schemas.push([n.input, clientSchema(tool.input, model.options)]);
    if (tool.output && n.output) group(tool.output.dialect, false).schemas.push([n.output, clientSchema(tool.output, model.options)]);
  }

  const requires = new Map<string, string>();
  const chunks: string[] = [];
  const exports: string[] = [];
  [...groups.values()].forEach((g, i) => {
    const ajv = newAjv(g.dialect, g.defaults);
    for (const [, schema] of g.schemas) {
      walkSchema(schema, (node) => {
        for (const k of Object.keys(node)) if (k.startsWith('x-') && !ajv.getKeyword(k)) ajv.addKeyword({ keyword: k, schemaType: [] });
      });
    }
    for (const [name, schema] of g.schemas) {
      const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
      ajv.addSchema(rest, name);
    }
    const code = standaloneCode.default(ajv, Object.fromEntries(g.schemas.map(([name]) => [name, name])));
    const body = code.replace(/require\("([^"]+)"\)/g, (_m, mod: string) => {
      let id = requires.get(mod);
      if (!id) requires.set(mod, (id = `runtime${requires.size}`));
      return id;
    });
    chunks.push(`const chunk${i} = (() => {\nconst module = { exports: {} };\nconst exports = module.exports;\n${body}\nreturn module.exports;\n})();`);
    for (const [name] of g.schemas) exports.push(`export const ${name} = chunk${i}[${JSON.stringify(name)}];`);
  });
  // Node gives a CommonJS module's exports as the default import; bundlers (vite, esbuild) may give its
  // `default` export instead. `cjs` restores module.exports either way.
  const imports = [...requires].map(([mod, id]) => `import * as ${id}ns from ${JSON.stringify(`${mod}.js`)};\nconst ${id} = cjs(${id}ns);`);
  const interop = 'function cjs(ns) {\n  return ns.default && ns.default.__esModule ? ns.default : ns;\n}';
  return ['// @ts-nocheck', interop, ...imports, '', ...chunks, '', ...exports, ''].join('\n');
}

function newAjv(dialect: Dialect, defaults: boolean) {
  const options: Options = {
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
    useDefaults: defaults,
    logger: false,
    code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  };
  const ajv = dialect === '2020-12' ? new Ajv2020.default(options) : new Ajv.default(options);
  addFormats.default(ajv);
  return ajv;
}
