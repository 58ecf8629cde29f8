/** The generated server's public API. Edge runtimes import web.js instead: it loads no Node modules. */
export { type AccessPolicy, type AuthOptions } from './access.js';
export { createContext, samplingText, type Caller, type ProtocolEra, type ToolContext } from './context.js';
export type * from './contract.js';
export { createDispatcher, errorResult, ToolError, type Validator } from './dispatcher.js';
export { serveHttp, type HttpOptions, type HttpServer } from './http.js';
export { InputRequired, type Elicited, type ElicitSchema, type SamplingResult } from './input.js';
export { handlers } from './registry.js';
export type * from './primitive-types.js';
export { notifyResourceUpdated } from './resources.js';
export { createServerFactory, type ServerFactory, type ServerOptions, type ServingOptions } from './server.js';
export { serveStdio, type StdioOptions, type StdioServer } from './stdio.js';
export { loadBindings, serverInfo, tools } from './tools.js';
export {
  createMemoryEventStore,
  createWebHandler,
  type McpFetchHandler,
  type MemoryEventStoreOptions,
  type ResumptionOptions,
  type SessionEventStore,
  type SessionStore,
  type WebHandlerOptions,
} from './web.js';
export {
  createRedisSessionStore,
  createRedisTaskStore,
  type RedisCommand,
  type RedisCommands,
  type RedisSessionStoreOptions,
  type RedisSubscriber,
  type RedisTaskStoreOptions,
} from './redis.js';
export { type TaskMessage, type TaskOptions, type TaskRecord, type TaskStore } from './tasks.js';
