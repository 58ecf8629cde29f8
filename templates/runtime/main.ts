/**
 * Runs the server: `node main.js` serves stdio; `node main.js --http [--port 3000] [--host 127.0.0.1] [--stateless]`
 * serves Streamable HTTP.
 */
import { parseArgs } from 'node:util';
import { handlers } from './registry.js';
import { serveStdio } from './server.js';

const { values } = parseArgs({
  options: {
    http: { type: 'boolean', default: false },
    host: { type: 'string' },
    port: { type: 'string' },
    stateless: { type: 'boolean', default: false },
  },
});

if (values.http) {
  // Loaded only when asked for: the HTTP stack is not needed to serve stdio.
  const { serveHttp } = await import('./http.js');
  const port = values.port === undefined ? undefined : Number(values.port);
  const server = await serveHttp(handlers, {
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
    stateless: values.stateless,
  });
  console.error(`MCP server listening on ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else {
  await serveStdio(handlers);
}
