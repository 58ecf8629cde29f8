// Seeded, realistic synthetic specs for the benchmarks: N tools with varied inputs (strings with bounds and
// formats, integers with ranges and defaults, enums, arrays, nested objects), half of them with output schemas,
// and a written handler for every tool. The same seed gives the same project.
import fs from 'node:fs';
import path from 'node:path';

/** mulberry32: a small, well-known seeded PRNG. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = ['get', 'list', 'search', 'create', 'update', 'archive', 'count', 'export', 'sync', 'find'];
const NOUNS = [
  'user',
  'order',
  'invoice',
  'ticket',
  'page',
  'file',
  'event',
  'report',
  'project',
  'comment',
  'tag',
  'team',
];
const FORMATS = ['email', 'uri', 'date', 'date-time', 'uuid'];

function property(r, depth) {
  const pick = Math.floor(r() * (depth > 1 ? 5 : 7));
  const description = `A ${['short', 'precise', 'optional', 'required'][Math.floor(r() * 4)]} value used by the tool.`;
  switch (pick) {
    case 0:
      return { type: 'string', minLength: 1, maxLength: 10 + Math.floor(r() * 200), description };
    case 1:
      return { type: 'string', format: FORMATS[Math.floor(r() * FORMATS.length)], description };
    case 2:
      return {
        type: 'integer',
        minimum: 0,
        maximum: 10 + Math.floor(r() * 1000),
        default: 1 + Math.floor(r() * 9),
        description,
      };
    case 3:
      return {
        type: 'string',
        enum: ['asc', 'desc', 'none'].slice(0, 2 + Math.floor(r() * 2)),
        default: 'asc',
        description,
      };
    case 4:
      return { type: 'boolean', default: r() > 0.5, description };
    case 5:
      return { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 20, description };
    default:
      return {
        type: 'object',
        properties: props(r, 2 + Math.floor(r() * 3), depth + 1),
        additionalProperties: false,
        description,
      };
  }
}

function props(r, n, depth) {
  const out = {};
  for (let i = 0; i < n; i++) out[`field_${i}`] = property(r, depth);
  return out;
}

export function synthSpec(n, seed = 42) {
  const r = rng(seed + n);
  const tools = [];
  for (let i = 0; i < n; i++) {
    const name = `${VERBS[i % VERBS.length]}_${NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]}_${i}`;
    const properties = props(r, 2 + Math.floor(r() * 5), 0);
    const tool = {
      name,
      description: `${name.replace(/_/g, ' ')}: does one thing to the ${NOUNS[i % NOUNS.length]} store and reports what happened.`,
      annotations: { readOnlyHint: i % 3 === 0, openWorldHint: false },
      inputSchema: { type: 'object', properties, required: ['field_0'], additionalProperties: false },
    };
    if (i % 2 === 0) {
      tool.outputSchema = {
        type: 'object',
        properties: { ok: { type: 'boolean' }, count: { type: 'integer', minimum: 0 }, note: { type: 'string' } },
        required: ['ok', 'count'],
      };
    }
    tools.push(tool);
  }
  return { toolspec: 1, server: { name: `bench-${n}`, version: '1.0.0' }, tools };
}

/** Handler source for a tool: real code, typed against the contract. */
export function handlerSource(tool) {
  const body = tool.outputSchema
    ? `({ ok: true, count: Object.keys(args).length, note: String(args.field_0) })`
    : '`' + tool.name + ' ${JSON.stringify(args)}`';
  return `import type { Handler } from '../generated/contract.js';\n\nexport const handler: Handler<'${tool.name}'> = async (args) => ${body};\n`;
}

export const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['src'],
};

/** Writes spec, tsconfig and handlers (not the generated files) to dir; returns the spec object. */
export function writeProject(dir, n, seed = 42) {
  const spec = synthSpec(n, seed);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src/handlers'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'toolspec.yaml'), JSON.stringify(spec, null, 1)); // JSON is YAML
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of spec.tools) fs.writeFileSync(path.join(dir, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  return spec;
}
