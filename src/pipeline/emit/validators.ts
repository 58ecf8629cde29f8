/**
 * validators.ts: one precompiled validator per tool schema, so that no schema is compiled at run time and nothing
 * is evaluated. The code is the loader's (ajv standalone, compiled from each schema alone, annotations left out):
 * here each validator becomes one typed export in a scope of its own, and ajv's `require`s of its small run-time
 * helpers become ESM imports named after the helper. A tool's validators depend on its schemas alone, and edits to
 * descriptions change nothing here.
 */
import type { CompiledValidators, ServerModel, ValidatorCode } from '../model.js';
import { commentLine } from './text.js';
import { toolTypeNames } from './types.js';

/** The export name in validators.ts of the validator of a type of types.ts (a tool's input or output). */
export const validatorName = (type: string) => `validate${type}`;

/** ajv's standalone header for one exported function, and the helpers it may require. */
const HEADER = /^"use strict";\nmodule\.exports = (validate\d+);\nmodule\.exports\.default = \1;\n/;
const REQUIRE = /require\("(ajv\/dist\/runtime\/[a-z0-9_]+|ajv-formats\/dist\/formats)"\)/g;

export function emitValidators(model: ServerModel, compiled: CompiledValidators): string {
  const helpers = new Map<string, string>();
  let guarded = false;
  const exports: string[] = [];
  const imported: string[] = [];
  const exportOf = (tool: string, which: 'inputSchema' | 'outputSchema', type: string, v: ValidatorCode) => {
    const head = HEADER.exec(v.source);
    if (!head) throw new Error(`ajv's standalone code for ${tool} ${which} has an unexpected shape`);
    const body = v.source.slice(head[0].length).replace(REQUIRE, (_m, mod: string) => {
      const id = `runtime_${mod.slice(mod.lastIndexOf('/') + 1)}`;
      helpers.set(id, mod);
      return id;
    });
    const fn = `(() => {\n${body.trimEnd()}\nreturn ${head[1]};\n})()`;
    const value = v.inherited.length
      ? `guardInherited(${fn}, ${JSON.stringify(v.inherited)}, ${which === 'outputSchema'})`
      : fn;
    guarded ||= v.inherited.length > 0;
    imported.push(type);
    const name = validatorName(type);
    return `/** ${commentLine(tool)}: ${which}. */\nexport const ${name}: Validator<${type}> = ${value};`;
  };
  for (const tool of model.tools) {
    const t = toolTypeNames(tool);
    const v = compiled.get(tool.name);
    if (!v) throw new Error(`no compiled validator for tool ${tool.name}`);
    exports.push(exportOf(tool.name, 'inputSchema', t.input, v.input));
    if (t.output && v.output) exports.push(exportOf(tool.name, 'outputSchema', t.output, v.output));
  }
  // Node gives a CommonJS module's exports as the default import; bundlers (vite, esbuild) may give its
  // `default` export instead. `cjs` restores module.exports either way.
  const sorted = [...helpers].sort(([a], [b]) => (a < b ? -1 : 1));
  const linear = exports.some((e) => e.includes('linearPattern('));
  const runtime = [...(guarded ? ['guardInherited'] : []), ...(linear ? ['linearPattern'] : [])];
  return [
    "// @ts-nocheck: ajv's standalone code; each export's type is declared.",
    runtime.length
      ? `import { ${runtime.join(', ')}, type Validator } from './arguments.js';`
      : "import type { Validator } from './arguments.js';",
    ...(imported.length ? [`import type { ${imported.join(', ')} } from './types.js';`] : []),
    ...sorted.map(([id, mod]) => `import * as ${id}_module from ${JSON.stringify(`${mod}.js`)};`),
    '',
    'function cjs(ns) {\n  return ns.default && ns.default.__esModule ? ns.default : ns;\n}',
    ...sorted.map(([id]) => `const ${id} = cjs(${id}_module);`),
    '',
    exports.join('\n\n'),
    '',
  ].join('\n');
}
