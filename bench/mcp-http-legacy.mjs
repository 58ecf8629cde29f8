// The McpServer peer of bench/legacy-http.mjs: the SDK v2's McpServer (bench/mcp-server.mjs's tools and flavours)
// behind the SDK's Node Streamable HTTP transport (@modelcontextprotocol/node's NodeStreamableHTTPServerTransport)
// on node:http, for 2025 clients, as the SDK's documentation wires it:
// - sessionful: a request without Mcp-Session-Id gets a transport of its own with a sessionIdGenerator and a server
//   from the factory connected to it; an initialize keeps the pair under the session id it was given (anything else
//   the transport answers 400 and the pair is dropped); later requests go to their session's transport; the pair is
//   forgotten when the transport closes (DELETE);
// - stateless: every POST a fresh server from the factory on a fresh transport with sessionIdGenerator: undefined,
//   closed with the response (the SDK's stateless idiom).
// Host and Origin are held to the loopback names with the SDK's localhostHostValidation and
// localhostOriginValidation guards, as the generated server holds them. Listens on 127.0.0.1, a free port, and
// prints the URL on stderr; exits on SIGTERM.
//
//   node bench/mcp-http-legacy.mjs <tools.json> <zod|fromJsonSchema> <sessionful|stateless>
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
} from '@modelcontextprotocol/node';
import { mcpServerFactory } from './mcp-server.mjs';

const [toolsFile, flavour, mode] = process.argv.slice(2);
if (!toolsFile || !flavour || !['sessionful', 'stateless'].includes(mode)) {
  console.error('usage: node bench/mcp-http-legacy.mjs <tools.json> <zod|fromJsonSchema> <sessionful|stateless>');
  process.exit(2);
}
const tools = JSON.parse(fs.readFileSync(toolsFile, 'utf8'));
const { factory } = mcpServerFactory(tools, flavour, { name: `bench-${tools.length}`, version: '1.0.0' });
const hostOk = localhostHostValidation();
const originOk = localhostOriginValidation();
const onerror = (error) => console.error('[bench] transport:', error.message);

/** @type {Map<string, NodeStreamableHTTPServerTransport>} */
const sessions = new Map();

async function sessionful(req, res) {
  const sid = req.headers['mcp-session-id'];
  if (typeof sid === 'string') {
    const transport = sessions.get(sid);
    if (transport) return transport.handleRequest(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
  }
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, transport),
    onsessionclosed: (id) => void sessions.delete(id),
  });
  transport.onerror = onerror;
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await factory().connect(transport);
  await transport.handleRequest(req, res);
  if (!transport.sessionId) void transport.close();
}

async function stateless(req, res) {
  const server = factory();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  transport.onerror = onerror;
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const handle = mode === 'sessionful' ? sessionful : stateless;
const httpServer = http.createServer((req, res) => {
  if (!hostOk(req, res) || !originOk(req, res)) return;
  handle(req, res).catch((error) => {
    console.error('[bench] request failed:', error);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
httpServer.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address());
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
