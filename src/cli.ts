/**
 * The command line, wiring only: options parsed by commander, each command's module (src/commands/<name>.ts)
 * called, what it returns printed. The only layer that touches the console; exit codes are in commands/result.ts.
 */
import { Command, CommanderError, Option } from 'commander';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EXIT } from './commands/result.js';
import { fileSystemError, UserError } from './diagnostics.js';
import { chooseSpec, DEFAULT_SPEC } from './discover.js';
import { packageRoot } from './paths.js';
import { styleFor } from './report.js';

// Each command's module (and the spec loader, the generator and the type checker behind it) is imported only when
// that command runs: a generate or check with nothing to do (the cached state holds) starts in a fraction of the time.

/** A `[spec]` argument: undefined when none was given (src/discover.ts then looks for one). */
type Given = string | undefined;

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const formatOption = () =>
  new Option('--format <format>', 'output for people (text) or for machines (json)')
    .choices(['text', 'json'])
    .default('text');

/** For the commands that report findings: GitHub Actions annotations too. */
const reportFormatOption = () =>
  new Option('--format <format>', 'for people (text), machines (json) or GitHub Actions (github)')
    .choices(['text', 'json', 'github'])
    .default('text');

export async function main(argv: readonly string[], io: Partial<Io> = {}): Promise<number> {
  const { stdout, stderr, env, cwd } = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    ...io,
  };
  const out = (s: string) => void stdout.write(s.endsWith('\n') ? s : `${s}\n`);
  const err = (s: string) => void stderr.write(s.endsWith('\n') ? s : `${s}\n`);
  /** A command that returns what to print and its exit code; raw: stdout as it is (e.g. a spec written to -). */
  const finish = (r: { stdout: string; stderr: string; code: number }, { raw = false } = {}) => {
    if (r.stderr) err(r.stderr);
    if (r.stdout && raw) stdout.write(r.stdout);
    else if (r.stdout) out(r.stdout);
    code = r.code;
  };
  let code: number = EXIT.ok;

  const program = new Command('toolspec')
    .description('Generate typed, validated MCP tool servers from a YAML spec, and check them for drift.')
    .version(packageVersion(), '-v, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: out, writeErr: err });

  const styles = () => ({ out: styleFor(stdout, env), err: styleFor(stderr, env) });
  /** The spec a command works on: the one named, or toolspec.yaml here or in the nearest parent (src/discover.ts). */
  const specArg = () =>
    ['[spec]', `the spec file (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`] as const;
  const specOf = (given: string | undefined) => chooseSpec(given, cwd);

  program
    .command('validate')
    .description('load and check the spec; print every problem at once')
    .argument(...specArg())
    .addOption(reportFormatOption())
    .action(async (spec: Given, opts: { format: 'text' | 'json' | 'github' }) => {
      finish(
        await (
          await import('./commands/validate.js')
        ).validateCommand({ ...specOf(spec), cwd, format: opts.format, style: styles() }),
      );
    });

  program
    .command('generate')
    .description('write the generated files, and a handler stub for each tool that has none yet')
    .argument(...specArg())
    .addOption(formatOption())
    .option(
      '--watch',
      'generate now, then again whenever the spec or a file it includes changes (one line per run; Ctrl-C stops)',
    )
    .option(
      '--new-stubs',
      'create stubs for new tools even when handlers of tools the spec no longer has are there (without it, generate asks whether a new tool is one of those renamed: see renamedFrom)',
    )
    .option(
      '--no-cache',
      'compute everything, reading no cache, and put what was computed in its place (the output is the same bytes either way)',
    )
    .action(
      async (spec: Given, opts: { format: 'text' | 'json'; watch?: boolean; newStubs?: boolean; cache: boolean }) => {
        const newStubs = opts.newStubs === true;
        const noCache = !opts.cache;
        if (opts.watch) {
          const { watchGenerate } = await import('./commands/watch.js');
          code = await watchGenerate({
            ...specOf(spec),
            cwd,
            format: opts.format,
            style: styleFor(stderr, env),
            out,
            err,
            newStubs,
            noCache,
          });
          return;
        }
        const r = await (
          await import('./commands/generate.js')
        ).generateCommand({
          ...specOf(spec),
          cwd,
          format: opts.format,
          style: styleFor(stderr, env),
          newStubs,
          noCache,
        });
        finish(r);
      },
    );

  program
    .command('check')
    .description(
      'the drift check: regenerate in memory and compare, then hold every handler to its contract; changes nothing',
    )
    .argument(...specArg())
    .addOption(reportFormatOption())
    .option('--diff', 'show a diff for each stale file (default: on a terminal)')
    .option('--no-diff', 'no diffs')
    .action(async (spec: Given, opts: { format: 'text' | 'json' | 'github'; diff?: boolean }) => {
      const { checkCommand } = await import('./commands/check.js');
      finish(
        await checkCommand({
          ...specOf(spec),
          cwd,
          format: opts.format,
          diff: opts.diff ?? Boolean(stdout.isTTY),
          style: styles(),
        }),
      );
    });

  program
    .command('diff')
    .description(
      'compare two versions of the spec: every change classified breaking, compatible or prompt; exit 1 on a breaking one',
    )
    .argument(
      '[old]',
      'the old spec: a file, a git revision (the spec at that revision, with its includes) or <rev>:<path>',
    )
    .argument('[new]', 'the new spec, the same way (default: the spec file in the working tree)')
    .option(
      '--against <rev>',
      'compare the working spec (or the one file given) with the spec at this git revision, e.g. origin/main',
    )
    .option(
      '--spec <path>',
      `the spec file, for operands that name only a revision (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`,
    )
    .addOption(reportFormatOption())
    .addOption(
      new Option('--fail-on <class>', 'exit 1 on breaking changes, on breaking or prompt changes, or on any change')
        .choices(['breaking', 'prompt', 'any'])
        .default('breaking'),
    )
    .action(
      async (
        oldSpec: string | undefined,
        newSpec: string | undefined,
        opts: {
          against?: string;
          spec?: string;
          format: 'text' | 'json' | 'github';
          failOn: 'breaking' | 'prompt' | 'any';
        },
      ) => {
        const { diffCommand } = await import('./commands/diff.js');
        const r = diffCommand({
          old: oldSpec,
          new: newSpec,
          against: opts.against,
          spec: specOf(opts.spec).spec,
          format: opts.format,
          failOn: opts.failOn,
          cwd,
          style: styles(),
        });
        finish(r);
      },
    );

  program
    .command('lint')
    .description(
      'check the spec against the lint rules and count the tokens its tools take (rules and budget: options.lint)',
    )
    .argument(...specArg())
    .addOption(reportFormatOption())
    .option('--rules', 'list the rules, their default severity and what they find')
    .action(async (spec: Given, opts: { format: 'text' | 'json' | 'github'; rules?: boolean }) => {
      const { lintCommand } = await import('./commands/lint.js');
      finish(
        await lintCommand({ ...specOf(spec), cwd, format: opts.format, rules: Boolean(opts.rules), style: styles() }),
      );
    });

  program
    .command('import')
    .description('write a spec from an existing MCP server: its tools exactly as it lists them')
    .option('--from-command <command>', 'start the server with this command line (no shell) and read it over stdio')
    .option('--from-url <url>', 'read the server at this Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp')
    .option(
      '--from-file <file>',
      'read a saved tools/list result, a JSON-RPC response with one, or an array of tools (JSON)',
    )
    .option('--out <file>', 'the spec file to write; - prints it instead', DEFAULT_SPEC)
    .option('--force', 'replace --out when it exists')
    .option('--hoist', 'move sub-schemas that two or more tools repeat into shared $defs (schemas then refer to them)')
    .option('--skip-invalid', 'leave out the tools toolspec cannot take, instead of writing nothing')
    .option('--timeout <duration>', 'how long the server may take to start and to answer each request', '30s')
    .option(
      '--header <header>',
      'an HTTP header for --from-url, "Name: value"; repeatable',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--name <name>', 'the server name to write (default: the one the server reports)')
    .option('--server-version <version>', 'the server version to write (default: the one the server reports)')
    .addOption(formatOption())
    .action(
      async (opts: {
        fromCommand?: string;
        fromUrl?: string;
        fromFile?: string;
        out: string;
        force?: boolean;
        hoist?: boolean;
        skipInvalid?: boolean;
        timeout: string;
        header?: string[];
        name?: string;
        serverVersion?: string;
        format: 'text' | 'json';
      }) => {
        const { importCommand } = await import('./commands/import.js');
        const { force, hoist, skipInvalid, header, ...rest } = opts;
        const r = await importCommand({
          ...rest,
          force: Boolean(force),
          hoist: Boolean(hoist),
          skipInvalid: Boolean(skipInvalid),
          headers: header ?? [],
          cwd,
          env,
          version: packageVersion(),
        });
        finish(r, { raw: true });
      },
    );

  program
    .command('init')
    .description('create a new MCP server project: npm install && npm start serves it, npm test tests it')
    .argument('[dir]', 'the project folder', '.')
    .option('--force', 'add the files to a folder that is not empty (existing files are still never overwritten)')
    .option(
      '--toolspec <spec>',
      'the toolspec devDependency to write in package.json (a version range, file:<path>, a URL); default: one that ' +
        'installs here (a registry range, or the clone or tarball this toolspec runs from)',
    )
    .action(async (dir: string, opts: { force?: boolean; toolspec?: string }) => {
      const { initCommand } = await import('./commands/init.js');
      finish(
        await initCommand({
          dir,
          cwd,
          force: Boolean(opts.force),
          ...(opts.toolspec === undefined ? {} : { toolspec: opts.toolspec }),
          style: styles(),
        }),
      );
    });

  program
    .command('call')
    .description("run one tool through the project's handler and the generated dispatcher, in this process, no build")
    .argument('[tool]', 'the tool to call')
    .argument(
      '[arguments...]',
      'key=value (read by the type the input schema gives the property), or key:=json (JSON as it is)',
    )
    .option('--json <object>', 'the arguments as one JSON object (key=value pairs after it set its keys)')
    .option('--list', "list the tools and their arguments (or one tool's, when named)")
    .option('--prompt <name>', 'get this prompt instead (prompts/get): the key=value pairs are its arguments')
    .option('--read <uri>', 'read this resource instead (resources/read): a fixed URI or one a template matches')
    .option('--spec <path>', `the spec file (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`)
    .addOption(formatOption())
    .addHelpText(
      'after',
      `
Arguments: key=value reads the value by the property's type in the input schema: a string takes the text as it is;
a number, integer, boolean or null takes its JSON reading (limit=5, dry=true); an array takes a JSON array or the
text split at commas (ids=1,2,3), and a repeated key adds items (tag=a tag=b); an object takes JSON. key:=json
always reads JSON (note:=null). A value of the wrong type is passed on, and the tool's validator rejects it as the
server would.

Output: text content as text, structured content as JSON (the whole result with --format json); an error result's
text on stderr. Log messages and progress go to stderr. The handler runs with no client: a tool that asks for input
(elicitation, sampling) ends with exit 1.

Exit codes: 0 the tool returned a result; 1 the result is an error (rejected arguments, a failing handler, output
that breaks the schema) or the tool asked for input; 2 usage (unknown tool, unreadable arguments, invalid spec,
handler missing or not parsing, dependencies not installed); 3 internal error.

Examples:
  toolspec call --list
  toolspec call search_docs query=install limit=5
  toolspec call search_docs --json '{"query": "install", "filters": {"tag": "cli"}}'
  toolspec call --prompt summarise_notes topic=cooking
  toolspec call --read notes://42`,
    )
    .action(
      async (
        tool: string | undefined,
        pairs: string[],
        opts: { json?: string; list?: boolean; prompt?: string; read?: string; spec?: string; format: 'text' | 'json' },
      ) => {
        const { callCommand } = await import('./commands/call.js');
        finish(
          await callCommand({
            tool,
            pairs,
            ...(opts.json === undefined ? {} : { json: opts.json }),
            list: Boolean(opts.list),
            ...(opts.prompt === undefined ? {} : { prompt: opts.prompt }),
            ...(opts.read === undefined ? {} : { read: opts.read }),
            spec: specOf(opts.spec).spec,
            cwd,
            format: opts.format,
            style: styles(),
            err,
          }),
          { raw: true },
        );
        // The handler's module may hold the event loop open (a connection pool, a timer): once the result is out,
        // the process ends anyway. Only as the real process: main() in a test's process leaves the process alone.
        if (!io.stdout) setTimeout(() => process.exit(code), 250).unref();
      },
    );

  program
    .command('dev')
    .description(
      'the edit loop: on every change to the spec or the code, regenerate, type-check, build and restart the server over HTTP',
    )
    .option('--spec <path>', `the spec file (default: ${DEFAULT_SPEC} here or in the nearest parent folder)`)
    .option('--port <n>', 'the HTTP port on 127.0.0.1, kept across restarts (0 picks a free one)', '3000')
    .option('--sessions', 'serve 2025 clients with sessions (they end on every restart); default: stateless')
    .addHelpText(
      'after',
      `
One line per cycle on stdout, e.g.
  12:01:03 src/handlers/search.ts changed → generated files unchanged, type-checked, restarted on http://127.0.0.1:3000/mcp (412 ms)
When a cycle fails (spec diagnostics, type errors at file:line:col, a server that does not start) the errors go to
stderr and the server keeps running the last good build. Ctrl-C stops the loop and the server.

Exit codes: 0 stopped by Ctrl-C (SIGINT) or SIGTERM; 2 usage (a bad --port, the port in use at start).`,
    )
    .action(async (opts: { spec?: string; port: string; sessions?: boolean }) => {
      const port = Number(opts.port);
      if (!/^\d+$/.test(opts.port) || port > 65535) {
        err(`toolspec dev: --port must be a number from 0 to 65535, not ${JSON.stringify(opts.port)}`);
        code = EXIT.invalid;
        return;
      }
      const { devCommand } = await import('./commands/dev.js');
      code = await devCommand({
        spec: specOf(opts.spec).spec,
        cwd,
        port,
        sessions: Boolean(opts.sessions),
        style: styleFor(stderr, env),
        out,
        err,
      });
    });

  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    }
    const user = e instanceof UserError ? e : fileSystemError(e, cwd);
    if (user) {
      err(`toolspec: ${user.message}`);
      return EXIT.invalid;
    }
    err(
      `toolspec: internal error — this is a bug in toolspec, please report it with the spec that caused it\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    );
    return EXIT.internal;
  }
}

function packageVersion(): string {
  const pkg = createRequire(path.join(packageRoot, 'package.json'))('./package.json') as { version: string };
  return pkg.version;
}
