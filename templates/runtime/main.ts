/**
 * Runs the server: `node main.js` serves stdio; `node main.js --http` serves Streamable HTTP. `--help` lists the
 * flags. Once it serves, one line on stderr says so (name, version, transport, address); stdout carries the protocol
 * alone. A mistake in a flag (with "did you mean"), a bad value, a port in use, an address it cannot listen on and a
 * bad TOOLSPEC_REQUEST_STATE_KEY end with one line on stderr and exit 2, never a stack trace.
 */
import { parseArgs } from 'node:util';
import { authOptionsFrom } from './access.js';
import { handlers } from './registry.js';
import { serverInfo } from './tools.js';

const HELP = `Usage: node main.js [--http [--port 3000] [--host 127.0.0.1] [--path /mcp] [--stateless] [--server-card]]

Serves the MCP server ${serverInfo.name} ${serverInfo.version}, protocol 2026-07-28 and the 2025 revisions.

  (no flags)       stdio: for clients that start the server themselves
  --http           Streamable HTTP, on 127.0.0.1 unless --host says otherwise
  --port <n>       HTTP port (default 3000; 0 picks a free one)
  --host <name>    HTTP address to listen on (default 127.0.0.1: this machine only)
  --path <path>    HTTP path of the endpoint (default /mcp)
  --allowed-hosts <names>  host names clients reach it by, comma-separated (default: the loopback names, or the
                   --host); needed with --host 0.0.0.0
  --stateless      serve 2025 clients without sessions (they cannot be asked for input mid-call)
  --server-card    experimental: serve the server card (who the server is, what it offers) at <path>/server-card
  --help, -h       this text

Environment:
  TOOLSPEC_REQUEST_STATE_KEY  a secret of at least 32 bytes that seals the state of calls waiting for input; set the
                   same value on every instance that serves one endpoint (default: a random key per process)
  TOOLSPEC_AUTH_ISSUER, TOOLSPEC_AUTH_RESOURCE, TOOLSPEC_AUTH_JWKS_URI, TOOLSPEC_AUTH_INTROSPECTION  over HTTP,
                   with the spec's auth: the authorization server, this server's public URL, the keys and the
                   introspection endpoint, in place of the spec's
  TOOLSPEC_AUTH_CLIENT_ID, TOOLSPEC_AUTH_CLIENT_SECRET  the credentials for auth.introspection

Once serving, it prints one line to stderr (name, version, transport, address); on stdio, stdout carries the
protocol alone. Exit status: 0 after SIGINT or SIGTERM (calls in flight may finish, up to 10 s); 2 for a bad flag or
value, a port in use or an address it cannot listen on.`;

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

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(2);
}

const FLAGS = ['--http', '--port', '--host', '--path', '--allowed-hosts', '--stateless', '--server-card', '--help'];

/** The flag closest to a mistyped one (at most 2 edits, or its start), for "did you mean". */
function closestFlag(typed: string): string | undefined {
  const name = `--${typed.replace(/^-+/, '').split('=')[0]!.toLowerCase()}`;
  const distance = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
      row = next;
    }
    return row[b.length]!;
  };
  const ranked = FLAGS.map((f) => ({ f, d: distance(name, f) })).sort((x, y) => x.d - y.d);
  if (ranked[0]!.d <= 2) return ranked[0]!.f;
  return name.length > 3 ? FLAGS.find((f) => f.startsWith(name)) : undefined;
}

let values: {
  http?: boolean;
  host?: string;
  port?: string;
  path?: string;
  'allowed-hosts'?: string;
  stateless?: boolean;
  'server-card'?: boolean;
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
      'server-card': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  const { code, message } = error as NodeJS.ErrnoException;
  const typed = /'([^']+)'/.exec(message)?.[1];
  const suggestion = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && typed ? closestFlag(typed) : undefined;
  fail(`${message.split('. ')[0]!.split('\n')[0]}${suggestion ? ` (did you mean ${suggestion}?)` : ''}. See --help.`);
}

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
if (
  !values.http &&
  (values.host ??
    values.port ??
    values.path ??
    values['allowed-hosts'] ??
    values.stateless ??
    values['server-card']) !== undefined
) {
  fail(
    '--host, --port, --path, --allowed-hosts, --stateless and --server-card are HTTP options: add --http. See --help.',
  );
}

const ready = `${serverInfo.name} ${serverInfo.version}`;

try {
  if (values.http) {
    // Digits only: Number() would take "0x50", "1e3" or " 80" for a port.
    const port = values.port === undefined ? undefined : /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
    if (port !== undefined && !(port >= 0 && port <= 65535)) {
      fail(`--port must be a number from 0 to 65535, not ${JSON.stringify(values.port)}`);
    }
    // An empty host would make Node listen on every address, past the check that asks for --allowed-hosts.
    if (values.host !== undefined && !values.host.trim()) fail('--host needs an address, such as 127.0.0.1');
    if (values.path !== undefined && !values.path.startsWith('/'))
      fail(`--path must start with "/", not ${JSON.stringify(values.path)}`);
    const host = values.host ?? '127.0.0.1';
    const where = `${host.includes(':') ? `[${host}]` : host}:${port ?? 3000}`;
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
      serverCard: values['server-card'] ?? false,
      // The deployment's part of the spec's auth: URLs and the introspection secret, never in the spec.
      auth: authOptionsFrom((variable) => process.env[variable]),
    }).catch((error: NodeJS.ErrnoException) => {
      switch (error.code) {
        case 'EADDRINUSE':
          return fail(`${where} is in use: stop what uses it, or pick another port with --port (0 picks a free one)`);
        case 'EADDRNOTAVAIL':
        case 'ENOTFOUND':
        case 'EAI_AGAIN':
        case 'EAI_NONAME':
          return fail(`cannot listen on ${host}: no such address on this machine (--host 127.0.0.1 serves it alone)`);
        case 'EACCES':
          return fail(`not allowed to listen on ${where}: pick a port above 1023 with --port`);
      }
      // Anything else the system refuses while binding is still about the address, not a bug of the server.
      if (error.syscall === 'listen' || error.syscall === 'getaddrinfo' || error.syscall === 'bind')
        fail(`cannot listen on ${where}: ${error.code ?? error.message}`);
      throw error;
    });
    console.error(`${ready} listening on ${server.url}${values.stateless ? ' (stateless)' : ''}`);
    onStop(() => server.shutdown());
  } else {
    const { serveStdio } = await import('./stdio.js');
    const server = serveStdio(handlers);
    onStop(() => server.shutdown());
    // Always, not only on a terminal: a client shows a server's stderr in its log, where this line says it started.
    console.error(`${ready} ready on stdio`);
  }
} catch (error) {
  if (error instanceof RangeError && /requestState key|every address|^auth /.test(error.message)) fail(error.message);
  throw error;
}
