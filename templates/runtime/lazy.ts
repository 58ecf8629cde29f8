/**
 * A tool's handler module, loaded on the tool's first call: a server with many tools answers tools/list without
 * loading them all (registry.ts binds each tool through this). The module's `handler` must fit the tool's contract:
 * the compiler checks it where registry.ts calls lazy().
 */
import type { Handler, ToolName } from './handler-types.js';

export function lazy<Name extends ToolName>(load: () => Promise<{ handler: Handler<Name> }>): Handler<Name> {
  let loaded: Handler<Name> | undefined;
  let loading: Promise<Handler<Name>> | undefined;
  const ready = () => (loading ??= load().then((m) => (loaded = m.handler)));
  // Once loaded, a call goes straight to the handler: no extra promise on the hot path.
  const handler: Handler<Name> = (args, ctx) => (loaded ? loaded(args, ctx) : ready().then((h) => h(args, ctx)));
  // The module, loaded ahead of a call (a task's start must not count the load as the handler's first wait).
  return Object.assign(handler, { ready });
}

/** Loads a handler's module if it is lazy(); a handler given directly is ready. */
export async function ready(handler: unknown): Promise<void> {
  await (handler as { ready?: () => Promise<unknown> }).ready?.();
}
