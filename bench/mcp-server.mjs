// The peers of the generated server in bench/server.mjs, built from the same tools (the JSON objects of a spec's
// tools, as tools/list would carry them):
// - the SDK's high-level McpServer, each tool registered with zod schemas converted from its JSON Schemas by zod 4's
//   z.fromJSONSchema (the SDK re-serialises them for tools/list and validates with them on tools/call);
// - a "no validation" server on the SDK's low-level Server that calls the handler on the raw arguments: the limit
//   of the SDK's own request path.
// Both run the same handlers as bench/synth.mjs's handlerSource, wrapped into the CallToolResult the generated
// dispatcher would build (a string as a text block; a structured value as structuredContent plus its JSON text).
// Kept small: the McpServer entry of the startup benchmark imports this module.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

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
 * An McpServer serving `tools` with zod schemas from z.fromJSONSchema. Returns the server and the milliseconds
 * spent converting the schemas (a server written with zod by hand would build its schemas in other ways).
 */
export function buildMcpServer(tools, info = { name: 'bench-mcpserver', version: '1.0.0' }) {
  const server = new McpServer(info, { capabilities: { tools: {} } });
  let convertMs = 0;
  for (const tool of tools) {
    const t0 = performance.now();
    const inputSchema = z.fromJSONSchema(tool.inputSchema);
    const outputSchema = tool.outputSchema ? z.fromJSONSchema(tool.outputSchema) : undefined;
    convertMs += performance.now() - t0;
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema,
        ...(outputSchema ? { outputSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      makeHandler(tool),
    );
  }
  return { server, convertMs };
}
