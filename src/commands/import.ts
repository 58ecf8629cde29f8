/**
 * `toolspec import`: read an existing server's tools (a command started over stdio, a Streamable HTTP endpoint, or
 * a saved tools/list result), write a spec that reproduces them, and prove it before writing: the spec is loaded
 * and linted as generate would, and the manifest generate would send is compared with what the server sent.
 * Returns what to print and the exit code; the CLI prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/diagnostics.js';
import { parseDuration } from '../core/duration.js';
import { MAX_DEPTH } from '../pipeline/load/limits.js';
import { depthOf } from '../pipeline/load/source.js';
import { displayPath, packageVersion } from '../core/paths.js';
import { buildSpec, listFromFile, type ImportNote, type Listing } from '../import/build.js';
import { hoist } from '../import/hoist.js';
import { firstDifference, verifySpec } from '../import/verify.js';
import { checkTarget, writeAtomically } from '../import/write.js';
import { specYaml } from '../import/yaml.js';
import { plural, type CommandResult } from './result.js';

/** The options of `toolspec import` as the command line gives them (src/cli.ts). */
export interface ImportInput {
  fromCommand?: string;
  fromUrl?: string;
  fromFile?: string;
  /** The spec file to write; "-" prints it instead. */
  out: string;
  force?: boolean;
  hoist?: boolean;
  skipInvalid?: boolean;
  timeout: string;
  /** "Name: value" each, for --from-url. */
  header?: string[];
  name?: string;
  serverVersion?: string;
  format: 'text' | 'json';
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const IGNORE_REASON = 'imported as the server defines it; review, then remove this entry';
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

export async function importCommand(input: ImportInput): Promise<CommandResult> {
  try {
    return await run(input);
  } catch (e) {
    if (!(e instanceof UserError) || input.format !== 'json') throw e;
    return {
      code: 2,
      stdout: `${JSON.stringify({ ok: false, error: e.message }, null, 2)}\n`,
      stderr: `toolspec: ${e.message}\n`,
    };
  }
}

async function run(input: ImportInput): Promise<CommandResult> {
  const sources = [input.fromCommand, input.fromUrl, input.fromFile].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    throw new UserError(
      `${sources.length ? 'give only one of' : 'say where the tools come from:'} --from-command "<command>", --from-url <url> or --from-file <tools.json>`,
    );
  }
  const toStdout = input.out === '-';
  const target = path.resolve(input.cwd, input.out);
  const shown = toStdout ? 'the spec' : displayPath(target, input.cwd);
  if (!toStdout) checkTarget(target, shown, Boolean(input.force));
  const timeoutMs = parseDuration(input.timeout);
  if (timeoutMs === undefined)
    throw new UserError(
      `--timeout ${JSON.stringify(input.timeout)} is not a duration; write a whole number and a unit, e.g. 10s, 500ms or 2m`,
    );
  if (input.header && input.fromUrl === undefined) throw new UserError('--header applies to --from-url only');

  const { listing, deepNotes } = await readListing(input, timeoutMs);
  const origin = describeOrigin(input, listing);
  if (listing.tools.length === 0) {
    const why = listing.declaresTools
      ? 'lists no tools'
      : 'offers no tools (its initialize result declares no tools capability)';
    throw new UserError(`${origin} ${why}; there is nothing to import and nothing was written`);
  }

  const built = buildSpec({
    listing,
    name: input.name,
    version: input.serverVersion,
    fallbackName: input.fromFile ? fileBaseName(input.fromFile) : 'imported-server',
  });
  // Entries that are not tools at all cannot go into the spec; the others are checked first, so that every
  // problem is reported at once.
  const structural = built.notes.filter((n) => n.severity === 'error').length;
  const notes: ImportNote[] = [...deepNotes, ...built.notes].map((n) =>
    input.skipInvalid && n.severity === 'error' ? leftOut(n) : n,
  );
  const total = listing.tools.length;
  const { server, options: base, tools: all, ...primitives } = built.data;
  const header = [
    schemaComment(toStdout ? input.cwd : path.dirname(target)),
    '',
    `Imported from the MCP server ${commentSafe(server['name'])} ${commentSafe(server['version'])} with \`toolspec import\`. Edit it freely;`,
    '`toolspec generate` writes the server, and `toolspec check` keeps the handlers in line with it.',
  ];
  /** The tools tried, by their place in `all`; they go as one attempt fails for some of them. */
  let kept = all.map((_, i) => i);
  /** Lint errors would make generate refuse the spec: each is kept as the server has it, with a suppression saying so. */
  const ignores = new Map<string, Set<string>>();
  for (;;) {
    if (!kept.length) return refuse(notes, input.format, total, 'none');
    const originals = kept.map((i) => all[i]!);
    const tools = originals.map((t) => structuredClone(t));
    const { defs, hoisted } = input.hoist ? hoist(tools) : { defs: {}, hoisted: [] };
    const lintIgnores = [...ignores].map(([rule, names]) => ({ rule, tools: [...names], reason: IGNORE_REASON }));
    const options = { ...base, ...(lintIgnores.length ? { lint: { ignore: lintIgnores } } : {}) };
    const data = {
      toolspec: 1,
      server,
      ...(Object.keys(options).length ? { options } : {}),
      ...(hoisted.length ? { $defs: defs } : {}),
      tools,
      ...primitives,
    };
    const text = specYaml(data, header);
    const names = tools.map((t) => String(t['name']));
    const positions = kept.map((i) => built.positions[i]!);
    const verified = await verifySpec(text, names, positions);
    const errors = verified.notes.filter((n) => n.severity === 'error');
    if (errors.length || (structural && !input.skipInvalid)) {
      const serverWide = errors.some((n) => n.tool === undefined);
      if (!input.skipInvalid || serverWide || verified.failing.size === tools.length) {
        const why = serverWide ? 'server' : input.skipInvalid ? 'none' : verified.failing.size + structural;
        return refuse([...notes, ...verified.notes], input.format, total, why);
      }
      notes.push(...verified.notes.filter((n) => n.severity === 'error' && n.tool !== undefined).map(leftOut));
      kept = kept.filter((_, j) => !verified.failing.has(j));
      continue;
    }
    const lintErrors = verified.lint?.findings.filter((f) => f.severity === 'error') ?? [];
    const fresh = lintErrors.flatMap((f) =>
      f.tools.filter((t) => !ignores.get(f.rule)?.has(t)).map((t) => [f.rule, t] as const),
    );
    for (const [rule, t] of fresh) ignores.set(rule, (ignores.get(rule) ?? new Set()).add(t));
    if (fresh.length) continue;

    notes.push(...verified.notes);
    const difference = firstDifference(verified.model!, originals, defs);
    if (difference)
      throw new Error(`the imported spec does not reproduce the server's tools/list: ${difference} differs`);

    if (!toStdout) writeAtomically(target, shown, text, Boolean(input.force));
    const lintWarnings = verified.lint?.warnings ?? 0;
    const pages = listing.pageSizes.length;
    const skipped = total - tools.length;
    if (input.format === 'json') {
      const json = {
        ok: true,
        out: toStdout ? null : shown,
        tools: names,
        skipped,
        pages,
        pageSize: built.pageSize ?? null,
        hoisted,
        lintIgnores,
        notes,
        lintWarnings,
        ...(toStdout ? { spec: text } : {}),
      };
      return { code: 0, stdout: `${JSON.stringify(json, null, 2)}\n`, stderr: '' };
    }
    const err = notes.filter((n) => n.severity === 'warning').map(formatNote);
    const out: string[] = [];
    const paging =
      pages > 1 ? ` (${pages} pages of tools/list; options.pageSize: ${built.pageSize} keeps the paging)` : '';
    const line = `${plural(tools.length, 'tool')} from ${origin}${paging}`;
    const say = toStdout ? err : out;
    say.push(toStdout ? `imported ${line}` : `${shown}: imported ${line}`);
    if (hoisted.length)
      say.push(`hoisted into $defs: ${hoisted.map((h) => `${h.name} (${h.tools.join(', ')})`).join('; ')}`);
    for (const i of lintIgnores)
      say.push(`kept as the server has it, with options.lint.ignore: ${i.rule} for ${i.tools.join(', ')}`);
    if (skipped) say.push(`left out: ${plural(skipped, 'tool')} toolspec cannot take (see the warnings)`);
    say.push(
      hoisted.length
        ? 'checked: generate sends the same tools with the same schemas; those with hoisted parts refer to $defs instead of writing them out'
        : `checked: generate sends exactly this tools/list${skipped ? ', less the tools left out' : ''}`,
    );
    if (lintWarnings)
      say.push(`lint: ${plural(lintWarnings, 'warning')}; \`toolspec lint${toStdout ? '' : ` ${shown}`}\` lists them`);
    if (!toStdout) say.push(`next: toolspec generate${shown === 'toolspec.yaml' ? '' : ` ${shown}`}`);
    return {
      code: 0,
      stdout: toStdout ? text : `${out.join('\n')}\n`,
      stderr: err.length ? `${err.join('\n')}\n` : '',
    };
  }
}

/** The server's (or the file's) listing, less the tools nested too deep for a spec, which `deepNotes` name. */
async function readListing(
  input: ImportInput,
  timeoutMs: number,
): Promise<{ listing: Listing; deepNotes: ImportNote[] }> {
  const read = await listingOf(input, timeoutMs);
  // A schema nested past what a spec may hold cannot be written as one (and writing it would exhaust the stack).
  const tooDeep = read.tools.filter((t) => depthOf(t) > MAX_DEPTH - 3);
  const deepNotes: ImportNote[] = tooDeep.map((t) => ({
    severity: 'error',
    tool: toolLabel(t, read.tools.indexOf(t)),
    message: `nests more than ${MAX_DEPTH - 3} levels deep, more than a spec file may (${MAX_DEPTH} levels with the spec's own)`,
    hint: 'such a schema is surely generated by mistake; a deep one that is meant is written with $defs and $ref',
  }));
  if (tooDeep.length && !input.skipInvalid) {
    throw new UserError(
      `${deepNotes.map((n) => `tool ${JSON.stringify(n.tool)} ${n.message}`).join('\n')}\n  hint: ${deepNotes[0]!.hint}; --skip-invalid imports the other tools; nothing was written`,
    );
  }
  const listing = tooDeep.length ? { ...read, tools: read.tools.filter((t) => !tooDeep.includes(t)) } : read;
  return { listing, deepNotes };
}

async function listingOf(input: ImportInput, timeoutMs: number): Promise<Listing> {
  if (input.fromFile !== undefined) return listFromFile(path.resolve(input.cwd, input.fromFile), input.fromFile);
  let connect: typeof import('../import/connect.js');
  try {
    connect = await import('../import/connect.js');
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' ||
      !String((e as Error).message).includes('@modelcontextprotocol/client')
    )
      throw e;
    throw new UserError(
      'import talks to servers through @modelcontextprotocol/client, which is not installed here\n  hint: reinstall toolspec (npm install --save-dev toolspec): it depends on it',
    );
  }
  const options = { timeoutMs, timeoutLabel: input.timeout, clientVersion: packageVersion() };
  if (input.fromCommand !== undefined)
    return connect.listFromCommand(input.fromCommand, { cwd: input.cwd, env: input.env }, options);
  return connect.listFromUrl(input.fromUrl!, parseHeaders(input.header ?? []), options);
}

function parseHeaders(list: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of list) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(h);
    if (!m)
      throw new UserError(
        `--header ${JSON.stringify(h)} is not "Name: value", e.g. --header "Authorization: Bearer <token>"`,
      );
    headers[m[1]!] = m[2]!;
  }
  return headers;
}

function describeOrigin(input: ImportInput, listing: Listing): string {
  const info = listing.serverInfo;
  if (input.fromFile !== undefined) return input.fromFile;
  if (typeof info?.['name'] !== 'string') return 'the server';
  return `the server ${info['name']}${typeof info['version'] === 'string' ? ` ${info['version']}` : ''}`;
}

function fileBaseName(file: string): string {
  const base = path.basename(file).replace(/\.[^.]*$/, '');
  return base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'imported-server';
}

/** Text for a comment line: anything that could end the line (or hide in it) is shown as JSON escapes. */
function commentSafe(v: unknown): string {
  const s = String(v);
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s) ? JSON.stringify(s) : s;
}

/** How a note names a tool: its name, or its place when it has none. */
function toolLabel(tool: unknown, index: number): string {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : `#${index + 1}`;
}

/** A tool's error, when --skip-invalid leaves the tool out: a warning that still says why. */
function leftOut(n: ImportNote): ImportNote {
  return { ...n, severity: 'warning', message: `left out (--skip-invalid): ${n.message}` };
}

function formatNote(n: ImportNote): string {
  const tool = n.tool === undefined ? '' : `tool ${n.tool.startsWith('#') ? n.tool : JSON.stringify(n.tool)}: `;
  const who = n.about === undefined ? tool : `${n.about}: `;
  return `${n.severity}: ${who}${n.message}${n.hint ? `\n  hint: ${n.hint}` : ''}`;
}

/** Nothing is written, because of the spec as a whole (`server`), of every tool (`none`), or of this many tools. */
function refuse(notes: ImportNote[], format: string, total: number, why: 'server' | 'none' | number): CommandResult {
  const summary =
    why === 'server'
      ? `toolspec: the spec would not be valid (see above); nothing was written${
          notes.some((n) => n.tool === undefined && n.message.includes('server.'))
            ? '\n  hint: --name and --server-version replace the name and version the server reports'
            : ''
        }`
      : why === 'none'
        ? `toolspec: ${total === 1 ? 'the one tool cannot be imported as it is' : `none of the ${total} tools can be imported as they are`}; nothing was written`
        : `toolspec: ${why} of ${plural(total, 'tool')} cannot be imported as ${why === 1 ? 'it is' : 'they are'}; nothing was written\n` +
          `  hint: fix ${why === 1 ? 'it' : 'them'} in the server, or pass --skip-invalid to import the other ${total - why}`;
  const error = summary.replace(/^toolspec: /, '');
  const stdout = format === 'json' ? `${JSON.stringify({ ok: false, error, notes }, null, 2)}\n` : '';
  return { code: 2, stdout, stderr: `${[...notes.map(formatNote), summary].join('\n')}\n` };
}
