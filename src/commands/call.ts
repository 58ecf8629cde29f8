/**
 * `toolspec call <tool> [key=value … | --json '{…}']`: one tool run through the project's own handler and the
 * generated dispatcher, in this process, without a server or a build; `--prompt <name>` gets one prompt and
 * `--read <uri>` reads one resource the same way, through the generated prompts.ts and resources.ts (arguments
 * checked, URIs matched against the templates, results normalised). The generated code comes from the spec as it
 * is now, generated in memory without the cache and never written (what runs is what the spec says, whatever the
 * disk or the cache hold); the project's TypeScript is transpiled into its cache folder (src/cache/run.ts) and
 * imported. So the arguments are validated, defaults filled and the result checked exactly as the server would, by
 * the same code. Exit codes: `toolspec call --help`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { displayPath, isInside } from '../core/paths.js';
import { renderJson, renderTexts } from '../report/findings.js';
import { countSummary } from '../report/text.js';
import { argumentRows, ArgumentError, parseArguments, promptArguments } from '../run/arguments.js';
import { mirrorModules, notInstalled, runFolder, whyUnloadable } from '../cache/run.js';
import type { CheckSubject } from '../check/subject.js';
import { closest } from '../core/suggest.js';
import { compile } from '../compile.js';
import type { ToolDefinition } from '../pipeline/model.js';
import { EXIT, invalid, plural, type CommandResult, type Styles } from './result.js';

/** The options of `toolspec call` as the command line gives them (src/cli.ts), and its arguments. */
export interface CallInput {
  json?: string;
  list?: boolean;
  format: 'text' | 'json';
  /** Get this prompt instead of calling a tool: the pairs are its arguments. */
  prompt?: string;
  /** Read this resource URI instead of calling a tool. */
  read?: string;
  /** The tool to call; absent with --list (every tool). */
  tool?: string | undefined;
  /** key=value and key:=json pairs. */
  pairs: readonly string[];
  spec: string;
  cwd: string;
  style: Styles;
  /** Prints on stderr as it happens: the handler's log messages and progress, and the causes of its failures. */
  err: (text: string) => void;
}

/** The project's folders and handlers, and the generated files by absolute path. */
type Project = CheckSubject & { generated: Map<string, string> };

const usage = (message: string) => invalid(`toolspec call: ${message}\n`);
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** An unknown tool's or prompt's message, with the closest name and the ones there are. */
function unknownName(kind: string, name: string, names: string[], more = ''): CommandResult {
  const near = closest(name, names);
  return usage(
    `unknown ${kind} ${JSON.stringify(name)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (${kind}s: ${names.join(', ') || 'none'}${more})`,
  );
}

const noHandler = (kind: string, name: string, handler: string, cwd: string) =>
  usage(
    `${kind} ${JSON.stringify(name)} has no handler: ${displayPath(handler, cwd)} does not exist; \`toolspec generate\` writes its stub`,
  );

/** As the server logs a handler's failure, on stderr. */
const logFailure = (input: CallInput, kind: string) => (error: unknown, name: string) =>
  input.err(
    `[toolspec] ${kind} "${name}" failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );

export async function callCommand(input: CallInput): Promise<CommandResult> {
  const project = await loadProject(input);
  if ('code' in project) return project;
  if (input.prompt !== undefined || input.read !== undefined) {
    if (input.prompt !== undefined && input.read !== undefined) return usage('--prompt and --read: give one of them');
    if (input.list) return usage('--list lists tools; `toolspec lint` shows the prompts and resources');
    // The first positional argument is a prompt argument here, not a tool.
    const pairs = input.tool === undefined ? input.pairs : [input.tool, ...input.pairs];
    return callPrimitive({ ...input, pairs }, project);
  }
  const manifestText = project.generated.get(path.join(project.generatedDir, 'manifest.json'));
  const listed = (JSON.parse(manifestText ?? '{"tools":[]}') as { tools: ToolDefinition[] }).tools;
  const names = listed.map((t) => t.name);

  if (input.tool !== undefined && !names.includes(input.tool))
    return unknownName('tool', input.tool, names, '; `toolspec call --list` shows their arguments');
  if (input.list) {
    const shown = input.tool === undefined ? listed : listed.filter((t) => t.name === input.tool);
    return { code: EXIT.ok, stdout: formatList(shown, input.format), stderr: '' };
  }
  if (input.tool === undefined) {
    return usage(
      `name the tool to call: toolspec call <tool> [key=value …]. Tools: ${names.join(', ') || 'none'}; --list shows their arguments`,
    );
  }
  const tool = listed.find((t) => t.name === input.tool)!;
  let args: Record<string, unknown>;
  try {
    args = parseArguments(input.pairs, input.json, tool.inputSchema);
  } catch (e) {
    if (e instanceof ArgumentError) return usage(e.message);
    throw e;
  }

  const handler = project.tools.find((t) => t.name === tool.name)!.handler;
  if (!fs.existsSync(handler)) return noHandler('tool', tool.name, handler, input.cwd);
  // Only the called tool's handler: the others are loaded lazily by the registry and not needed here.
  const load = await loadRuntime(project, input, ['dispatcher.ts', 'context.ts', 'tools.ts', 'registry.ts'], [handler]);
  if (typeof load !== 'function') return load;
  const [dispatcherModule, contextModule, toolsModule, registryModule] = await Promise.all([
    load<DispatcherModule>('dispatcher.ts'),
    load<ContextModule>('context.ts'),
    load('tools.ts'),
    load('registry.ts'),
  ]);
  const dispatcher = dispatcherModule.createDispatcher({
    tools: toolsModule.tools,
    bindings: toolsModule.loadBindings,
    handlers: registryModule.handlers,
    timeouts: toolsModule.timeouts,
    onError: logFailure(input, 'tool'),
  });
  const { sdk, connection } = contextModule.localRequest();
  const req = (sdk as unknown as { mcpReq: LocalRequest }).mcpReq;
  // No client: progress and the handler's log messages are printed, all levels.
  req._meta = { progressToken: 'toolspec-call' };
  req.notify = async (n) => {
    if (n.method !== 'notifications/progress') return;
    const p = n.params as { progress: number; total?: number; message?: string };
    input.err(`progress ${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message ? ` ${p.message}` : ''}`);
  };
  req.log = async (level, data, logger) =>
    input.err(`log ${level}${logger ? ` ${logger}` : ''}: ${typeof data === 'string' ? data : JSON.stringify(data)}`);

  const result = await dispatcher.callTool(tool.name, args, sdk, connection);
  return formatResult(tool.name, result, input.format);
}

async function loadProject(input: CallInput): Promise<Project | CommandResult> {
  // Generated in memory from the spec, no cache: what runs is what the spec says. No stubs: a missing handler is reported.
  const result = await compile(input.spec, { cwd: input.cwd, stubs: () => false });
  if (!result.model) {
    const stderr =
      input.format === 'text'
        ? `${renderTexts(result.diagnostics, input.style.err, result.sources)}\n\n${countSummary(result.diagnostics)} in ${input.spec}; nothing was called\n`
        : '';
    const stdout = input.format === 'json' ? json({ ok: false, diagnostics: result.diagnostics.map(renderJson) }) : '';
    return { code: EXIT.invalid, stdout, stderr };
  }
  const { subjectOf } = await import('../check/subject.js');
  const { rootDir } = result.model;
  const generated = result.output!.filter((f) => f.kind === 'generated');
  return {
    ...subjectOf(result.model),
    generated: new Map(generated.map((f) => [path.resolve(rootDir, f.path), f.contents])),
  };
}

/**
 * The generated modules `names` (the last one the table that imports the handlers) and the handlers `handlers`
 * transpiled into the cache folder, and a loader of them; or why they cannot be loaded (exit 2). The table's other
 * handlers are left out: the call cannot reach them.
 */
async function loadRuntime(
  project: Project,
  input: CallInput,
  names: string[],
  handlers: string[],
): Promise<CommandResult | (<T = Record<string, unknown>>(name: string) => Promise<T>)> {
  const cache = runFolder(project.rootDir);
  if (!cache) return usage(notInstalled(project.rootDir, input.cwd));
  const runtime = (name: string) => path.join(project.generatedDir, name);
  const table = runtime(names.at(-1)!);
  const mirror = await mirrorModules({
    entries: names.map(runtime).concat(handlers),
    overrides: project.generated,
    cacheDir: cache,
    skip: (from, to) => from === table && isInside(project.handlersDir, to) && !handlers.includes(to),
  });
  const unloadable = whyUnloadable(mirror, input.cwd);
  if (unloadable) return invalid(unloadable);
  // Stack traces of the handler's failures point at its TypeScript source.
  process.setSourceMapsEnabled(true);
  return <T>(name: string) => import(pathToFileURL(mirror.outputOf(runtime(name))).href) as Promise<T>;
}

/** How call reaches a prompt or a resource through its generated module: the factory, the tables it takes, the method. */
const PRIMITIVES = {
  prompt: ['createPrompts', ['prompts', 'promptRules', 'promptModules'], 'get'],
  resource: ['createResources', ['resources', 'resourceTemplates', 'resourceRules', 'resourceModules'], 'read'],
} as const;

/** `--prompt` and `--read`: one prompt got or one resource read, as the server would. */
async function callPrimitive(input: CallInput, project: Project): Promise<CommandResult> {
  const { prompt } = input;
  const kind = prompt !== undefined ? 'prompt' : 'resource';
  let args: Record<string, string> = {};
  if (prompt !== undefined) {
    const names = project.primitives.filter((i) => i.kind === 'prompt').map((i) => i.name);
    if (!names.includes(prompt)) return unknownName('prompt', prompt, names);
    try {
      args = promptArguments(input.pairs, input.json);
    } catch (e) {
      return usage((e as Error).message);
    }
  } else if (input.pairs.length || input.json !== undefined) {
    return usage('--read takes a URI and no arguments: the URI carries the template variables');
  }
  // The handlers this call may reach: the prompt's own, or every resource's (the URI picks one).
  const wanted = project.primitives.filter((i) => i.kind === kind && (prompt === undefined || i.name === prompt));
  const reachable = [...new Set(wanted.map((i) => i.handler).filter((h) => fs.existsSync(h)))];
  if (prompt !== undefined && !reachable.length) return noHandler('prompt', prompt, wanted[0]!.handler, input.cwd);
  const module = `${kind}s.ts`;
  const load = await loadRuntime(project, input, [module, 'context.ts', 'primitives.ts'], reachable);
  if (typeof load !== 'function') return load;
  const [t, context] = await Promise.all([load('primitives.ts'), load<ContextModule>('context.ts')]);
  const { sdk, connection } = context.localRequest();
  const options = { onError: logFailure(input, kind) };
  let result: { resultType?: string; [key: string]: unknown };
  try {
    const [factory, tables, method] = PRIMITIVES[kind];
    const runtime = await load<Record<string, Fn<Record<'get' | 'read', Fn<Result>>>>>(module);
    const served = runtime[factory]!(...tables.map((k) => t[k]), options);
    result = await served[method](...(prompt !== undefined ? [prompt, args] : [input.read]), sdk, connection);
  } catch (e) {
    const error = e as { code?: number; message?: string };
    // -32602: the prompt refused its arguments (usage), or the resource is not found (a result: exit 1).
    return {
      code: kind === 'prompt' && error.code === -32602 ? EXIT.invalid : 1,
      stdout: input.format === 'json' ? json({ error: { code: error.code, message: error.message } }) : '',
      stderr: input.format === 'json' ? '' : `toolspec call: ${error.message ?? String(e)}\n`,
    };
  }
  if (result.resultType === 'input_required')
    return {
      code: 1,
      stdout: input.format === 'json' ? json(result) : '',
      stderr: `toolspec call: ${kind} asked the client for input, and call has no client to answer\n`,
    };
  if (input.format === 'json') return { code: EXIT.ok, stdout: json(result), stderr: '' };
  return { code: EXIT.ok, stdout: `${(prompt !== undefined ? promptText : resourceText)(result)}\n`, stderr: '' };
}

// The generated modules, as far as call uses them (they are the project's copies of templates/runtime/).
type Fn<R = unknown> = (...args: unknown[]) => R;
interface LocalRequest {
  _meta?: Record<string, unknown>;
  notify: (n: { method: string; params?: unknown }) => Promise<void>;
  log: (level: string, data: unknown, logger?: string) => Promise<void>;
}
interface DispatcherModule {
  createDispatcher(options: Record<string, unknown>): { callTool: Fn<Promise<CallResult>> };
}
interface ContextModule {
  localRequest(): { sdk: unknown; connection: unknown };
}
type Result = Promise<Record<string, unknown>>;

type Block = { type: string; [key: string]: unknown };
interface CallResult {
  content?: Block[];
  structuredContent?: unknown;
  isError?: boolean;
  resultType?: string;
  inputRequests?: Record<string, { method?: string; params?: { message?: string } }>;
}

function formatResult(name: string, result: CallResult, format: 'text' | 'json'): CommandResult {
  const asked = result.resultType === 'input_required';
  // The tool's result is an error, or it asked for input: exit 1, as a check that found something.
  const code = asked || result.isError ? EXIT.failed : EXIT.ok;
  if (format === 'json') return { code, stdout: json(result), stderr: '' };
  if (asked) {
    const questions = Object.entries(result.inputRequests ?? {}).map(
      ([key, r]) =>
        `  ${key}: ${r.method ?? 'a request'}${r.params?.message ? ` ${JSON.stringify(r.params.message)}` : ''}`,
    );
    return {
      code,
      stdout: '',
      stderr:
        `toolspec call: tool ${JSON.stringify(name)} asked the client for input, and call has no client to answer:\n${questions.join('\n')}\n` +
        'Call it from an MCP client (toolspec dev serves the project over HTTP), or give it answers in a contract test.\n',
    };
  }
  const blocks = result.content ?? [];
  if (result.isError) return { code, stdout: '', stderr: `${blocks.map(describeBlock).join('\n')}\n` };
  if (result.structuredContent !== undefined) return { code, stdout: json(result.structuredContent), stderr: '' };
  return { code, stdout: blocks.length ? `${blocks.map(describeBlock).join('\n')}\n` : '', stderr: '' };
}

const size = (data: unknown) =>
  typeof data === 'string' ? `, ${plural(Math.floor((data.length * 3) / 4), 'byte')}` : '';

/** A content block for a terminal: text as it is, the rest as one line that says what it is. */
function describeBlock(b: Block): string {
  if (b.type === 'text') return String(b['text']);
  if (b.type === 'image' || b.type === 'audio') return `[${b.type} ${String(b['mimeType'])}${size(b['data'])}]`;
  if (b.type === 'resource_link') return `[resource link ${String(b['uri'])}]`;
  if (b.type === 'resource') {
    const r = (b['resource'] ?? {}) as { uri?: string; text?: string; blob?: string };
    return typeof r.text === 'string' ? r.text : `[resource ${r.uri}${size(r.blob)}]`;
  }
  return JSON.stringify(b);
}

function promptText(result: Record<string, unknown>): string {
  const messages = (result['messages'] ?? []) as {
    role: string;
    content: { type: string; text?: string; [k: string]: unknown };
  }[];
  return messages
    .map((m) => {
      const c = m.content;
      const body =
        c.type === 'text'
          ? String(c.text)
          : c.type === 'resource'
            ? `[resource ${String((c['resource'] as { uri?: string } | undefined)?.uri)}]`
            : `[${c.type}${typeof c['mimeType'] === 'string' ? ` ${c['mimeType']}` : ''}]`;
      return `${m.role}: ${body}`;
    })
    .join('\n');
}

function resourceText(result: Record<string, unknown>): string {
  const contents = (result['contents'] ?? []) as { uri: string; text?: string; blob?: string; mimeType?: string }[];
  return contents
    .map((c) =>
      typeof c.text === 'string'
        ? c.text
        : `[${c.mimeType ?? 'binary'} ${c.uri}, ${Math.floor(((c.blob ?? '').length * 3) / 4)} bytes]`,
    )
    .join('\n');
}

/** `call --list`: each tool, then one line per argument (name, type, required or default, description). */
function formatList(tools: readonly ToolDefinition[], format: 'text' | 'json'): string {
  if (format === 'json') {
    return json(
      tools.map((t) => ({ name: t.name, description: t.description, arguments: argumentRows(t.inputSchema) })),
    );
  }
  const out: string[] = [];
  for (const t of tools) {
    const summary = (t.description ?? t.title ?? '').split('\n', 1)[0];
    out.push(summary ? `${t.name} — ${summary}` : t.name);
    const rows = argumentRows(t.inputSchema);
    if (!rows.length) out.push('  (no arguments)');
    const need = (r: (typeof rows)[number]) =>
      r.required ? 'required' : r.default !== undefined ? `default ${JSON.stringify(r.default)}` : 'optional';
    // Columns as wide as their widest cell; the padding of the last one is trimmed away.
    const cells = rows.map((r) => [r.name, r.type, need(r), r.description ?? '']);
    const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i]!.length)));
    for (const c of cells) out.push(`  ${c.map((x, i) => x.padEnd(widths[i]!)).join('  ')}`.trimEnd());
  }
  return `${out.join('\n')}\n`;
}
