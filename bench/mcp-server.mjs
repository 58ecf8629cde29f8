// The peers of the generated server in bench/server.mjs, on SDK v2 (@modelcontextprotocol/server), built from the
// same tools (the JSON objects of a spec's tools, as tools/list would carry them):
// - the SDK's high-level McpServer in two flavours: "zod", each tool's schemas converted from its JSON Schemas by
//   zod 4's z.fromJSONSchema (the SDK re-serialises them for tools/list and validates with them on tools/call);
//   "fromJsonSchema", the SDK's own fromJsonSchema(jsonSchema) wrapper (the schema content is kept; ajv compiles a
//   validator for each when the wrapper is made);
// - a "no validation" server on the SDK's low-level Server that calls the handler on the raw arguments: the limit
//   of the SDK's own request path.
// Every peer is a factory for the SDK's serving entries (serveStdio, createMcpHandler), which build an instance per
// stdio connection and per HTTP request: as the SDK's documentation writes it, the schemas are made once, outside
// the factory, and the factory builds the server and registers the tools on it.
// All run the same handlers as bench/synth.mjs's handlerSource, wrapped into the CallToolResult the generated
// dispatcher would build (a string as a text block; a structured value as structuredContent plus its JSON text).
// Kept small: the McpServer entries of the start-up and HTTP benchmarks import this module.
import { fromJsonSchema, McpServer, Server } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const FLAVOURS = ['zod', 'fromJsonSchema'];

/** The handler of bench/synth.mjs's handlerSource for `tool`, returning a CallToolResult. */
export function makeHandler(tool) {
  if (tool.outputSchema) {
    return async (args) => {
      const value = { ok: true, count: Object.keys(args).length, note: String(args.field_0) };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    };
  }
  const name = tool.name;
  return async (args) => ({ content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] });
}

/**
 * A factory of McpServers serving `tools` with schemas of the given flavour ('zod': z.fromJSONSchema;
 * 'fromJsonSchema': the SDK's wrapper, ajv). The schemas and handlers are made once; each call of the factory
 * builds an McpServer and registers every tool. Returns the factory and the milliseconds spent making the schemas
 * (a server written with zod by hand would build its schemas in other ways).
 */
export function mcpServerFactory(tools, flavour, info = { name: `bench-mcpserver-${flavour}`, version: '1.0.0' }) {
  if (!FLAVOURS.includes(flavour)) throw new Error(`unknown McpServer flavour ${flavour}`);
  const convert = flavour === 'zod' ? (s) => z.fromJSONSchema(s) : (s) => fromJsonSchema(s);
  let convertMs = 0;
  const registrations = tools.map((tool) => {
    const t0 = performance.now();
    const inputSchema = convert(tool.inputSchema);
    const outputSchema = tool.outputSchema ? convert(tool.outputSchema) : undefined;
    convertMs += performance.now() - t0;
    const config = {
      description: tool.description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    return [tool.name, config, makeHandler(tool)];
  });
  const factory = () => {
    const server = new McpServer(info, { capabilities: { tools: {} } });
    for (const [name, config, handler] of registrations) server.registerTool(name, config, handler);
    return server;
  };
  return { factory, convertMs };
}

/** A factory of the SDK's low-level Server calling the handler on the raw arguments: no validation at all. */
export function plainServerFactory(tools, info = { name: 'bench-plain', version: '1.0.0' }) {
  const handlers = new Map(tools.map((t) => [t.name, makeHandler(t)]));
  const list = { tools };
  return () => {
    const server = new Server(info, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => list);
    server.setRequestHandler('tools/call', (request) =>
      handlers.get(request.params.name)(request.params.arguments ?? {}),
    );
    return server;
  };
}
