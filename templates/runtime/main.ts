/**
 * Runs the server: `node main.js` serves stdio; `node main.js --http` serves Streamable HTTP. `--help` lists the
 * flags. Mistakes in flags, a port in use and a bad TOOLSPEC_REQUEST_STATE_KEY end with one line on stderr.
 */
import { parseArgs } from 'node:util';
import { handlers } from './registry.js';
import { serverInfo } from './tools.js';

const HELP = `Usage: node main.js [--http [--port 3000] [--host 127.0.0.1] [--path /mcp] [--stateless]]

Serves the MCP server ${serverInfo.name} ${serverInfo.version}, protocol 2026-07-28 and the 2025 revisions.

  (no flags)       stdio: for clients that start the server themselves
  --http           Streamable HTTP, on 127.0.0.1 unless --host says otherwise
  --port <n>       HTTP port (default 3000; 0 picks a free one)
  --host <name>    HTTP address to listen on (default 127.0.0.1: this machine only)
  --path <path>    HTTP path of the endpoint (default /mcp)
  --allowed-hosts <names>  host names clients reach it by, comma-separated (default: the loopback names, or the
                   --host); needed with --host 0.0.0.0
  --stateless      serve 2025 clients without sessions (they cannot be asked for input mid-call)
  --help           this text

Environment: TOOLSPEC_REQUEST_STATE_KEY (at least 32 bytes) seals the state of calls waiting for input; set the
same value on every instance that serves one endpoint.`;

// A handler's stray rejection or a throw from its timer must not end a server that serves other calls (and, over
// HTTP, other clients): it is logged, with its stack, to stderr, and the server keeps serving.
process.on('unhandledRejection', (reason) =>
  console.error('[toolspec] a promise rejected and nothing handled it (still serving):', reason),
);
process.on('uncaughtException', (error) =>
  console.error('[toolspec] an error was thrown outside any call (still serving):', error),
);

/**
 * SIGTERM or SIGINT: stop taking requests, let the calls in flight answer (up to 10 s), then exit 0. A second signal
 * exits at once.
 */
function onStop(shutdown: () => Promise<boolean>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    void shutdown().then((settled) => {
      if (!settled) console.error('[toolspec] stopped with calls still running after 10 s');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function fail(message: string, code = 2): never {
  console.error(`error: ${message}`);
  process.exit(code);
}

let values: {
  http?: boolean;
  host?: string;
  port?: string;
  path?: string;
  'allowed-hosts'?: string;
  stateless?: boolean;
  help?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      http: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      path: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      stateless: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(`${(error as Error).message.split('\n')[0]}. See --help.`);
}

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
if (
  !values.http &&
  (values.host ?? values.port ?? values.path ?? values['allowed-hosts'] ?? values.stateless) !== undefined
) {
  fail('--host, --port, --path, --allowed-hosts and --stateless are HTTP options: add --http. See --help.');
}

try {
  if (values.http) {
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
      fail(`--port must be a number from 0 to 65535, not ${JSON.stringify(values.port)}`);
    }
    if (values.path !== undefined && !values.path.startsWith('/'))
      fail(`--path must start with "/", not ${JSON.stringify(values.path)}`);
    // Loaded only when asked for: the HTTP stack is not needed to serve stdio.
    const { serveHttp } = await import('./http.js');
    const server = await serveHttp(handlers, {
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(port === undefined ? {} : { port }),
      ...(values.path === undefined ? {} : { path: values.path }),
      ...(values['allowed-hosts'] === undefined
        ? {}
        : {
            allowedHosts: values['allowed-hosts']
              .split(',')
              .map((h) => h.trim())
              .filter(Boolean),
          }),
      stateless: values.stateless ?? false,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        fail(`port ${port ?? 3000} is in use: stop what uses it, or pick another with --port`, 1);
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
        fail(`cannot listen on ${values.host}: no such address here`, 1);
      if (error.code === 'EACCES') fail(`not allowed to listen on port ${port}: pick one above 1023`, 1);
      throw error;
    });
    console.error(`MCP server ${serverInfo.name} listening on ${server.url}${values.stateless ? ' (stateless)' : ''}`);
    onStop(() => server.shutdown());
  } else {
    const { serveStdio } = await import('./stdio.js');
    const server = serveStdio(handlers);
    onStop(() => server.shutdown());
    if (process.stderr.isTTY) console.error(`MCP server ${serverInfo.name} serving stdio (--help for HTTP)`);
  }
} catch (error) {
  if (error instanceof RangeError && /requestState key|every address/.test(error.message)) fail(error.message);
  throw error;
}
