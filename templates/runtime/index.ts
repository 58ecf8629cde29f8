/** The generated server's public API. */
export { createContext, type ToolContext } from './context.js';
export type * from './contract.js';
export { createDispatcher, errorResult, ToolError, type Validator } from './dispatcher.js';
export { createWebHandler, serveHttp, type HttpOptions, type HttpServer } from './http.js';
export { handlers } from './registry.js';
export { createServer, serveStdio, type ServerOptions, type StdioOptions } from './server.js';
export { loadBindings, serverInfo, tools } from './tools.js';
