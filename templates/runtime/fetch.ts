/**
 * The server as a web-standard fetch handler, the default export that Cloudflare Workers (workerd), Deno
 * (`deno serve`) and Bun (`bun run`) serve. It loads no Node module and generates no code at run time (the
 * validators are precompiled), so it runs where `eval` and `new Function` are refused.
 *
 * It serves the 2026-07-28 wire and 2025 clients statelessly: no state outlives a request, so any isolate or
 * instance can answer (a 2025 client cannot be asked for input mid-call here; a 2026-07-28 one can, the call's state
 * sealed in requestState). Settings come from the Worker's bindings (its `env`) or else the environment:
 * - TOOLSPEC_REQUEST_STATE_KEY: the key that seals requestState (at least 32 bytes), the same on every instance;
 * - TOOLSPEC_ALLOWED_HOSTS: the host names clients reach the server by, comma-separated: then Host and Origin are
 *   checked (the platform routes by host, so by default they are not);
 * - TOOLSPEC_MCP_PATH: the endpoint's path (default /mcp).
 * - TOOLSPEC_AUTH_*: with the spec's `auth`, the deployment's URLs and secrets, as for `node main.js --http`.
 * The body limit holds as there.
 */
import { authOptionsFrom } from './access.js';
import { handlers } from './registry.js';
import { createWebHandler, type McpFetchHandler } from './web.js';

type Bindings = Record<string, unknown> | undefined;

let served: McpFetchHandler | undefined;

/** A setting from the bindings, else from process.env where there is one; empty is unset. */
function setting(env: Bindings, name: string): string | undefined {
  const value = env?.[name] ?? (globalThis as { process?: { env?: Bindings } }).process?.env?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Built on the first request: Workers refuse timers and random numbers while a module loads. */
function serve(env: Bindings): McpFetchHandler {
  const hosts = setting(env, 'TOOLSPEC_ALLOWED_HOSTS')
    ?.split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const key = setting(env, 'TOOLSPEC_REQUEST_STATE_KEY');
  const path = setting(env, 'TOOLSPEC_MCP_PATH');
  return createWebHandler(handlers, {
    stateless: true,
    auth: authOptionsFrom((variable) => setting(env, variable)),
    ...(hosts?.length ? { allowedHosts: hosts } : {}),
    ...(key ? { requestStateKey: key } : {}),
    ...(path ? { path } : {}),
  });
}

export default {
  fetch(request: Request, env?: Bindings): Promise<Response> {
    served ??= serve(env);
    return served.fetch(request);
  },
};
