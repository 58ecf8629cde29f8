/**
 * Reading a running server: connect with the SDK's v2 Client (over a child process's stdio, or Streamable HTTP) on
 * whichever era the server speaks (it probes with 2026-07-28's server/discover and falls back to the 2025
 * initialize), and page through tools/list. Tools are kept exactly as the server sent them: the result is read
 * with a schema that accepts anything, so nothing is stripped, defaulted or refused on the way. Every failure
 * becomes a UserError that says what happened and what to try.
 */
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { UserError } from '../core/diagnostics.js';
import { isObject } from '../pipeline/schema/keywords.js';
import { MAX_TOOLS } from '../pipeline/load/limits.js';
import type { Listing } from './build.js';
import { ChildProcessTransport, MAX_OUTPUT_BYTES, splitCommand } from './stdio.js';

/** How long the era probe waits before trying the 2025 handshake. */
const PROBE_TIMEOUT_MS = 3_000;

export interface ConnectOptions {
  /** Limit for starting up and answering initialize, and for each tools/list page, in milliseconds. */
  timeoutMs: number;
  /** The same, as the user wrote it ("30s"), for messages. */
  timeoutLabel: string;
  /** The version toolspec reports as the client's. */
  clientVersion: string;
}

/** Pages of tools/list beyond this are taken as a server whose cursor never ends. */
const MAX_PAGES = 10_000;

/** Starts `commandLine` (no shell), reads its tools, and stops it again, whatever happens. */
export async function listFromCommand(
  commandLine: string,
  child: { cwd: string; env: NodeJS.ProcessEnv },
  options: ConnectOptions,
): Promise<Listing> {
  const [command, ...args] = splitCommand(commandLine);
  if (!command)
    throw new UserError(
      '--from-command is empty: give the command that starts the server, e.g. --from-command "node build/index.js"',
    );
  const shown = JSON.stringify(commandLine);
  const attempt = async (legacy: boolean) => {
    const transport = new ChildProcessTransport(command, args, child);
    let hung = false;
    try {
      return await read(transport, options, `the server ${shown}`, legacy, (error, phase) => {
        if (transport.spawnError) return spawnFailure(transport.spawnError, command, commandLine);
        if (isTimeout(error)) hung = true;
        // Some 2025 servers end on any request before initialize (the era probe): start them again, legacy.
        if (!legacy && phase === 'initialize' && transport.exit && !transport.badOutput) return RETRY;
        return childFailure(error, phase, transport, shown, options.timeoutLabel);
      });
    } finally {
      await transport.close(hung ? 0 : 1000);
    }
  };
  try {
    return await attempt(false);
  } catch (e) {
    if (e !== RETRY) throw e;
    return attempt(true);
  }
}

/** Thrown by a first stdio attempt whose server ended on the era probe. */
const RETRY = new UserError('retry');

/** Connects to a Streamable HTTP endpoint, reads its tools, and ends the session. */
export async function listFromUrl(
  url: string,
  headers: Record<string, string>,
  options: ConnectOptions,
): Promise<Listing> {
  if (!URL.canParse(url))
    throw new UserError(
      `--from-url ${JSON.stringify(url)} is not a URL; give the server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp`,
    );
  const endpoint = new URL(url);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new UserError(
      `--from-url ${JSON.stringify(url)} must be an http: or https: URL of a Streamable HTTP endpoint`,
    );
  }
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers }, fetch: boundedFetch });
  const shown = `${endpoint.origin}${endpoint.pathname}`;
  try {
    return await read(transport, options, `the server at ${shown}`, false, (error, phase) =>
      httpFailure(error, phase, shown, options.timeoutLabel),
    );
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}

/** fetch whose response bodies end in an error past MAX_OUTPUT_BYTES: an endless body cannot fill memory. */
const boundedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!response.body) return response;
  let bytes = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > MAX_OUTPUT_BYTES)
          controller.error(
            new Error(`the server sent more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB in one response`),
          );
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};

/** A result schema that takes the server's answer as it is (Standard Schema, the SDK's request() takes one). */
const AS_SENT = {
  '~standard': { version: 1, vendor: 'toolspec', validate: (value: unknown) => ({ value }) },
} as const;

const isMethodNotFound = (e: unknown): e is ProtocolError =>
  e instanceof ProtocolError && e.code === ProtocolErrorCode.MethodNotFound;

async function read(
  transport: Transport,
  options: ConnectOptions,
  who: string,
  legacy: boolean,
  describe: (error: unknown, phase: string) => UserError,
): Promise<Listing> {
  const client = new Client(
    { name: 'toolspec-import', version: options.clientVersion },
    // The era probe (2026-07-28's server/discover) waits a few seconds at most: a 2025 server that ignores it would
    // otherwise cost the whole --timeout before the initialize fallback.
    {
      capabilities: {},
      versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.min(options.timeoutMs, PROBE_TIMEOUT_MS) } },
    },
  );
  // Errors reach the pending request as well; the transport's own reports would only repeat them.
  client.onerror = () => undefined;
  let phase = 'initialize';
  /**
   * Every page of a list, bounded like the tools. tools/list (which fills `pageSizes`) is held to more: a cursor
   * that is not a string, comes back or never ends is an error, where the other lists just stop.
   */
  const listAll = async (method: string, key: string, pageSizes?: number[]): Promise<unknown[]> => {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      phase = page === 1 ? method : `${method} (page ${page})`;
      const sent: unknown = await client.request({ method, params: cursor === undefined ? {} : { cursor } }, AS_SENT, {
        timeout: options.timeoutMs,
      });
      const result = isObject(sent) ? sent : {};
      const list = result[key];
      if (!Array.isArray(list)) {
        const more = pageSizes ? '; it is not an MCP tools/list result' : '';
        throw new UserError(`${who} answered ${phase} without a "${key}" array${more}`);
      }
      items.push(...list);
      pageSizes?.push(list.length);
      if (items.length > MAX_TOOLS) {
        throw new UserError(
          pageSizes
            ? `${who} listed more than ${MAX_TOOLS} tools by ${phase}, more than one spec may hold; nothing was written\n  hint: a server that pages without end would fill memory; import a saved, smaller tools/list with --from-file`
            : `${who} listed more than ${MAX_TOOLS} ${key} by ${phase}; nothing was written`,
        );
      }
      const next = result['nextCursor'];
      const end = typeof next !== 'string' || seen.has(next) || page >= MAX_PAGES;
      if (end && (!pageSizes || next === undefined || next === null)) return items;
      if (typeof next !== 'string')
        throw new UserError(`${who} sent a nextCursor that is not a string (${JSON.stringify(next)}) in ${phase}`);
      if (end) {
        throw new UserError(
          `${who} pages tools/list in a loop: cursor ${JSON.stringify(next)} came back after ${page} pages`,
        );
      }
      seen.add(next);
      cursor = next;
    }
  };
  try {
    await client.connect(transport, {
      timeout: options.timeoutMs,
      ...(legacy ? { prior: { kind: 'legacy' as const } } : {}),
    });
    const capabilities = client.getServerCapabilities() ?? {};
    const pageSizes: number[] = [];
    const tools = await listAll('tools/list', 'tools', pageSizes).catch((e: unknown) => {
      if (phase !== 'tools/list' || !isMethodNotFound(e)) throw e;
      // A server without the tools capability may well not know the method: it has no tools.
      if (capabilities.tools === undefined) return undefined;
      throw new UserError(`${who} declares tools but does not answer tools/list (${e.message}); nothing was written`);
    });
    const info = client.getServerVersion();
    const found: Listing = {
      serverInfo: info ? { ...info } : undefined,
      instructions: client.getInstructions(),
      declaresTools: capabilities.tools !== undefined,
      tools: tools ?? [],
      pageSizes,
    };
    if (!tools) return found;
    if (capabilities.prompts !== undefined) found.prompts = await listAll('prompts/list', 'prompts');
    if (capabilities.resources !== undefined) {
      found.resources = await listAll('resources/list', 'resources');
      found.resourceTemplates = await listAll('resources/templates/list', 'resourceTemplates').catch((e: unknown) => {
        // A server with resources but no templates may not know the method.
        if (isMethodNotFound(e)) return [];
        throw e;
      });
    }
    return found;
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw describe(e, phase);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

const SPAWN_ERRORS: Record<string, string> = {
  ENOENT: 'no such command or file',
  EACCES: 'permission denied (is it executable?)',
};

function spawnFailure(error: NodeJS.ErrnoException, command: string, line: string): UserError {
  const why = SPAWN_ERRORS[error.code ?? ''] ?? error.message;
  const hint = /[|&;<>()$`*?~]|^\w+=/.test(line)
    ? 'the command runs without a shell, so pipes, &&, variables and globs do not work: put them in a script and run that'
    : 'check the command and PATH; a script needs its interpreter, e.g. --from-command "node build/index.js"';
  return new UserError(`cannot start ${JSON.stringify(command)}: ${why}\n  hint: ${hint}`);
}

/** A started server's failure (one that could not be started is a spawnFailure). */
function childFailure(error: unknown, phase: string, transport: ChildProcessTransport, who: string, timeout: string) {
  const lines: string[] = [];
  const exit = transport.exit;
  if (isTimeout(error)) {
    lines.push(
      `the server ${who} did not answer ${phase} within ${timeout}; it was stopped`,
      phase === 'initialize'
        ? '  hint: is it an MCP server over stdio? A server that waits for something (a port, a token, input) never answers; pass --timeout 2m if it is only slow to start'
        : '  hint: pass a longer --timeout if the server is slow',
    );
  } else if (exit) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? '?'}`;
    lines.push(`the server ${who} ${how} before answering ${phase}`);
  } else {
    lines.push(`the server ${who} failed during ${phase}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (transport.badOutput) {
    lines.push(
      `  it wrote to stdout something that is not a JSON-RPC message (${transport.badOutput.split('\n')[0]}): over stdio, stdout carries only protocol messages; logs belong on stderr`,
    );
  }
  const tail = transport.stderrTail.trimEnd();
  if (tail) {
    const shownLines = tail.split('\n').slice(-10);
    lines.push(`  its stderr ends with:\n${shownLines.map((l) => `    ${l}`).join('\n')}`);
  }
  return new UserError(lines.join('\n'));
}

function httpFailure(error: unknown, phase: string, who: string, timeout: string): UserError {
  if (isTimeout(error)) {
    return new UserError(
      `the server at ${who} did not answer ${phase} within ${timeout}\n  hint: pass a longer --timeout if it is only slow`,
    );
  }
  if (error instanceof SdkHttpError || (error instanceof Error && error.name === 'UnauthorizedError')) {
    const status = error instanceof SdkHttpError ? error.status : 401;
    const hints: Record<number, string> = {
      401: 'the server wants credentials: pass them with --header "Authorization: Bearer <token>"',
      403: 'the server refuses this client: check the credentials given with --header, and the Origin/Host the server accepts',
      404: 'no MCP endpoint at this path: check the URL (it often ends in /mcp)',
      405: 'the endpoint does not take POST: it may be an SSE-only server (the older HTTP+SSE transport), which import does not read',
    };
    const hint = hints[status ?? 0] ?? "check that the URL is the server's Streamable HTTP endpoint";
    return new UserError(
      `the server at ${who} answered ${phase} with HTTP ${status ?? '?'}: ${error.message}\n  hint: ${hint}`,
    );
  }
  // The network error sits a few causes down (the era probe wraps fetch's error, which wraps the socket's).
  let cause: NodeJS.ErrnoException | undefined;
  for (
    let e: unknown = error instanceof Error ? error.cause : undefined, depth = 0;
    e instanceof Error && !cause?.code && depth < 5;
    e = e.cause, depth++
  )
    cause = e;
  if (cause?.code === 'ECONNREFUSED') {
    return new UserError(
      `cannot connect to ${who}: connection refused\n  hint: start the server first, and check the host and port`,
    );
  }
  if (cause?.code === 'ENOTFOUND') return new UserError(`cannot connect to ${who}: the host name does not resolve`);
  const detail = error instanceof Error ? `${error.message}${cause ? ` (${cause.message})` : ''}` : String(error);
  return new UserError(`the server at ${who} failed during ${phase}: ${detail}`);
}
