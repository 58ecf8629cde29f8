/**
 * The MCP server on the SDK's low-level Server, so tool schemas reach clients exactly as written, on both protocol
 * eras. The manifest, validators and dispatcher are built once per process; the SDK's serving entries build a
 * Server per stdio connection and per HTTP request from the factory, which only registers two request handlers.
 */
import {
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  specTypeSchemas,
  type JSONRPCRequest,
  type McpRequestContext,
  type Result,
  type ServerContext,
  type ServerOptions as SdkServerOptions,
  type StandardSchemaV1,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import type { ToolHandlers } from './handler-types.js';
import {
  createDispatcher,
  DEFAULT_MAX_WAITING,
  DEFAULT_WAITING_MS,
  specIssue,
  type AnyHandler,
  type DispatcherOptions,
  legacyTools,
} from './dispatcher.js';
import { visibleTools } from './access.js';
import { isModern } from './context.js';
import { principalOf, WaitingCalls, type InputOptions } from './input.js';
import { declaresTasks, Tasks, TASKS_EXTENSION, tasksRequired, type TaskOptions } from './tasks.js';
import {
  promptModules,
  promptRules,
  prompts,
  resourceModules,
  resourceRules,
  resources,
  resourceTemplates,
  subscriptions,
} from './primitives.js';
import { createPrompts, type ModuleLoaders } from './prompts.js';
import { createResources, enableSubscriptions, subscribe, unsubscribe } from './resources.js';
import {
  access,
  cacheHint,
  instructions,
  loadBindings,
  objectOutputs,
  pageSize,
  serverInfo,
  taskModes,
  timeouts,
  tools,
} from './tools.js';

export interface ServerOptions extends InputOptions {
  /** Tools per tools/list page (default: the spec's options.pageSize); 0 sends all tools in one page. */
  pageSize?: number;
  /** Where handler failures are logged. Default: stderr, never stdout. */
  onError?: DispatcherOptions['onError'];
  /**
   * Questions to 2025 clients, which the SDK's legacy shim sends as real requests while the call waits: how long
   * one waits for its answer (default 300 s), how many rounds one call may take (default 8), and how many calls
   * may wait at once (default 100; past it a call that asks ends with an error result). The cap counts prompts/get
   * and resources/read requests that ask too; past it they fail with a JSON-RPC error (-32603).
   */
  legacyInput?: { roundTimeoutMs?: number; maxRounds?: number; maxWaiting?: number };
  /** Tools that run as tasks (the spec's `task`): how long tasks are kept, how often clients poll, how many at once. */
  tasks?: TaskOptions;
}

export const DEFAULT_LEGACY_MAX_ROUNDS = 8;

/** How the serving entry uses the factory's 2025 instances, which decides what they can promise. */
export interface ServingOptions {
  /**
   * Each 2025 instance serves one HTTP request and is gone: createWebHandler's `stateless`, or the SDK's
   * `createMcpHandler(factory)` with its default `legacy: 'stateless'`. Such an instance declares only what it can
   * keep: no `logging` (no later request would see the level `logging/setLevel` set; so `ctx.log` sends nothing
   * there, as a server without the capability must not), no resource subscriptions (`resources/subscribe` is
   * refused: there is no stream to send the updates on), and a handler that asks the client mid-call ends with an
   * error saying why. 2026-07-28 instances, and 2025 ones on stdio or sessions, are not affected.
   */
  stateless?: boolean;
}

/** A factory for the SDK's serving entries (an McpServerFactory) that hands back the Server at once. */
export interface ServerFactory {
  (context?: McpRequestContext): Server;
  /** Resolves true once no tools/call is in flight, or false after `timeoutMs` (for a graceful shutdown). */
  settled(timeoutMs: number): Promise<boolean>;
  /** Ends the tasks it runs (their records, in a shared store, say the server stopped). */
  close(): Promise<void>;
  /** The tasks it runs, when the spec has tools that run as tasks. */
  readonly tasks?: Tasks;
}

/** How long a shutdown waits for calls in flight before it ends them (SIGTERM, SIGINT): 10 s by default. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** The params of the methods besides tools/call whose shape the SDK checks before their handlers. */
const PARAMS: Record<string, keyof typeof specTypeSchemas> = {
  'prompts/get': 'GetPromptRequestParams',
  'resources/read': 'ReadResourceRequestParams',
  'resources/subscribe': 'SubscribeRequestParams',
  'resources/unsubscribe': 'SubscribeRequestParams',
  'completion/complete': 'CompleteRequestParams',
};

/**
 * A wrong-shaped prompts/get, resources/read or completion/complete is answered as a wrong tools/call is: −32602
 * with one line naming the parameter. (The SDK answers those methods −32603 with its whole validation report.) Only
 * when the SDK's check has refused the request are its params read again, with the SDK's own schema, to name the
 * first wrong one: a valid request is checked once.
 */
class ParamsCheckedServer extends Server {
  /** Whether this instance serves one 2025 request without a session (it cannot ask the client anything). */
  readonly legacyPerRequest: boolean;

  constructor(info: ConstructorParameters<typeof Server>[0], options: SdkServerOptions, legacyPerRequest: boolean) {
    super(info, options);
    this.legacyPerRequest = legacyPerRequest;
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method === 'tools/call') {
      // A task's handle is the result as it is: the SDK's tools/call checks would make it a CallToolResult.
      return async (request, ctx) => {
        try {
          return await wrapped(request, ctx);
        } catch (error) {
          if (error instanceof TaskHandle) return error.handle;
          throw error;
        }
      };
    }
    const type = PARAMS[method];
    if (!type) return wrapped;
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        const issue = error instanceof ProtocolError ? undefined : specIssue(type, request.params ?? {});
        if (!issue) throw error;
        const where = issue.segments.length ? `${issue.segments.join('.')}: ` : '';
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params for ${method}: ${where}${issue.message.replace(/^Invalid input: /, '')}`,
        );
      }
    };
  }
}

/** Any params: the tasks methods check theirs themselves (tasks.ts), as a spec method's handler would. */
const TASK_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'toolspec', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

/** Carries a task's handle past the SDK's tools/call result checks (ParamsCheckedServer). */
class TaskHandle extends Error {
  constructor(readonly handle: Result) {
    super('a task was created');
  }
}

function isTaskHandle(result: unknown): result is Result {
  return (result as { resultType?: unknown }).resultType === 'task';
}

/** A 2025 client served per request subscribes to nothing: no stream would carry the updates to it. */
function refuseSubscription(method: string): never {
  throw new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `${method} is not available: this server serves 2025 clients without sessions (--stateless), so it has no ` +
      'stream to send notifications/resources/updated on. A client on protocol 2026-07-28 (subscriptions/listen), ' +
      'or this server without --stateless, can subscribe.',
  );
}

/**
 * The factory the SDK's serving entries call for each stdio connection and each HTTP request: a Server with the
 * tools/list and tools/call handlers over one dispatcher shared by all of them.
 */
export function createServerFactory(
  handlers: ToolHandlers,
  options: ServerOptions & ServingOptions = {},
): ServerFactory {
  const roundTimeoutMs = options.legacyInput?.roundTimeoutMs ?? DEFAULT_WAITING_MS;
  // One cap for every 2025 request that waits for answers: tools/call, prompts/get and resources/read alike.
  const waiting = new WaitingCalls(options.legacyInput?.maxWaiting ?? DEFAULT_MAX_WAITING, roundTimeoutMs);
  const legacy = legacyTools(tools, objectOutputs);
  // One store for the process: any server instance (one per request on 2026-07-28) answers for every task.
  const tasks = Object.keys(taskModes).length ? new Tasks(options.tasks) : undefined;
  const dispatcher = createDispatcher({
    tools,
    legacyTools: legacy,
    // Validators load on the first tools/call: a client that connects and lists tools does not wait for them.
    bindings: loadBindings,
    handlers: handlers as unknown as Record<string, AnyHandler>,
    pageSize: options.pageSize ?? pageSize,
    timeouts,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.requestStateKey === undefined ? {} : { requestStateKey: options.requestStateKey }),
    ...(options.requestStateTtlSeconds === undefined ? {} : { requestStateTtlSeconds: options.requestStateTtlSeconds }),
    waiting,
    taskModes,
    ...(tasks ? { tasks } : {}),
  });
  // Prompts and resources (src/generated/primitives.ts): their handlers registered only when the spec has them.
  const primitiveOptions = {
    waiting,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.requestStateKey === undefined ? {} : { requestStateKey: options.requestStateKey }),
    ...(options.requestStateTtlSeconds === undefined ? {} : { requestStateTtlSeconds: options.requestStateTtlSeconds }),
  };
  const promptList = createPrompts(prompts, promptRules, promptModules as ModuleLoaders, primitiveOptions);
  const resourceList = createResources(
    resources,
    resourceTemplates,
    resourceRules,
    resourceModules as ModuleLoaders,
    primitiveOptions,
  );
  enableSubscriptions(subscriptions);
  const hasPrompts = prompts.length > 0;
  const hasResources = resourceRules.length > 0;
  const completes =
    Object.values(promptRules).some((r) => r.arguments.some((a) => a.complete !== undefined)) ||
    resourceRules.some((r) => Object.keys(r.complete).length > 0);
  // What 2025 clients were shown: what the SDK projects their results by (the 2026-07-28 codec needs none).
  const outputSchemas = new Map(legacy.flatMap((t) => (t.outputSchema ? [[t.name, t.outputSchema] as const] : [])));
  // A 2025 instance that serves one request without a session declares only what it can keep (ServingOptions).
  const sdkOptions = (perRequest: boolean): SdkServerOptions => ({
    capabilities: {
      tools: {},
      ...(perRequest ? {} : { logging: {} }),
      ...(hasPrompts ? { prompts: {} } : {}),
      ...(hasResources ? { resources: subscriptions && !perRequest ? { subscribe: true } : {} } : {}),
      ...(completes ? { completions: {} } : {}),
      // The tasks extension (SEP-2663): 2026-07-28 clients see it in server/discover.
      ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    },
    ...(instructions === undefined ? {} : { instructions }),
    // The lists are static, like the tools': one hint for all of them. A read's content is the handler's to hint.
    cacheHints: {
      'tools/list': cacheHint,
      'prompts/list': cacheHint,
      'resources/list': cacheHint,
      'resources/templates/list': cacheHint,
    },
    inputRequired: {
      roundTimeoutMs,
      maxRounds: options.legacyInput?.maxRounds ?? DEFAULT_LEGACY_MAX_ROUNDS,
    },
  });
  const served = sdkOptions(false);
  const servedPerRequest = sdkOptions(true);
  let inFlight = 0;
  let idle: (() => void)[] = [];
  const factory = (context?: McpRequestContext) => {
    const perRequest = options.stateless === true && context?.era === 'legacy';
    const server = new ParamsCheckedServer(serverInfo, perRequest ? servedPerRequest : served, perRequest);
    server.setRequestHandler('tools/list', (request, ctx) =>
      visibleTools(dispatcher.listTools(request.params?.cursor, !isModern(ctx)), access, ctx.http?.authInfo),
    );
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params;
      inFlight++;
      try {
        const result = await dispatcher.callTool(name, args, ctx, server);
        if (isTaskHandle(result)) throw new TaskHandle(result);
        // 2025 clients see a structured value that is not an object wrapped as {result}, as tools/list shows them.
        return isInputRequiredResult(result)
          ? result
          : server.projectCallToolResult(result as CallToolResult, outputSchemas.get(name));
      } finally {
        if (--inFlight === 0) {
          const waiting = idle;
          idle = [];
          for (const resolve of waiting) resolve();
        }
      }
    });
    if (tasks) {
      // tasks/get, tasks/update and tasks/cancel: only for clients that declare the extension on the request.
      const gate = (ctx: ServerContext) => {
        if (!declaresTasks(ctx)) throw tasksRequired('tasks/get, tasks/update and tasks/cancel');
        return principalOf(ctx.http?.authInfo);
      };
      server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, (params, ctx) =>
        tasks.get(params['taskId'], gate(ctx)),
      );
      // The SDK takes inputResponses out of the params, as for any request that answers questions.
      server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, (params, ctx) =>
        tasks.update(params['taskId'], params['inputResponses'] ?? ctx.mcpReq.inputResponses, gate(ctx)),
      );
      server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, (params, ctx) =>
        tasks.cancel(params['taskId'], gate(ctx)),
      );
    }
    if (hasPrompts) {
      server.setRequestHandler('prompts/list', (request) => promptList.list(request.params?.cursor));
      server.setRequestHandler('prompts/get', (request, ctx) =>
        promptList.get(request.params.name, request.params.arguments, ctx, server),
      );
    }
    if (hasResources) {
      server.setRequestHandler('resources/list', (request) => resourceList.list(request.params?.cursor));
      server.setRequestHandler('resources/templates/list', (request) =>
        resourceList.listTemplates(request.params?.cursor),
      );
      server.setRequestHandler('resources/read', (request, ctx) => resourceList.read(request.params.uri, ctx, server));
      if (subscriptions && perRequest) {
        server.setRequestHandler('resources/subscribe', () => refuseSubscription('resources/subscribe'));
        server.setRequestHandler('resources/unsubscribe', () => refuseSubscription('resources/unsubscribe'));
      } else if (subscriptions) {
        server.setRequestHandler('resources/subscribe', (request) => {
          subscribe(resourceList.known(request.params.uri), server);
          return {};
        });
        server.setRequestHandler('resources/unsubscribe', (request) => {
          unsubscribe(request.params.uri, server);
          return {};
        });
      }
    }
    if (completes) {
      server.setRequestHandler('completion/complete', (request, ctx) => {
        const { ref, argument, context } = request.params;
        return ref.type === 'ref/prompt'
          ? promptList.complete(ref.name, argument.name, argument.value, context, ctx)
          : resourceList.complete(ref.uri, argument.name, argument.value, context, ctx);
      });
    }
    return server;
  };
  const settled = (timeoutMs: number) =>
    inFlight === 0
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), timeoutMs);
          idle.push(() => {
            clearTimeout(timer);
            resolve(true);
          });
        });
  return Object.assign(factory, { settled, close: async () => tasks?.close(), ...(tasks ? { tasks } : {}) });
}
