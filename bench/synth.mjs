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

// Realistic descriptions (the `realistic` option): what tool and argument descriptions in published MCP servers look
// like — whole sentences, 150–250 characters for a tool, some in Japanese or Chinese (CJK text is two columns wide
// on a terminal and one UTF-16 unit in a string: what a printer counting width must get right).
const SENTENCES = [
  'Use this when the user asks for a specific record by its identifier or by a unique attribute.',
  'Returns at most the requested number of items, newest first, with a cursor to fetch the next page.',
  'The call is idempotent: repeating it with the same arguments has no further effect on the store.',
  'Fails with a clear message when the caller lacks permission, instead of returning partial results.',
  'Prefer the search tool for free-text queries; this one matches exact field values only.',
  'Dates are interpreted in UTC unless the argument carries an explicit offset such as +02:00.',
  'Large exports are streamed in chunks, and progress is reported after each chunk is written.',
  'Archived items are excluded unless include_archived is true, which also slows the query down.',
];
const CJK = [
  '指定された条件に一致するレコードを検索し、最新のものから順に返します。',
  '同じ引数で繰り返し呼び出しても、ストアの状態は一度目の呼び出しの後と変わりません。',
  '权限不足时返回明确的错误信息，而不是返回部分结果。',
  '大きなエクスポートは分割して書き出され、各チャンクの後に進捗が報告されます。',
];

/** Sentences picked by r until the text is between min and max characters long. */
function prose(r, min, max, cjk) {
  const pool = cjk ? CJK : SENTENCES;
  let text = '';
  while (text.length < min) {
    const next = pool[Math.floor(r() * pool.length)];
    if (text && text.length + 1 + next.length > max) break;
    text = text ? `${text}${cjk ? '' : ' '}${next}` : next;
  }
  return text.length > max ? text.slice(0, max) : text;
}

function property(r, depth, realistic) {
  const pick = Math.floor(r() * (depth > 1 ? 5 : 7));
  const description = realistic
    ? prose(r, 60, 200, r() < 0.15)
    : `A ${['short', 'precise', 'optional', 'required'][Math.floor(r() * 4)]} value used by the tool.`;
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
        properties: props(r, 2 + Math.floor(r() * 3), depth + 1, realistic),
        additionalProperties: false,
        description,
      };
  }
}

function props(r, n, depth, realistic) {
  const out = {};
  for (let i = 0; i < n; i++) out[`field_${i}`] = property(r, depth, realistic);
  return out;
}

/**
 * `realistic`: tool descriptions of 150–250 characters (every seventh in Japanese or Chinese), argument
 * descriptions of 60–200, and server instructions; otherwise the short, uniform descriptions of earlier benches.
 */
export function synthSpec(n, seed = 42, { realistic = false } = {}) {
  const r = rng(seed + n);
  const tools = [];
  for (let i = 0; i < n; i++) {
    const name = `${VERBS[i % VERBS.length]}_${NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]}_${i}`;
    const properties = props(r, 2 + Math.floor(r() * 5), 0, realistic);
    const tool = {
      name,
      description: realistic
        ? prose(r, 150, 250, i % 7 === 3)
        : `${name.replace(/_/g, ' ')}: does one thing to the ${NOUNS[i % NOUNS.length]} store and reports what happened.`,
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
  const server = { name: `bench-${n}`, version: '1.0.0' };
  if (realistic) server.instructions = `${prose(r, 200, 300, false)} ${prose(r, 60, 120, true)}`;
  return { toolspec: 1, server, tools };
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
export function writeProject(dir, n, seed = 42, options = {}) {
  const spec = synthSpec(n, seed, options);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src/handlers'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'toolspec.yaml'), JSON.stringify(spec, null, 1)); // JSON is YAML
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of spec.tools) fs.writeFileSync(path.join(dir, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  return spec;
}
