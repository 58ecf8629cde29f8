/**
 * `toolspec call --prompt <name> [key=value …]` and `toolspec call --read <uri>`: one prompt got, or one resource
 * read, through the project's handlers and the generated runtime (prompts.ts, resources.ts), in this process, as
 * the server would: arguments checked, URIs matched against the templates, results normalised.
 *
 * Exit codes: 0 a result · 1 the handler failed, the resource is not found, or the handler asked for input ·
 * 2 usage: an unknown prompt, arguments the prompt refuses, unreadable arguments, handlers that cannot be loaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { displayPath, isInside } from '../core/paths.js';
import { mirrorModules, notInstalled, runFolder, whyUnloadable } from '../cache/run.js';
import { closest } from '../core/suggest.js';
import { EXIT, type CommandResult } from './result.js';

export interface PrimitiveCall {
  prompt?: string;
  read?: string;
  /** key=value pairs (prompt arguments are strings). */
  pairs: readonly string[];
  json?: string;
  cwd: string;
  format: 'text' | 'json';
  err: (text: string) => void;
}

export interface PrimitiveProject {
  rootDir: string;
  generatedDir: string;
  handlersDir: string;
  primitives?: { kind: 'prompt' | 'resource'; name: string; handler: string }[];
  generated: Map<string, string>;
}

const usage = (message: string): CommandResult => ({
  code: EXIT.invalid,
  stdout: '',
  stderr: `toolspec call: ${message}\n`,
});

export async function callPrimitive(input: PrimitiveCall, project: PrimitiveProject): Promise<CommandResult> {
  const items = project.primitives ?? [];
  const kind = input.prompt !== undefined ? 'prompt' : 'resource';
  let args: Record<string, string> = {};
  if (kind === 'prompt') {
    const names = items.filter((i) => i.kind === 'prompt').map((i) => i.name);
    if (!names.includes(input.prompt!)) {
      const near = closest(input.prompt!, names);
      return usage(
        `unknown prompt ${JSON.stringify(input.prompt)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (prompts: ${names.join(', ') || 'none'})`,
      );
    }
    try {
      args = promptArguments(input.pairs, input.json);
    } catch (e) {
      return usage((e as Error).message);
    }
  } else if (input.pairs.length || input.json !== undefined) {
    return usage('--read takes a URI and no arguments: the URI carries the template variables');
  }
  // The handlers this call may reach: the prompt's own, or every resource's (the URI picks one).
  const wanted = items.filter((i) =>
    kind === 'prompt' ? i.kind === 'prompt' && i.name === input.prompt : i.kind === 'resource',
  );
  const missing = wanted.filter((i) => !fs.existsSync(i.handler));
  if (kind === 'prompt' && missing.length)
    return usage(
      `prompt ${JSON.stringify(input.prompt)} has no handler: ${displayPath(missing[0]!.handler, input.cwd)} does not exist; \`toolspec generate\` writes its stub`,
    );
  const cache = runFolder(project.rootDir);
  if (!cache) return usage(notInstalled(project.rootDir, input.cwd));
  const runtime = (name: string) => path.join(project.generatedDir, name);
  const table = runtime('primitives.ts');
  const reachable = new Set(wanted.filter((i) => fs.existsSync(i.handler)).map((i) => i.handler));
  const mirror = await mirrorModules({
    entries: [kind === 'prompt' ? 'prompts.ts' : 'resources.ts', 'context.ts', 'primitives.ts']
      .map(runtime)
      .concat([...reachable]),
    overrides: project.generated,
    cacheDir: cache,
    skip: (from, to) => from === table && isInside(project.handlersDir, to) && !reachable.has(to),
  });
  const unloadable = whyUnloadable(mirror, input.cwd);
  if (unloadable) return { code: EXIT.invalid, stdout: '', stderr: unloadable };
  process.setSourceMapsEnabled(true);
  const load = <T>(name: string) => import(pathToFileURL(mirror.outputOf(runtime(name))).href) as Promise<T>;
  const [tables, context] = await Promise.all([load<Tables>('primitives.ts'), load<ContextModule>('context.ts')]);
  const { sdk, connection } = context.localRequest();
  const onError = (error: unknown, name: string) =>
    input.err(
      `[toolspec] ${kind} "${name}" failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  let result: { resultType?: string; [key: string]: unknown };
  try {
    if (kind === 'prompt') {
      const { createPrompts } = await load<PromptsModule>('prompts.ts');
      result = await createPrompts(tables.prompts, tables.promptRules, tables.promptModules, { onError }).get(
        input.prompt,
        args,
        sdk,
        connection,
      );
    } else {
      const { createResources } = await load<ResourcesModule>('resources.ts');
      result = await createResources(
        tables.resources,
        tables.resourceTemplates,
        tables.resourceRules,
        tables.resourceModules,
        { onError },
      ).read(input.read, sdk, connection);
    }
  } catch (e) {
    const error = e as { code?: number; message?: string };
    // -32602: the prompt refused its arguments (usage), or the resource is not found (a result: exit 1).
    const notFound = kind === 'resource' && error.code === -32602;
    return {
      code: notFound || error.code !== -32602 ? 1 : EXIT.invalid,
      stdout:
        input.format === 'json'
          ? `${JSON.stringify({ error: { code: error.code, message: error.message } }, null, 2)}\n`
          : '',
      stderr: input.format === 'json' ? '' : `toolspec call: ${error.message ?? String(e)}\n`,
    };
  }
  if (result.resultType === 'input_required')
    return {
      code: 1,
      stdout: input.format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : '',
      stderr: `toolspec call: ${kind} asked the client for input, and call has no client to answer\n`,
    };
  if (input.format === 'json') return { code: EXIT.ok, stdout: `${JSON.stringify(result, null, 2)}\n`, stderr: '' };
  return { code: EXIT.ok, stdout: `${kind === 'prompt' ? promptText(result) : resourceText(result)}\n`, stderr: '' };
}

function promptArguments(pairs: readonly string[], json: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error('--json is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('--json must be an object of strings');
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== 'string')
        throw new Error(`--json: prompt arguments are strings, and ${JSON.stringify(k)} is not`);
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`${JSON.stringify(pair)} is not key=value`);
    Object.defineProperty(out, pair.slice(0, eq), {
      value: pair.slice(eq + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
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

interface Tables {
  prompts: readonly unknown[];
  resources: readonly unknown[];
  resourceTemplates: readonly unknown[];
  promptRules: unknown;
  resourceRules: readonly unknown[];
  promptModules: unknown;
  resourceModules: unknown;
}
interface ContextModule {
  localRequest(): { sdk: unknown; connection: unknown };
}
interface PromptsModule {
  createPrompts(
    prompts: readonly unknown[],
    rules: unknown,
    modules: unknown,
    options: { onError: (e: unknown, n: string) => void },
  ): { get(name: unknown, args: unknown, sdk: unknown, connection: unknown): Promise<Record<string, unknown>> };
}
interface ResourcesModule {
  createResources(
    resources: readonly unknown[],
    templates: readonly unknown[],
    rules: readonly unknown[],
    modules: unknown,
    options: { onError: (e: unknown, n: string) => void },
  ): { read(uri: unknown, sdk: unknown, connection: unknown): Promise<Record<string, unknown>> };
}
