/**
 * `toolspec call <tool> [key=value … | --json '{…}']`: one tool run through the project's own handler and the
 * generated dispatcher, in this process, without a server or a build. The generated code comes from the spec as it
 * is now, generated in memory without the cache and never written (what runs is what the spec says, whatever the
 * disk or the cache hold); the project's TypeScript is transpiled into its cache folder (src/cache/run.ts) and
 * imported. So the
 * arguments are validated, defaults filled and the result checked exactly as the server would, by the same code.
 *
 * Exit codes: 0 the tool returned a result · 1 the result is an error (arguments the validator rejects, a handler
 * that throws or breaks its output schema) or the tool asked the client for input, which `call` cannot give ·
 * 2 usage: an unknown tool, unreadable arguments, an invalid spec, a handler that does not parse or is missing,
 * dependencies not installed · 3 internal error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { displayPath, isInside } from '../core/paths.js';
import { renderJson, renderTexts } from '../report/findings.js';
import { countSummary } from '../report/text.js';
import { argumentRows, ArgumentError, parseArguments } from '../run/arguments.js';
import { mirrorModules, notInstalled, runFolder, whyUnloadable } from '../cache/run.js';
import type { SubjectTool } from '../check/subject.js';
import { closest } from '../core/suggest.js';
import { compile } from '../compile.js';
import { EXIT, plural, type CommandResult, type Styles } from './result.js';

export interface CallInput {
  /** The tool to call; absent with --list (every tool). */
  tool?: string;
  /** key=value and key:=json pairs. */
  pairs: readonly string[];
  json?: string;
  list: boolean;
  spec: string;
  cwd: string;
  format: 'text' | 'json';
  style: Styles;
  /** Prints on stderr as it happens: the handler's log messages and progress, and the causes of its failures. */
  err: (text: string) => void;
  /** Get this prompt instead of calling a tool (`--prompt`): the pairs are its arguments. */
  prompt?: string;
  /** Read this resource URI instead of calling a tool (`--read`). */
  read?: string;
}

interface Project {
  rootDir: string;
  generatedDir: string;
  handlersDir: string;
  tools: SubjectTool[];
  /** The prompts' and resources' handler modules. */
  primitives?: { kind: 'prompt' | 'resource'; name: string; handler: string }[];
  /** The generated files by absolute path. */
  generated: Map<string, string>;
}

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: unknown;
}

const usage = (message: string): CommandResult => ({
  code: EXIT.invalid,
  stdout: '',
  stderr: `toolspec call: ${message}\n`,
});

export async function callCommand(input: CallInput): Promise<CommandResult> {
  const loaded = await loadProject(input);
  if ('code' in loaded) return loaded;
  const project = loaded;
  if (input.prompt !== undefined || input.read !== undefined) {
    if (input.prompt !== undefined && input.read !== undefined) return usage('--prompt and --read: give one of them');
    if (input.list) return usage('--list lists tools; `toolspec lint` shows the prompts and resources');
    const { callPrimitive } = await import('./call-primitive.js');
    // The first positional argument is a prompt argument here, not a tool.
    const pairs = input.tool === undefined ? input.pairs : [input.tool, ...input.pairs];
    return callPrimitive({ ...input, pairs }, project);
  }
  const manifestText = project.generated.get(path.join(project.generatedDir, 'manifest.json'));
  const listed = (JSON.parse(manifestText ?? '{"tools":[]}') as { tools: ListedTool[] }).tools;
  const names = listed.map((t) => t.name);

  if (input.tool !== undefined && !names.includes(input.tool)) {
    const near = closest(input.tool, names);
    return usage(
      `unknown tool ${JSON.stringify(input.tool)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''}` +
        ` (tools: ${names.join(', ') || 'none'}; \`toolspec call --list\` shows their arguments)`,
    );
  }
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
  if (!fs.existsSync(handler)) {
    return usage(
      `tool ${JSON.stringify(tool.name)} has no handler: ${displayPath(handler, input.cwd)} does not exist; \`toolspec generate\` writes its stub`,
    );
  }
  const cache = runFolder(project.rootDir);
  if (!cache) return usage(notInstalled(project.rootDir, input.cwd));

  const runtime = (name: string) => path.join(project.generatedDir, name);
  const registry = runtime('registry.ts');
  const mirror = await mirrorModules({
    entries: ['dispatcher.ts', 'context.ts', 'tools.ts', 'registry.ts'].map(runtime).concat(handler),
    overrides: project.generated,
    cacheDir: cache,
    // Only the called tool's handler: the others are loaded lazily by the registry and not needed here.
    skip: (from, to) => from === registry && isInside(project.handlersDir, to) && to !== handler,
  });
  const unloadable = whyUnloadable(mirror, input.cwd);
  if (unloadable) return { code: EXIT.invalid, stdout: '', stderr: unloadable };

  // Stack traces of the handler's failures point at its TypeScript source.
  process.setSourceMapsEnabled(true);
  const load = <T>(name: string) => import(pathToFileURL(mirror.outputOf(runtime(name))).href) as Promise<T>;
  const [dispatcherModule, contextModule, toolsModule, registryModule] = await Promise.all([
    load<DispatcherModule>('dispatcher.ts'),
    load<ContextModule>('context.ts'),
    load<ToolsModule>('tools.ts'),
    load<RegistryModule>('registry.ts'),
  ]);
  const dispatcher = dispatcherModule.createDispatcher({
    tools: toolsModule.tools,
    bindings: toolsModule.loadBindings,
    handlers: registryModule.handlers,
    timeouts: toolsModule.timeouts,
    // As the server logs them, on stderr.
    onError: (error, name) =>
      input.err(
        `[toolspec] tool "${name}" failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ),
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
  const result = await compile(input.spec, { cwd: input.cwd, emit: { stubs: () => false } });
  if (!result.model) {
    const stderr =
      input.format === 'text'
        ? `${renderTexts(result.diagnostics, input.style.err, result.sources)}\n\n${countSummary(result.diagnostics)} in ${input.spec}; nothing was called\n`
        : '';
    const stdout =
      input.format === 'json'
        ? `${JSON.stringify({ ok: false, diagnostics: result.diagnostics.map(renderJson) }, null, 2)}\n`
        : '';
    return { code: EXIT.invalid, stdout, stderr };
  }
  const { subjectOf } = await import('../check/subject.js');
  const files = result.output!;
  const subject = subjectOf(result.model);
  const generated = new Map(
    files.filter((f) => f.kind === 'generated').map((f) => [path.resolve(result.model!.rootDir, f.path), f.contents]),
  );
  return { ...subject, generated };
}

// The generated modules, as far as call uses them (they are the project's copies of templates/runtime/).
interface LocalRequest {
  _meta?: Record<string, unknown>;
  notify: (n: { method: string; params?: unknown }) => Promise<void>;
  log: (level: string, data: unknown, logger?: string) => Promise<void>;
}
interface DispatcherModule {
  createDispatcher(options: {
    tools: readonly unknown[];
    bindings: unknown;
    handlers: unknown;
    timeouts: unknown;
    onError: (error: unknown, tool: string) => void;
  }): { callTool(name: string, args: unknown, sdk: unknown, connection: unknown): Promise<CallResult> };
}
interface ContextModule {
  localRequest(): { sdk: unknown; connection: unknown };
}
interface ToolsModule {
  tools: readonly unknown[];
  loadBindings: unknown;
  timeouts: unknown;
}
interface RegistryModule {
  handlers: unknown;
}

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
  if (format === 'json') return { code, stdout: `${JSON.stringify(result, null, 2)}\n`, stderr: '' };
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
  if (result.structuredContent !== undefined)
    return { code, stdout: `${JSON.stringify(result.structuredContent, null, 2)}\n`, stderr: '' };
  return { code, stdout: blocks.length ? `${blocks.map(describeBlock).join('\n')}\n` : '', stderr: '' };
}

/** A content block for a terminal: text as it is, the rest as one line that says what it is. */
function describeBlock(b: Block): string {
  if (b.type === 'text') return String(b['text']);
  const size = (data: unknown) =>
    typeof data === 'string' ? `, ${plural(Math.floor((data.length * 3) / 4), 'byte')}` : '';
  if (b.type === 'image' || b.type === 'audio') return `[${b.type} ${String(b['mimeType'])}${size(b['data'])}]`;
  if (b.type === 'resource_link') return `[resource link ${String(b['uri'])}]`;
  if (b.type === 'resource') {
    const r = (b['resource'] ?? {}) as { uri?: string; text?: string; blob?: string };
    return typeof r.text === 'string' ? r.text : `[resource ${r.uri}${size(r.blob)}]`;
  }
  return JSON.stringify(b);
}

/** `call --list`: each tool, then one line per argument (name, type, required or default, description). */
function formatList(tools: readonly ListedTool[], format: 'text' | 'json'): string {
  if (format === 'json') {
    const rows = tools.map((t) => ({
      name: t.name,
      description: t.description,
      arguments: argumentRows(t.inputSchema),
    }));
    return `${JSON.stringify(rows, null, 2)}\n`;
  }
  const out: string[] = [];
  for (const t of tools) {
    const summary = (t.description ?? t.title ?? '').split('\n', 1)[0];
    out.push(summary ? `${t.name} — ${summary}` : t.name);
    const rows = argumentRows(t.inputSchema);
    if (!rows.length) out.push('  (no arguments)');
    const width = (f: (r: (typeof rows)[number]) => string) => Math.max(...rows.map((r) => f(r).length));
    const need = (r: (typeof rows)[number]) =>
      r.required ? 'required' : r.default !== undefined ? `default ${JSON.stringify(r.default)}` : 'optional';
    const w = [width((r) => r.name), width((r) => r.type), width(need)];
    for (const r of rows) {
      const line = `  ${r.name.padEnd(w[0]!)}  ${r.type.padEnd(w[1]!)}  ${need(r).padEnd(w[2]!)}  ${r.description ?? ''}`;
      out.push(line.trimEnd());
    }
  }
  return `${out.join('\n')}\n`;
}
