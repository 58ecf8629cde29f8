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
import { MAX_TOOLS } from '../pipeline/load/limits.js';
import type { Listing } from './listing.js';
import { ChildProcessTransport, MAX_OUTPUT_BYTES, splitCommand } from './stdio.js';

/** How long the era probe waits before trying the 2025 handshake. */
export const PROBE_TIMEOUT_MS = 3_000;

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
  let words: string[];
  try {
    words = splitCommand(commandLine);
  } catch (e) {
    throw new UserError(`cannot read --from-command ${JSON.stringify(commandLine)}: ${(e as Error).message}`);
  }
  const [command, ...args] = words;
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
        if (!legacy && phase === 'initialize' && transport.exit && !transport.spawnError && !transport.badOutput)
          return RETRY;
        return childFailure(error, phase, transport, shown, options);
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
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new UserError(
      `--from-url ${JSON.stringify(url)} is not a URL; give the server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp`,
    );
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new UserError(
      `--from-url ${JSON.stringify(url)} must be an http: or https: URL of a Streamable HTTP endpoint`,
    );
  }
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers }, fetch: boundedFetch });
  const shown = `${endpoint.origin}${endpoint.pathname}`;
  try {
    return await read(transport, options, `the server at ${shown}`, false, (error, phase) =>
      httpFailure(error, phase, shown, options),
    );
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}

type Describe = (error: unknown, phase: string) => UserError;

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

async function read(
  transport: Transport,
  options: ConnectOptions,
  who: string,
  legacy: boolean,
  describe: Describe,
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
  try {
    await client.connect(transport, {
      timeout: options.timeoutMs,
      ...(legacy ? { prior: { kind: 'legacy' as const } } : {}),
    });
    const info = client.getServerVersion();
    const capabilities = client.getServerCapabilities() ?? {};
    const tools: unknown[] = [];
    const pageSizes: number[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      phase = page === 1 ? 'tools/list' : `tools/list (page ${page})`;
      let result: Record<string, unknown>;
      try {
        const sent: unknown = await client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          AS_SENT,
          { timeout: options.timeoutMs },
        );
        result = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {};
      } catch (e) {
        if (page === 1 && e instanceof ProtocolError && e.code === ProtocolErrorCode.MethodNotFound) {
          // A server without the tools capability may well not know the method: it has no tools.
          if (capabilities.tools === undefined)
            return {
              serverInfo: info ? { ...info } : undefined,
              instructions: client.getInstructions(),
              declaresTools: false,
              tools: [],
              pageSizes: [],
            };
          throw new UserError(
            `${who} declares tools but does not answer tools/list (${e.message}); nothing was written`,
          );
        }
        throw e;
      }
      const list = result['tools'];
      if (!Array.isArray(list)) {
        throw new UserError(`${who} answered ${phase} without a "tools" array; it is not an MCP tools/list result`);
      }
      tools.push(...list);
      pageSizes.push(list.length);
      if (tools.length > MAX_TOOLS) {
        throw new UserError(
          `${who} listed more than ${MAX_TOOLS} tools by ${phase}, more than one spec may hold; nothing was written\n  hint: a server that pages without end would fill memory; import a saved, smaller tools/list with --from-file`,
        );
      }
      const next = result['nextCursor'];
      if (next === undefined || next === null) break;
      if (typeof next !== 'string')
        throw new UserError(`${who} sent a nextCursor that is not a string (${JSON.stringify(next)}) in ${phase}`);
      if (cursors.has(next) || page >= MAX_PAGES) {
        throw new UserError(
          `${who} pages tools/list in a loop: cursor ${JSON.stringify(next)} came back after ${page} pages`,
        );
      }
      cursors.add(next);
      cursor = next;
    }
    // The prompts and resources, when the server declares them: every page, bounded like the tools.
    const listAll = async (method: string, key: string): Promise<unknown[]> => {
      const items: unknown[] = [];
      const seen = new Set<string>();
      let next: string | undefined;
      for (let page = 1; page <= MAX_PAGES; page++) {
        phase = page === 1 ? method : `${method} (page ${page})`;
        const sent: unknown = await client.request(
          { method, params: next === undefined ? {} : { cursor: next } },
          AS_SENT,
          { timeout: options.timeoutMs },
        );
        const result = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {};
        const list = result[key];
        if (!Array.isArray(list)) throw new UserError(`${who} answered ${phase} without a "${key}" array`);
        items.push(...list);
        if (items.length > MAX_TOOLS)
          throw new UserError(`${who} listed more than ${MAX_TOOLS} ${key} by ${phase}; nothing was written`);
        const n = result['nextCursor'];
        if (typeof n !== 'string' || seen.has(n)) break;
        seen.add(n);
        next = n;
      }
      return items;
    };
    const prompts = capabilities.prompts === undefined ? undefined : await listAll('prompts/list', 'prompts');
    const resources = capabilities.resources === undefined ? undefined : await listAll('resources/list', 'resources');
    const resourceTemplates =
      capabilities.resources === undefined
        ? undefined
        : await listAll('resources/templates/list', 'resourceTemplates').catch((e: unknown) => {
            // A server with resources but no templates may not know the method.
            if (e instanceof ProtocolError && e.code === ProtocolErrorCode.MethodNotFound) return [];
            throw e;
          });
    return {
      serverInfo: info ? { ...info } : undefined,
      instructions: client.getInstructions(),
      declaresTools: capabilities.tools !== undefined,
      tools,
      pageSizes,
      ...(prompts ? { prompts } : {}),
      ...(resources ? { resources } : {}),
      ...(resourceTemplates ? { resourceTemplates } : {}),
    };
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

function spawnFailure(error: NodeJS.ErrnoException, command: string, line: string): UserError {
  const shellish = /[|&;<>()$`*?~]|^\w+=/.test(line);
  const why =
    error.code === 'ENOENT'
      ? `cannot start ${JSON.stringify(command)}: no such command or file`
      : error.code === 'EACCES'
        ? `cannot start ${JSON.stringify(command)}: permission denied (is it executable?)`
        : `cannot start ${JSON.stringify(command)}: ${error.message}`;
  const hint = shellish
    ? 'the command runs without a shell, so pipes, &&, variables and globs do not work: put them in a script and run that'
    : 'check the command and PATH; a script needs its interpreter, e.g. --from-command "node build/index.js"';
  return new UserError(`${why}\n  hint: ${hint}`);
}

function childFailure(
  error: unknown,
  phase: string,
  transport: ChildProcessTransport,
  who: string,
  options: ConnectOptions,
): UserError {
  const lines: string[] = [];
  const exit = transport.exit;
  if (isTimeout(error)) {
    lines.push(`the server ${who} did not answer ${phase} within ${options.timeoutLabel}; it was stopped`);
    lines.push(
      phase === 'initialize'
        ? '  hint: is it an MCP server over stdio? A server that waits for something (a port, a token, input) never answers; pass --timeout 2m if it is only slow to start'
        : '  hint: pass a longer --timeout if the server is slow',
    );
  } else if (exit && !transport.spawnError) {
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

function httpFailure(error: unknown, phase: string, who: string, options: ConnectOptions): UserError {
  if (isTimeout(error)) {
    return new UserError(
      `the server at ${who} did not answer ${phase} within ${options.timeoutLabel}\n  hint: pass a longer --timeout if it is only slow`,
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
    e instanceof Error && depth < 5;
    e = e.cause, depth++
  ) {
    cause = e as NodeJS.ErrnoException;
    if (cause.code) break;
  }
  if (cause?.code === 'ECONNREFUSED') {
    return new UserError(
      `cannot connect to ${who}: connection refused\n  hint: start the server first, and check the host and port`,
    );
  }
  if (cause?.code === 'ENOTFOUND') return new UserError(`cannot connect to ${who}: the host name does not resolve`);
  const detail = error instanceof Error ? `${error.message}${cause ? ` (${cause.message})` : ''}` : String(error);
  return new UserError(`the server at ${who} failed during ${phase}: ${detail}`);
}
