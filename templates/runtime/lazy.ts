/**
 * A tool's handler module, loaded on the tool's first call: a server with many tools answers tools/list without
 * loading them all (registry.ts binds each tool through this). The module's `handler` must fit the tool's contract:
 * the compiler checks it where registry.ts calls lazy().
 */
import type { Handler, ToolName } from './handler-types.js';

export function lazy<Name extends ToolName>(load: () => Promise<{ handler: Handler<Name> }>): Handler<Name> {
  let loaded: Handler<Name> | undefined;
  let loading: Promise<Handler<Name>> | undefined;
  // Once loaded, a call goes straight to the handler: no extra promise on the hot path.
  return (args, ctx) =>
    loaded ? loaded(args, ctx) : (loading ??= load().then((m) => (loaded = m.handler))).then((h) => h(args, ctx));
}
