/**
 * The command line: a table of the commands (their arguments, options and help), and main(), which registers them
 * with commander, calls the command's module (src/commands/<name>.ts) and prints what it returns. The only module
 * that touches the console; exit codes are in commands/result.ts. Each command's module (and the spec loader, the
 * generator and the type checker behind it) is imported only when that command runs.
 */
import { once } from 'node:events';
import { Command, CommanderError, Option } from 'commander';
import { EXIT, type CommandResult, type ReportFormat, type Styles } from './commands/result.js';
import type { CallInput } from './commands/call.js';
import type { DiffCommandInput } from './commands/diff.js';
import type { ImportInput } from './commands/import.js';
import type { InitInput } from './commands/init.js';
import { describeError } from './core/diagnostics.js';
import { chooseSpec, DEFAULT_SPEC } from './core/discover.js';
import { packageVersion } from './core/paths.js';
import { styleFor } from './report/text.js';

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What a command's `run` gets besides its arguments and options. */
type Run = ReturnType<typeof runFor>;

type Opts = Record<string, unknown> & { format: ReportFormat };

interface CommandSpec {
  name: string;
  summary: string;
  /** [syntax, description, default]. */
  args?: [string, string, string?][];
  options?: Option[];
  help?: string;
  /** Prints stdout as the command returns it (a spec written to -), not as a line. */
  raw?: boolean;
  /** What to print and the exit code; or only the exit code, from a command that prints as it goes (watch, dev). */
  run: (run: Run, args: (string | string[] | undefined)[], opts: Opts) => Promise<CommandResult | number>;
}

const option = (flags: string, description: string, value?: string) => new Option(flags, description).default(value);
const format = () =>
  option('--format <format>', 'output for people (text) or for machines (json)', 'text').choices(['text', 'json']);
/** For the commands that report findings: GitHub Actions annotations too. */
const reportFormat = () =>
  option(
    '--format <format>',
    'for people (text), machines (json), GitHub Actions (github) or code scanning (sarif: SARIF 2.1.0)',
    'text',
  ).choices(['text', 'json', 'github', 'sarif']);
const SPEC = `the spec file (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`;
const specArg = (): [string, string] => ['[spec]', SPEC];
const specOption = () => option('--spec <path>', SPEC);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

const COMMANDS: CommandSpec[] = [
  {
    name: 'validate',
    summary: 'load and check the spec; print every problem at once',
    args: [specArg()],
    options: [reportFormat()],
    run: async (r, [spec], o) =>
      (await import('./commands/validate.js')).validateCommand({ ...r.base(spec), format: o.format }),
  },
  {
    name: 'generate',
    summary: 'write the generated files, and a handler stub for each tool that has none yet',
    args: [specArg()],
    options: [
      format(),
      option(
        '--watch',
        'generate now, then again whenever the spec or a file it includes changes (one line per run; Ctrl-C stops)',
      ),
      option(
        '--new-stubs',
        'create stubs for new tools even when handlers of tools the spec no longer has are there (without it, generate asks whether a new tool is one of those renamed: see renamedFrom)',
      ),
      option(
        '--no-cache',
        'compute everything, reading no cache, and put what was computed in its place (the output is the same bytes either way)',
      ),
    ],
    run: async (r, [spec], o) => {
      const input = {
        ...r.base(spec),
        format: o.format as 'text' | 'json',
        style: r.styles().err,
        newStubs: o.newStubs === true,
        noCache: o.cache === false,
      };
      if (!o.watch) return (await import('./commands/generate.js')).generateCommand(input);
      return (await import('./commands/watch.js')).watchGenerate({ ...input, out: r.out, err: r.err });
    },
  },
  {
    name: 'check',
    summary:
      'the drift check: regenerate in memory and compare, then hold every handler to its contract; changes nothing',
    args: [specArg()],
    options: [
      reportFormat(),
      option('--diff', 'show a diff for each stale file (default: on a terminal)'),
      option('--no-diff', 'no diffs'),
    ],
    run: async (r, [spec], o) => {
      const diff = typeof o.diff === 'boolean' ? o.diff : r.isTTY;
      return (await import('./commands/check.js')).checkCommand({ ...r.base(spec), format: o.format, diff });
    },
  },
  {
    name: 'diff',
    summary:
      'compare two versions of the spec: every change classified breaking, compatible or prompt; exit 1 on a breaking one',
    args: [
      ['[old]', 'the old spec: a file, a git revision (the spec at that revision, with its includes) or <rev>:<path>'],
      ['[new]', 'the new spec, the same way (default: the spec file in the working tree)'],
    ],
    options: [
      option(
        '--against <rev>',
        'compare the working spec (or the one file given) with the spec at this git revision, e.g. origin/main',
      ),
      option(
        '--spec <path>',
        `the spec file, for operands that name only a revision (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`,
      ),
      reportFormat(),
      option(
        '--fail-on <class>',
        'exit 1 on breaking changes, on breaking or prompt changes, or on any change',
        'breaking',
      ).choices(['breaking', 'prompt', 'any']),
      option(
        '--check-version',
        'exit 1 when server.version did not move as far as the changes need (breaking: major, compatible: minor, prompt: patch)',
      ),
    ],
    run: async (r, [old, next], o) =>
      (await import('./commands/diff.js')).diffCommand({
        ...(o as unknown as DiffCommandInput),
        ...r.base(o.spec),
        old: str(old),
        new: str(next),
      }),
  },
  {
    name: 'lint',
    summary:
      'check the spec against the lint rules and count the tokens its tools take (rules and budget: options.lint)',
    args: [specArg()],
    options: [reportFormat(), option('--rules', 'list the rules, their default severity and what they find')],
    run: async (r, [spec], o) =>
      (await import('./commands/lint.js')).lintCommand({ ...r.base(spec), format: o.format, rules: Boolean(o.rules) }),
  },
  {
    name: 'docs',
    summary:
      'write the catalog of the server: one self-contained HTML page of its tools, prompts and resources, searchable',
    args: [specArg()],
    options: [
      option('--out <file>', 'the file to write (default: toolspec-docs.html beside the spec)'),
      option(
        '--diff <rev>',
        'show what changed since the spec at this git revision (as toolspec diff --against <rev>) and mark the changed tools',
      ),
    ],
    help: `
The page holds its CSS and script and fetches nothing when opened; every string from the spec is escaped. It is
written whole (a temporary file renamed over the old one), and left alone when its bytes are the same.

Exit codes: 0 written or unchanged; 2 invalid spec (here or at the --diff revision), unknown revision, or a file
that cannot be written (nothing written); 3 internal error.

Examples:
  toolspec docs
  toolspec docs specs/toolspec.yaml --out site/catalog.html
  toolspec docs --diff origin/main`,
    run: async (r, [spec], o) =>
      (await import('./commands/docs.js')).docsCommand({ ...r.base(spec), out: str(o.out), diff: str(o.diff) }),
  },
  {
    name: 'clients',
    summary: "print the entry each MCP client needs to start this server, or write it into the client's project file",
    args: [['[client]', 'claude-code, claude-desktop, cursor or vscode (default: all of them)']],
    options: [
      specOption(),
      option('--http <url>', 'reach the server at this Streamable HTTP URL instead of starting it over stdio'),
      option(
        '--write',
        "write the entry into the client's file in the project (.mcp.json, .cursor/mcp.json, .vscode/mcp.json), keeping the others",
      ),
    ],
    run: async (r, [client], o) => {
      const input = { ...r.base(o.spec), client: str(client), http: str(o.http), write: Boolean(o.write) };
      return (await import('./commands/clients.js')).clientsCommand(input);
    },
  },
  {
    name: 'import',
    summary: 'write a spec from an existing MCP server: its tools exactly as it lists them',
    options: [
      option('--from-command <command>', 'start the server with this command line (no shell) and read it over stdio'),
      option('--from-url <url>', 'read the server at this Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp'),
      option(
        '--from-file <file>',
        'read a saved tools/list result, a JSON-RPC response with one, or an array of tools (JSON)',
      ),
      option('--out <file>', 'the spec file to write; - prints it instead', DEFAULT_SPEC),
      option('--force', 'replace --out when it exists'),
      option(
        '--hoist',
        'move sub-schemas that two or more tools repeat into shared $defs (schemas then refer to them)',
      ),
      option('--skip-invalid', 'leave out the tools toolspec cannot take, instead of writing nothing'),
      option('--timeout <duration>', 'how long the server may take to start and to answer each request', '30s'),
      option('--header <header>', 'an HTTP header for --from-url, "Name: value"; repeatable').argParser(
        (v: string, all: string[] = []) => [...all, v],
      ),
      option('--name <name>', 'the server name to write (default: the one the server reports)'),
      option('--server-version <version>', 'the server version to write (default: the one the server reports)'),
      format(),
    ],
    raw: true,
    run: async (r, _args, o) => {
      const input = { ...(o as unknown as ImportInput), cwd: r.cwd, env: r.env };
      return (await import('./commands/import.js')).importCommand(input);
    },
  },
  {
    name: 'init',
    summary: 'create a new MCP server project: npm install && npm start serves it, npm test tests it',
    args: [['[dir]', 'the project folder', '.']],
    options: [
      option('--force', 'add the files to a folder that is not empty (existing files are still never overwritten)'),
      option('--blank', 'start from a spec with no tools, without the example tool, prompt and resource'),
      option(
        '--toolspec <spec>',
        'the toolspec devDependency to write in package.json (a version range, file:<path>, a URL); default: one that installs here (a registry range, or the clone or tarball this toolspec runs from)',
      ),
    ],
    run: async (r, [dir], o) => {
      const input = { ...(o as unknown as InitInput), dir: dir as string, cwd: r.cwd, style: r.styles() };
      return (await import('./commands/init.js')).initCommand(input);
    },
  },
  {
    name: 'call',
    summary: "run one tool through the project's handler and the generated dispatcher, in this process, no build",
    args: [
      ['[tool]', 'the tool to call'],
      [
        '[arguments...]',
        'key=value (read by the type the input schema gives the property), or key:=json (JSON as it is)',
      ],
    ],
    options: [
      option('--json <object>', 'the arguments as one JSON object (key=value pairs after it set its keys)'),
      option('--list', "list the tools and their arguments (or one tool's, when named)"),
      option('--prompt <name>', 'get this prompt instead (prompts/get): the key=value pairs are its arguments'),
      option('--read <uri>', 'read this resource instead (resources/read): a fixed URI or one a template matches'),
      specOption(),
      format(),
    ],
    raw: true,
    help: `
Arguments: key=value reads the value by the property's type in the input schema: a string takes the text as it is;
a number, integer, boolean or null takes its JSON reading (limit=5, dry=true); an array takes a JSON array or the
text split at commas (ids=1,2,3), and a repeated key adds items (tag=a tag=b); an object takes JSON. key:=json
always reads JSON (note:=null). A value of the wrong type is passed on, and the tool's validator rejects it as the
server would.

Output: text content as text, structured content as JSON (the whole result with --format json); an error result's
text on stderr. Log messages, progress and whatever the handler prints go to stderr: stdout holds the result alone. The handler runs with no client: a tool that asks for input
(elicitation, sampling) ends with exit 1.

Exit codes: 0 the tool returned a result; 1 the result is an error (rejected arguments, a failing handler, output
that breaks the schema), the tool asked for input, or its handler can never finish; 2 usage (unknown tool, unreadable arguments, invalid spec,
handler missing or not parsing, dependencies not installed); 3 internal error.

Examples:
  toolspec call --list
  toolspec call search_docs query=install limit=5
  toolspec call search_docs --json '{"query": "install", "filters": {"tag": "cli"}}'
  toolspec call --prompt summarise_notes topic=cooking
  toolspec call --read notes://42`,
    run: async (r, [tool, pairs], o) => {
      const { callCommand } = await import('./commands/call.js');
      const called = callCommand({
        ...(o as unknown as CallInput),
        tool: str(tool),
        pairs: (pairs as string[] | undefined) ?? [],
        ...r.base(o.spec),
        err: r.err,
      });
      if (!r.asProcess) return called;
      const result = await asHandlersRun(called, str(o.prompt) ?? str(o.read) ?? str(tool));
      // The handler's module may hold the event loop open (a connection pool, a timer): once the result is out, the
      // process ends anyway. Only as the real process: main() in a test's process leaves the process alone.
      setTimeout(() => process.exit(process.exitCode ?? 0), 250).unref();
      return result;
    },
  },
  {
    name: 'dev',
    summary:
      'the edit loop: on every change to the spec or the code, regenerate, type-check, build and restart the server over HTTP',
    options: [
      specOption(),
      option('--port <n>', 'the HTTP port on 127.0.0.1, kept across restarts (0 picks a free one)', '3000'),
      option('--sessions', 'serve 2025 clients with sessions (they end on every restart); default: stateless'),
    ],
    help: `
One line per cycle on stdout, e.g.
  12:01:03 src/handlers/search.ts changed → generated files unchanged, type-checked, restarted on http://127.0.0.1:3000/mcp (412 ms)
When a cycle fails (spec diagnostics, type errors at file:line:col, a server that does not start) the errors go to
stderr and the server keeps running the last good build. Ctrl-C stops the loop and the server.

Exit codes: 0 stopped by Ctrl-C (SIGINT) or SIGTERM; 2 usage (a bad --port, the port in use at start).`,
    run: async (r, _args, o) => {
      const given = str(o.port)!;
      const port = Number(given);
      if (!/^\d+$/.test(given) || port > 65535) {
        r.err(`toolspec dev: --port must be a number from 0 to 65535, not ${JSON.stringify(given)}`);
        return EXIT.invalid;
      }
      return (await import('./commands/dev.js')).devCommand({
        spec: r.base(o.spec).spec,
        cwd: r.cwd,
        port,
        sessions: Boolean(o.sessions),
        style: r.styles().err,
        out: r.out,
        err: r.err,
      });
    },
  },
];

/**
 * A command that runs the project's handlers in this process: stdout is the command's own output (JSON with
 * --format json), so whatever a handler writes there meanwhile (a console.log) goes to stderr; and a handler whose
 * promise can never settle (nothing left running that could settle it) ends the command with exit 1 and a message,
 * where Node would exit 13 without a word.
 */
async function asHandlersRun(pending: Promise<CommandResult>, what: string | undefined): Promise<CommandResult> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof write;
  const settled = new AbortController();
  const never = once(process, 'beforeExit', { signal: settled.signal }).then(() => ({
    code: EXIT.failed,
    stdout: '',
    stderr: `toolspec: ${JSON.stringify(what ?? '')} never finished: its handler's promise neither resolved nor rejected, and nothing it started was left running that could settle it`,
  }));
  try {
    return await Promise.race([pending, never]);
  } finally {
    settled.abort();
    process.stdout.write = write;
  }
}

function runFor(io: Partial<Io>) {
  const { stdout, stderr, env, cwd } = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    ...io,
  };
  const out = (s: string) => void stdout.write(s.endsWith('\n') ? s : `${s}\n`);
  const err = (s: string) => void stderr.write(s.endsWith('\n') ? s : `${s}\n`);
  const styles = (): Styles => ({ out: styleFor(stdout, env), err: styleFor(stderr, env) });
  return {
    cwd,
    env,
    /** One line (or text) on stdout, or on stderr. */
    out,
    err,
    /** Prints what a command returned; raw: stdout as it is. Returns its exit code. */
    finish(r: CommandResult, raw = false): number {
      if (r.stderr) err(r.stderr);
      if (r.stdout && raw) stdout.write(r.stdout);
      else if (r.stdout) out(r.stdout);
      if (!io.stdout) process.exitCode = r.code;
      return r.code;
    },
    /**
     * The spec a command works on (the one named, or toolspec.yaml here or in the nearest parent: core/discover.ts),
     * where the search looked, the folder and the streams' styles: what most commands take.
     */
    base: (given: unknown) => ({ ...chooseSpec(str(given), cwd), cwd, style: styles() }),
    styles,
    /** True when main() runs as the real process (not a test's call); isTTY: stdout is a terminal. */
    asProcess: !io.stdout,
    isTTY: Boolean(stdout.isTTY),
  };
}

export async function main(argv: readonly string[], io: Partial<Io> = {}): Promise<number> {
  const run = runFor(io);
  const { out, err, cwd } = run;
  let code: number = EXIT.ok;
  const program = new Command('toolspec')
    .description('Generate typed, validated MCP tool servers from a YAML spec, and check them for drift.')
    .version(packageVersion(), '-v, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: out, writeErr: err });
  for (const c of COMMANDS) {
    const command = program.command(c.name).description(c.summary);
    for (const [syntax, description, value] of c.args ?? []) command.argument(syntax, description, value);
    for (const o of c.options ?? []) command.addOption(o);
    if (c.help) command.addHelpText('after', c.help);
    command.action(async (...given: unknown[]) => {
      const args = given.slice(0, c.args?.length ?? 0) as (string | string[] | undefined)[];
      const result = await c.run(run, args, given[args.length] as Opts);
      code = typeof result === 'number' ? result : run.finish(result, c.raw);
    });
  }

  try {
    // -V as well as -v: commander's own default, which people try first.
    await program.parseAsync(argv.map((a, i) => (i >= 2 && a === '-V' ? '--version' : a)));
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    const { user, message } = describeError(e, cwd);
    err(`toolspec: ${message}`);
    return user ? EXIT.invalid : EXIT.internal;
  }
}
