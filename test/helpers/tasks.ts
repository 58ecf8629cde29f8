/**
 * Raw 2026-07-28 requests for the tasks tests (the SDK's client has no tasks runtime): the per-request envelope,
 * the standard headers (Mcp-Method, Mcp-Name = the tool or the task id), the tasks extension declared unless told
 * otherwise, and a caller named in `x-caller` for servers whose authenticate hook reads it.
 */
const TASKS = 'io.modelcontextprotocol/tasks';

export type Task = Record<string, unknown>;
export type Answer = { result?: Task; error?: { code: number; message: string; data?: unknown } };

/** One 2026-07-28 request, with the extension declared unless `tasks: false`; `as` names the caller. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  { tasks = true, as }: { tasks?: boolean; as?: string } = {},
): Promise<Answer> {
  const name = (params['name'] ?? params['taskId']) as string | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...(as === undefined ? {} : { 'x-caller': as }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
        },
      },
    }),
  });
  return parse(await res.text());
}

/** A JSON body, or the response of an SSE body (a priming event, with empty data, may come first). */
export function parse(text: string): Answer {
  if (text.startsWith('{')) return JSON.parse(text) as Answer;
  const events = [...text.matchAll(/^data: (\{.*)$/gm)].map((m) => JSON.parse(m[1]!) as Answer & { id?: unknown });
  return events.find((e) => 'result' in e || 'error' in e) ?? {};
}

export const call = (
  url: string,
  name: string,
  args: Record<string, unknown>,
  options?: { tasks?: boolean; as?: string },
) => rpc(url, 'tools/call', { name, arguments: args }, options);

export async function until(url: string, taskId: string, done: (task: Task) => boolean, as?: string) {
  for (let i = 0; i < 200; i++) {
    const { result } = await rpc(url, 'tasks/get', { taskId }, as ? { as } : {});
    if (result && done(result)) return result;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} did not get there`);
}

/** A subscriptions/listen for these tasks (`notifications`: the filter), read until the server ends the stream. */
export async function listen(
  url: string,
  notifications: Record<string, unknown>,
  { as, tasks = true }: { as?: string; tasks?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const res = await fetch(url, {
    method: 'POST',
    signal: AbortSignal.timeout(20_000),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...(as ? { 'x-caller': as } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
        },
      },
    }),
  });
  const text = await res.text();
  if (text.startsWith('{')) return [JSON.parse(text) as Record<string, unknown>];
  return [...text.matchAll(/^data: (\{.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
}

/**
 * A server's authenticate hook for these tests: the caller is the `x-caller` header (so that one test can be two
 * callers), else `fallback`; with no fallback, a request without the header is refused (401).
 */
export const callerFromHeader =
  (fallback?: string) =>
  (headers: Headers): { token: string; clientId: string; scopes: string[] } | undefined => {
    const who = headers.get('x-caller') ?? fallback;
    return who === undefined ? undefined : { token: who, clientId: who, scopes: [] };
  };
