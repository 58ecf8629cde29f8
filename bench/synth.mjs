// Seeded, realistic synthetic specs for the benchmarks: N tools with varied inputs (strings with bounds and
// formats, integers with ranges and defaults, enums, arrays, nested objects), half of them with output schemas,
// and a written handler for every tool. The same seed gives the same project.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

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
    // A realistic description starts with what this tool does, in words of its own, then says when to use it.
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
    const own =
      i % 7 === 3
        ? `${noun}（第${i}号）を${VERBS[i % VERBS.length]}します。`
        : `${VERBS[i % VERBS.length][0].toUpperCase()}${VERBS[i % VERBS.length].slice(1)} the ${noun} records of shard ${i}.`;
    const tool = {
      name,
      description: realistic
        ? `${own}${i % 7 === 3 ? '' : ' '}${prose(r, 150 - own.length, 250 - own.length - 1, i % 7 === 3)}`
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

/** The tsconfig.json of the bench projects: the one `toolspec init` writes (and `toolspec dev` falls back on). */
export const TSCONFIG = JSON.parse(
  fs.readFileSync(new URL('../templates/init/tsconfig.json', import.meta.url), 'utf8'),
);

/**
 * Writes spec, tsconfig and handlers (not the generated files) to dir; returns the spec object. The spec is one
 * file of JSON (which is YAML), or with `options.layout: 'folder'` as the README advises for large specs: a main
 * file that includes `tools/`, one block-YAML file per tool.
 */
export function writeProject(dir, n, seed = 42, options = {}) {
  const spec = synthSpec(n, seed, options);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src/handlers'), { recursive: true });
  if (options.layout === 'folder') {
    const { tools, ...main } = spec;
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), YAML.stringify({ ...main, include: ['tools/'] }));
    fs.mkdirSync(path.join(dir, 'tools'));
    for (const t of tools) fs.writeFileSync(path.join(dir, 'tools', `${t.name}.yaml`), YAML.stringify({ tools: [t] }));
  } else {
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), JSON.stringify(spec, null, 1)); // JSON is YAML
  }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const t of spec.tools) fs.writeFileSync(path.join(dir, 'src/handlers', `${t.name}.ts`), handlerSource(t));
  return spec;
}

/** The spec's files as they are now (path → text): what a bench writes back to undo its edits. */
export function specFiles(dir) {
  const files = new Map([[path.join(dir, 'toolspec.yaml'), fs.readFileSync(path.join(dir, 'toolspec.yaml'), 'utf8')]]);
  const folder = path.join(dir, 'tools');
  if (fs.existsSync(folder))
    for (const f of fs.readdirSync(folder))
      files.set(path.join(folder, f), fs.readFileSync(path.join(folder, f), 'utf8'));
  return files;
}

/** Edits one tool of a project written by writeProject, in whichever layout it has. */
export function editTool(dir, name, edit) {
  const own = path.join(dir, 'tools', `${name}.yaml`);
  if (fs.existsSync(own)) {
    const doc = YAML.parse(fs.readFileSync(own, 'utf8'));
    edit(doc.tools[0]);
    fs.writeFileSync(own, YAML.stringify(doc));
    return;
  }
  const file = path.join(dir, 'toolspec.yaml');
  const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(spec.tools.find((t) => t.name === name));
  fs.writeFileSync(file, JSON.stringify(spec, null, 1));
}
