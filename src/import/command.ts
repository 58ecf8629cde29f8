/**
 * `toolspec import`: read an existing server's tools (a command started over stdio, a Streamable HTTP endpoint, or
 * a saved tools/list result), write a spec that reproduces them, and prove it before writing: the spec is loaded
 * and linted as generate would, and the manifest generate would send is compared with what the server sent.
 * Returns what to print and the exit code; the CLI prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../diagnostics.js';
import { parseDuration } from '../duration.js';
import { displayPath } from '../paths.js';
import { buildSpec, type ImportNote, type SpecData } from './build.js';
import { hoist, type Hoisted } from './hoist.js';
import { listFromFile, type Listing } from './listing.js';
import { firstDifference, verifySpec, type Verified } from './verify.js';
import { checkTarget, writeAtomically } from './write.js';
import { specYaml } from './yaml.js';

export interface ImportInput {
  fromCommand?: string;
  fromUrl?: string;
  fromFile?: string;
  /** The spec file to write; "-" prints it instead. */
  out: string;
  force: boolean;
  hoist: boolean;
  skipInvalid: boolean;
  /** e.g. "30s". */
  timeout: string;
  /** "Name: value" each, for --from-url. */
  headers: string[];
  name?: string;
  serverVersion?: string;
  format: 'text' | 'json';
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** toolspec's own version, reported to the server as the client's. */
  version: string;
}

export interface ImportResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

const SCHEMA_IN_PACKAGE = 'node_modules/toolspec/schema/toolspec.schema.json';

/**
 * The editor comment that points at the spec's JSON Schema: the installed toolspec nearest above the spec's folder,
 * or the project's own node_modules when none is installed yet.
 */
function schemaComment(specDir: string): string {
  for (let dir = specDir; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, SCHEMA_IN_PACKAGE))) {
      const rel = path.relative(specDir, path.join(dir, SCHEMA_IN_PACKAGE)).split(path.sep).join('/');
      return `yaml-language-server: $schema=${rel.startsWith('.') ? rel : `./${rel}`}`;
    }
    if (path.dirname(dir) === dir) return `yaml-language-server: $schema=./${SCHEMA_IN_PACKAGE}`;
  }
}

export async function importCommand(input: ImportInput): Promise<ImportResult> {
  try {
    return await run(input);
  } catch (e) {
    if (!(e instanceof UserError) || input.format !== 'json') throw e;
    return { code: 2, stdout: `${JSON.stringify({ ok: false, error: e.message }, null, 2)}\n`, stderr: `toolspec: ${e.message}\n` };
  }
}

async function run(input: ImportInput): Promise<ImportResult> {
  const sources = [input.fromCommand, input.fromUrl, input.fromFile].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    throw new UserError(
      `${sources.length ? 'give only one of' : 'say where the tools come from:'} --from-command "<command>", --from-url <url> or --from-file <tools.json>`,
    );
  }
  const toStdout = input.out === '-';
  const target = path.resolve(input.cwd, input.out);
  const shown = toStdout ? 'the spec' : displayPath(target, input.cwd);
  if (!toStdout) checkTarget(target, shown, input.force);
  const timeoutMs = parseDuration(input.timeout);
  if (timeoutMs === undefined) throw new UserError(`--timeout ${JSON.stringify(input.timeout)} is not a duration; write a whole number and a unit, e.g. 10s, 500ms or 2m`);
  if (input.headers.length && input.fromUrl === undefined) throw new UserError('--header applies to --from-url only');

  const listing = await readListing(input, timeoutMs);
  const origin = describeOrigin(input, listing);
  if (listing.tools.length === 0) {
    const why = listing.declaresTools ? 'lists no tools' : 'offers no tools (its initialize result declares no tools capability)';
    throw new UserError(`${origin} ${why}; there is nothing to import and nothing was written`);
  }

  const built = buildSpec({
    listing,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.serverVersion === undefined ? {} : { version: input.serverVersion }),
    fallbackName: input.fromFile ? fileBaseName(input.fromFile) : 'imported-server',
  });
  // Entries that are not tools at all cannot go into the spec; the others are checked first, so that every
  // problem is reported at once.
  const structural = built.notes.filter((n) => n.severity === 'error').length;
  const notes: ImportNote[] = input.skipInvalid ? built.notes.map((n) => (n.severity === 'error' ? leftOut(n) : n)) : [...built.notes];

  const schema = schemaComment(toStdout ? input.cwd : path.dirname(target));
  let tools = built.data.tools;
  let expected = built.expected;
  let positions = built.positions;
  const ignores: LintIgnore[] = [];
  for (;;) {
    if (!tools.length) return refuse(notes, { total: listing.tools.length, bad: listing.tools.length, serverWide: false, skipping: true, format: input.format });
    const attempt = await attemptSpec({ base: built.data, tools, positions, ignores, hoist: input.hoist, pageSize: built.pageSize, schema });
    const { verified } = attempt;
    const errors = verified.notes.filter((n) => n.severity === 'error');
    if (errors.length || (structural && !input.skipInvalid)) {
      const serverWide = errors.some((n) => n.tool === undefined);
      if (!input.skipInvalid || serverWide || verified.failing.size === tools.length) {
        const bad = verified.failing.size + (input.skipInvalid ? 0 : structural);
        return refuse([...notes, ...verified.notes], { total: listing.tools.length, bad, serverWide, skipping: input.skipInvalid, format: input.format });
      }
      notes.push(...verified.notes.filter((n) => n.severity === 'error' && n.tool !== undefined).map(leftOut));
      const keep = tools.map((_, i) => !verified.failing.has(i));
      tools = tools.filter((_, i) => keep[i]);
      expected = expected.filter((_, i) => keep[i]);
      positions = positions.filter((_, i) => keep[i]);
      continue;
    }
    const lintErrors = verified.lint?.findings.filter((f) => f.severity === 'error') ?? [];
    const added = lintErrors.length ? addIgnores(ignores, lintErrors) : false;
    if (added) continue;

    notes.push(...verified.notes);
    const difference = firstDifference(verified.model!, expected, attempt.defs);
    if (difference) throw new Error(`the imported spec does not reproduce the server's tools/list: ${difference} differs`);

    if (!toStdout) writeAtomically(target, shown, attempt.text, input.force);
    return report(input, {
      origin,
      shown,
      text: attempt.text,
      toStdout,
      tools: tools.map((t) => String(t['name'])),
      skipped: listing.tools.length - tools.length,
      hoisted: attempt.hoisted,
      ignores,
      pageSize: built.pageSize,
      pages: listing.pageSizes.length,
      notes,
      lintWarnings: verified.lint?.warnings ?? 0,
    });
  }
}

async function readListing(input: ImportInput, timeoutMs: number): Promise<Listing> {
  if (input.fromFile !== undefined) return listFromFile(path.resolve(input.cwd, input.fromFile), input.fromFile);
  let connect: typeof import('./connect.js');
  try {
    connect = await import('./connect.js');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || !String((e as Error).message).includes('@modelcontextprotocol/client')) throw e;
    throw new UserError(
      'import talks to servers through @modelcontextprotocol/client, which is not installed here\n  hint: reinstall toolspec (npm install --save-dev toolspec): it depends on it',
    );
  }
  const options = { timeoutMs, timeoutLabel: input.timeout, clientVersion: input.version };
  if (input.fromCommand !== undefined) return connect.listFromCommand(input.fromCommand, { cwd: input.cwd, env: input.env }, options);
  return connect.listFromUrl(input.fromUrl!, parseHeaders(input.headers), options);
}

function parseHeaders(list: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of list) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(h);
    if (!m) throw new UserError(`--header ${JSON.stringify(h)} is not "Name: value", e.g. --header "Authorization: Bearer <token>"`);
    headers[m[1]!] = m[2]!;
  }
  return headers;
}

function describeOrigin(input: ImportInput, listing: Listing): string {
  const info = listing.serverInfo;
  const id = info && typeof info['name'] === 'string' ? ` ${info['name']}${typeof info['version'] === 'string' ? ` ${info['version']}` : ''}` : '';
  if (input.fromFile !== undefined) return input.fromFile;
  return `the server${id}`;
}

function fileBaseName(file: string): string {
  const base = path.basename(file).replace(/\.[^.]*$/, '');
  return base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'imported-server';
}

interface LintIgnore {
  rule: string;
  tools: string[];
  reason: string;
}

/** Lint errors would make generate refuse the spec: each is kept as the server has it, with a suppression saying so. */
function addIgnores(ignores: LintIgnore[], findings: { rule: string; tools: string[] }[]): boolean {
  let added = false;
  for (const f of findings) {
    if (!f.tools.length) continue;
    let entry = ignores.find((e) => e.rule === f.rule);
    if (!entry) ignores.push((entry = { rule: f.rule, tools: [], reason: 'imported as the server defines it; review, then remove this entry' }));
    for (const t of f.tools) {
      if (!entry.tools.includes(t)) {
        entry.tools.push(t);
        added = true;
      }
    }
  }
  return added;
}

interface Attempt {
  text: string;
  verified: Verified;
  defs: Record<string, unknown>;
  hoisted: Hoisted[];
}

async function attemptSpec(a: {
  base: SpecData;
  tools: Record<string, unknown>[];
  positions: number[];
  ignores: LintIgnore[];
  hoist: boolean;
  pageSize?: number | undefined;
  schema: string;
}): Promise<Attempt> {
  const tools = structuredClone(a.tools);
  const { defs, hoisted } = a.hoist ? hoist(tools, new Set()) : { defs: {}, hoisted: [] };
  const options: Record<string, unknown> = { ...(a.base.options ?? {}) };
  if (a.ignores.length) options['lint'] = { ignore: a.ignores.map((e) => ({ rule: e.rule, tools: e.tools, reason: e.reason })) };
  const data: Record<string, unknown> = {
    toolspec: 1,
    server: a.base.server,
    ...(Object.keys(options).length ? { options } : {}),
    ...(hoisted.length ? { $defs: defs } : {}),
    tools,
  };
  const server = a.base.server;
  const header = [
    a.schema,
    '',
    `Imported from the MCP server ${commentSafe(server['name'])} ${commentSafe(server['version'])} with \`toolspec import\`. Edit it freely;`,
    '`toolspec generate` writes the server, and `toolspec check` keeps the handlers in line with it.',
  ];
  const text = specYaml(data, {
    header,
    ...(a.pageSize === undefined ? {} : { pageSizeNote: `the server sends its tools ${a.pageSize} per tools/list page` }),
  });
  const verified = await verifySpec(
    text,
    tools.map((t) => String(t['name'])),
    a.positions,
  );
  return { text, verified, defs, hoisted };
}

/** Text for a comment line: anything that could end the line (or hide in it) is shown as JSON escapes. */
function commentSafe(v: unknown): string {
  const s = String(v);
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s) ? JSON.stringify(s) : s;
}

/** A tool's error, when --skip-invalid leaves the tool out: a warning that still says why. */
function leftOut(n: ImportNote): ImportNote {
  return { ...n, severity: 'warning', message: `left out (--skip-invalid): ${n.message}` };
}

function formatNote(n: ImportNote): string {
  const who = n.tool === undefined ? '' : n.tool.startsWith('#') ? `tool ${n.tool}: ` : `tool ${JSON.stringify(n.tool)}: `;
  return `${n.severity}: ${who}${n.message}${n.hint ? `\n  hint: ${n.hint}` : ''}`;
}

function refuse(notes: ImportNote[], r: { total: number; bad: number; serverWide: boolean; skipping: boolean; format: 'text' | 'json' }): ImportResult {
  const lines = notes.map(formatNote);
  const { total, bad } = r;
  const summary = r.serverWide
    ? `toolspec: the spec would not be valid (see above); nothing was written${
        notes.some((n) => n.tool === undefined && n.message.includes('server.')) ? '\n  hint: --name and --server-version replace the name and version the server reports' : ''
      }`
    : r.skipping
      ? `toolspec: ${total === 1 ? 'the one tool cannot be imported as it is' : `none of the ${total} tools can be imported as they are`}; nothing was written`
      : `toolspec: ${bad} of ${total} tool${total === 1 ? '' : 's'} cannot be imported as ${bad === 1 ? 'it is' : 'they are'}; nothing was written\n` +
        `  hint: fix ${bad === 1 ? 'it' : 'them'} in the server, or pass --skip-invalid to import the other ${total - bad}`;
  const stdout = r.format === 'json' ? `${JSON.stringify({ ok: false, error: summary.replace(/^toolspec: /, ''), notes }, null, 2)}\n` : '';
  return { code: 2, stdout, stderr: `${[...lines, summary].join('\n')}\n` };
}

interface Summary {
  origin: string;
  shown: string;
  text: string;
  toStdout: boolean;
  tools: string[];
  skipped: number;
  hoisted: Hoisted[];
  ignores: LintIgnore[];
  pageSize?: number | undefined;
  pages: number;
  notes: ImportNote[];
  lintWarnings: number;
}

function report(input: ImportInput, s: Summary): ImportResult {
  const warnings = s.notes.filter((n) => n.severity === 'warning');
  if (input.format === 'json') {
    const json = {
      ok: true,
      out: s.toStdout ? null : s.shown,
      tools: s.tools,
      skipped: s.skipped,
      pages: s.pages,
      pageSize: s.pageSize ?? null,
      hoisted: s.hoisted,
      lintIgnores: s.ignores,
      notes: s.notes,
      lintWarnings: s.lintWarnings,
      ...(s.toStdout ? { spec: s.text } : {}),
    };
    return { code: 0, stdout: `${JSON.stringify(json, null, 2)}\n`, stderr: '' };
  }
  const err: string[] = warnings.map(formatNote);
  const out: string[] = [];
  const n = s.tools.length;
  const paging = s.pages > 1 ? ` (${s.pages} pages of tools/list; options.pageSize: ${s.pageSize} keeps the paging)` : '';
  const line = `${n} tool${n === 1 ? '' : 's'} from ${s.origin}${paging}`;
  if (s.toStdout) err.push(`imported ${line}`);
  else out.push(`${s.shown}: imported ${line}`);
  const say = s.toStdout ? err : out;
  if (s.hoisted.length) {
    say.push(`hoisted into $defs: ${s.hoisted.map((h) => `${h.name} (${h.tools.join(', ')})`).join('; ')}`);
  }
  for (const i of s.ignores) say.push(`kept as the server has it, with options.lint.ignore: ${i.rule} for ${i.tools.join(', ')}`);
  if (s.skipped) say.push(`left out: ${s.skipped} tool${s.skipped === 1 ? '' : 's'} toolspec cannot take (see the warnings)`);
  say.push(
    s.hoisted.length
      ? 'checked: generate sends the same tools with the same schemas; those with hoisted parts refer to $defs instead of writing them out'
      : `checked: generate sends exactly this tools/list${s.skipped ? ', less the tools left out' : ''}`,
  );
  if (s.lintWarnings) say.push(`lint: ${s.lintWarnings} warning${s.lintWarnings === 1 ? '' : 's'}; \`toolspec lint${s.toStdout ? '' : ` ${s.shown}`}\` lists them`);
  if (!s.toStdout) say.push(`next: toolspec generate${s.shown === 'toolspec.yaml' ? '' : ` ${s.shown}`}`);
  return { code: 0, stdout: s.toStdout ? s.text : `${out.join('\n')}\n`, stderr: err.length ? `${err.join('\n')}\n` : '' };
}
