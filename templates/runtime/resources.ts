/**
 * resources/list, resources/templates/list, resources/read and the subscriptions of 2025 clients. A read goes to the
 * resource whose URI is exactly the one asked for, else to the first template (in spec order) that matches it; a
 * template variable never spans more than its segment (uri-template.ts), and what it holds reaches the handler as
 * data, decoded. A URI nothing matches, or a handler that returns undefined, is "resource not found": −32602 with
 * the URI in its data (SEP-2164). The 2025 revisions named −32002, but the SDK answers −32602 on every revision (as
 * its v1 always did, and clients accept both): a −32002 thrown here would be rewritten at its encode seam anyway.
 */
import {
  InMemoryServerEventBus,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type CompleteResult,
  type InputRequiredResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { createContext, type Connection } from './context.js';
import { describeValue, invalidSpecResult, publicMessage } from './dispatcher.js';
import { InputRounds, type Round } from './input.js';
import type { ResourceContext, ResourceRule } from './primitive-types.js';
import {
  askWithin,
  completeValue,
  defaultOnError,
  isPlainObject,
  moduleCache,
  type ModuleLoaders,
  type PrimitiveOptions,
  waitingCalls,
} from './prompts.js';
import { compileUriTemplate, parseUriTemplate, type UriMatcher } from './uri-template.js';

export interface Resources {
  list(cursor?: string): ListResourcesResult;
  listTemplates(cursor?: string): ListResourceTemplatesResult;
  read(uri: unknown, sdk: ServerContext, connection: Connection): Promise<ReadResourceResult | InputRequiredResult>;
  /** Throws "resource not found" unless some resource or template answers to the URI. */
  known(uri: unknown): string;
  complete(
    uri: unknown,
    argument: string,
    value: string,
    context: unknown,
    sdk: ServerContext,
  ): Promise<CompleteResult>;
}

/**
 * The longest URI resources/read and resources/subscribe look up. Matching is linear in the URI's length, and it
 * keeps a byte per character for each piece of a template: the cap bounds both. It is the common limit of URLs,
 * and a 2026-07-28 HTTP request carries the URI in its `Mcp-Name` header too, where Node allows 16 KiB of headers.
 */
export const MAX_URI_LENGTH = 8_192;

interface Target {
  rule: ResourceRule;
  variables: Record<string, string>;
}

/**
 * Which resource answers a URI: the one with exactly that URI, else the first template (in spec order) that matches
 * it, with the variables it holds; and which one a completion's `ref/resource` names (its template or URI).
 */
export function resourceFinder(rules: readonly ResourceRule[]): {
  find(uri: string): Target | undefined;
  byRef(uri: unknown): ResourceRule | undefined;
} {
  const fixed = new Map(rules.flatMap((r) => (r.uri === undefined ? [] : [[r.uri, r] as const])));
  const matchers: { rule: ResourceRule; matcher: UriMatcher }[] = rules.flatMap((rule) => {
    if (rule.uriTemplate === undefined) return [];
    const parsed = parseUriTemplate(rule.uriTemplate);
    return 'template' in parsed ? [{ rule, matcher: compileUriTemplate(parsed.template) }] : [];
  });
  const byTemplate = new Map(rules.flatMap((r) => (r.uriTemplate === undefined ? [] : [[r.uriTemplate, r] as const])));
  return {
    find(uri) {
      const rule = fixed.get(uri);
      if (rule) return { rule, variables: {} };
      for (const { rule: r, matcher } of matchers) {
        const values = matcher.match(uri);
        if (!values) continue;
        // fromEntries defines own properties: a variable named __proto__ stays data. Absent query parameters are left out.
        const variables = Object.fromEntries(
          Object.entries(values).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as [string, string]])),
        );
        return { rule: r, variables };
      }
      return undefined;
    },
    byRef: (uri) => (typeof uri === 'string' ? (byTemplate.get(uri) ?? fixed.get(uri)) : undefined),
  };
}

export function createResources(
  resources: readonly Resource[],
  templates: readonly ResourceTemplateType[],
  rules: readonly ResourceRule[],
  loaders: ModuleLoaders,
  options: PrimitiveOptions = {},
): Resources {
  const listed: ListResourcesResult = { resources: resources as Resource[] };
  const listedTemplates: ListResourceTemplatesResult = { resourceTemplates: templates as ResourceTemplateType[] };
  const { find, byRef } = resourceFinder(rules);
  const load = moduleCache(loaders);
  const rounds = new InputRounds(options);
  const waiting = waitingCalls(options);
  const onError = options.onError ?? defaultOnError('resource');

  const checkedUri = (uri: unknown): string => {
    if (typeof uri !== 'string')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params: uri must be a string');
    if (uri.length > MAX_URI_LENGTH)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid params: uri is longer than ${MAX_URI_LENGTH} characters`,
      );
    return uri;
  };
  const noCursor = (cursor: string | undefined, method: string) => {
    if (cursor !== undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid cursor: this server does not paginate ${method}`,
      );
  };

  return {
    list(cursor) {
      noCursor(cursor, 'resources/list');
      return listed;
    },
    listTemplates(cursor) {
      noCursor(cursor, 'resources/templates/list');
      return listedTemplates;
    },
    known(uri) {
      const u = checkedUri(uri);
      if (!find(u)) throw notFound(u);
      return u;
    },

    async read(uri, sdk, connection) {
      const u = checkedUri(uri);
      const target = find(u);
      if (!target) throw notFound(u);
      const { rule, variables } = target;
      const module = await load(rule.name)!;
      const key = `resources/read:${rule.name}`;
      const state = { uri: u, variables };
      // Back with answers (or never asked): no longer waiting.
      if (waiting.size) waiting.leave(connection, sdk.mcpReq.id);
      const round: Round = await rounds.begin(key, state, sdk);
      const ask = () =>
        askWithin(waiting, rounds, `Resource ${JSON.stringify(rule.name)}`, key, state, round, sdk, connection);
      const { toolName: _tool, ...base } = createContext(rule.name, sdk, connection, round);
      const ctx: ResourceContext = { ...base, resourceName: rule.name, uri: u };
      let value: unknown;
      try {
        value = await (module.handler as (v: unknown, c: ResourceContext) => unknown)(variables, ctx);
      } catch (error) {
        if (round.hasAsked) return ask();
        if (error instanceof ProtocolError) throw error;
        onError(error, rule.name);
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `Resource ${JSON.stringify(rule.name)} failed: ${publicMessage(error)}`,
        );
      }
      if (round.hasAsked) return ask();
      if (value === undefined || value === null) throw notFound(u);
      const result = readResult(value, u, rule.mimeType);
      const why =
        result === undefined
          ? `the handler returned ${describeValue(value, 'an object without a contents array')}; return text, bytes, contents or a ReadResourceResult`
          : invalidResult(result);
      if (why) {
        onError(new Error(why), rule.name);
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `Resource ${JSON.stringify(rule.name)} failed: ${why}`,
        );
      }
      return result!;
    },

    async complete(uri, argument, value, context, sdk) {
      const rule = byRef(uri);
      if (!rule)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template: ${JSON.stringify(uri)}`);
      return completeValue(
        Object.hasOwn(rule.complete, argument) ? rule.complete[argument] : undefined,
        () => load(rule.name)!,
        argument,
        value,
        context,
        sdk,
        (e) => onError(e, rule.name),
      );
    },
  };
}

/** "Resource not found": −32602 with `data: { uri }`, the code and shape SEP-2164 fixes. */
function notFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function readResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult | undefined {
  const content = (c: Record<string, unknown>) => ({
    uri,
    ...(mimeType === undefined ? {} : { mimeType }),
    ...c,
  });
  if (typeof value === 'string') return { contents: [content({ text: value })] } as ReadResourceResult;
  if (value instanceof Uint8Array) return { contents: [content({ blob: base64(value) })] } as ReadResourceResult;
  if (Array.isArray(value))
    return value.every(isPlainObject) ? ({ contents: value.map(content) } as ReadResourceResult) : undefined;
  if (!isPlainObject(value)) return undefined;
  if (Array.isArray(value['contents'])) {
    const contents = value['contents'];
    if (!contents.every(isPlainObject)) return undefined;
    return { ...value, contents: contents.map(content) } as ReadResourceResult;
  }
  return { contents: [content(value)] } as ReadResourceResult;
}

function invalidResult(result: ReadResourceResult): string | undefined {
  return invalidSpecResult('ReadResourceResult', result);
}

/**
 * Subscriptions of 2025 clients (resources/subscribe), by URI: the server instances (connections, sessions) that
 * asked. notifyResourceUpdated(uri) tells each of them; a closed one is forgotten.
 */
const subscribers = new Map<string, Set<Server>>();
let subscriptionsEnabled = false;

/** Called by the server factory with the spec's options.subscriptions. */
export function enableSubscriptions(on: boolean): void {
  subscriptionsEnabled = on;
}

/** The URIs one connection (a 2025 session, a stdio connection) may subscribe to at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;

/** What each connection subscribes to, so that closing it forgets exactly those, with one close hook per connection. */
const subscribedBy = new WeakMap<Server, Set<string>>();

export function subscribe(uri: string, server: Server): void {
  let mine = subscribedBy.get(server);
  if (!mine) {
    subscribedBy.set(server, (mine = new Set()));
    const previous = server.onclose;
    server.onclose = () => {
      for (const u of subscribedBy.get(server) ?? []) unsubscribe(u, server);
      subscribedBy.delete(server);
      previous?.();
    };
  }
  if (mine.has(uri)) return;
  if (mine.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params: this connection is subscribed to ${MAX_SUBSCRIPTIONS_PER_CONNECTION} resources already; unsubscribe from one first`,
    );
  }
  mine.add(uri);
  let set = subscribers.get(uri);
  if (!set) subscribers.set(uri, (set = new Set()));
  set.add(server);
}

export function unsubscribe(uri: string, server: Server): void {
  subscribedBy.get(server)?.delete(uri);
  const set = subscribers.get(uri);
  if (!set) return;
  set.delete(server);
  if (!set.size) subscribers.delete(uri);
}

/**
 * The change events of 2026-07-28 clients' `subscriptions/listen` streams over HTTP (web.ts hands it to the SDK's
 * handler, which filters each stream by the URIs it listens to).
 */
export const resourceEvents = new InMemoryServerEventBus();

/**
 * The server instances of 2026-07-28 stdio connections. The SDK's stdio entry takes no event bus: it serves
 * `subscriptions/listen` itself and routes the change notifications its pinned instance sends onto the connection's
 * open subscriptions, each to those whose filter names the URI (none listening: the notification is dropped, never
 * written). So an update is sent to every such instance, and the entry decides who hears it.
 */
const stdioListeners = new Set<Server>();

/** Called by stdio.ts for the instance a 2026-07-28 stdio connection is pinned to; forgotten when it closes. */
export function listenOverStdio(server: Server): void {
  stdioListeners.add(server);
  const previous = server.onclose;
  server.onclose = () => {
    stdioListeners.delete(server);
    previous?.();
  };
}

/**
 * Tells the clients subscribed to `uri` that it changed (notifications/resources/updated), when the spec has
 * `options.subscriptions: true`: 2025 clients that sent resources/subscribe, and 2026-07-28 clients listening with
 * subscriptions/listen over HTTP or stdio. Resolves once every notification is sent; a client that went away is
 * skipped.
 */
export async function notifyResourceUpdated(uri: string): Promise<void> {
  const sends: Promise<void>[] = [];
  if (subscriptionsEnabled) {
    resourceEvents.publish({ kind: 'resource_updated', uri });
    for (const server of stdioListeners)
      sends.push(server.sendResourceUpdated({ uri }).catch(() => void stdioListeners.delete(server)));
  }
  for (const server of subscribers.get(uri) ?? [])
    sends.push(server.sendResourceUpdated({ uri }).catch(() => unsubscribe(uri, server)));
  await Promise.all(sends);
}
