/**
 * The command line: the only layer that touches the console and decides exit codes.
 * 0 fine · 1 drift found, lint fails (options.lint.failOn) or diff finds a breaking change · 2 invalid spec, config or usage · 3 internal error.
 */
import { Command, CommanderError, Option } from 'commander';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Finding } from './check/findings.js';
import { formatFindingsGithub, formatFindingsJson, formatFindingsText } from './check/report.js';
import { fileSystemError, UserError } from './diagnostics.js';
import { initFiles, packageName } from './init.js';
import { displayPath } from './paths.js';
import { countSummary, formatDiagnostics, styleFor } from './report.js';
import type { LoadResult } from './spec.js';
import { verifiedState } from './state.js';
import { writeOutput } from './write.js';

// The spec loader, the generator and the type checker load only on the paths that use them: a generate or check
// with nothing to do (the cached state holds) starts in a fraction of the time.
const loader = () => import('./spec.js');
const generator = () => import('./emit/generate.js');
const linter = () => import('./lint/index.js');

export const EXIT = { ok: 0, drift: 1, lint: 1, invalid: 2, internal: 3 } as const;

const DEFAULT_SPEC = 'toolspec.yaml';

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const formatOption = () =>
  new Option('--format <format>', 'output for people (text) or for machines (json)').choices(['text', 'json']).default('text');

export async function main(argv: readonly string[], io: Partial<Io> = {}): Promise<number> {
  const { stdout, stderr, env, cwd } = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), ...io };
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

  /** Loads the spec and prints its diagnostics; undefined (and exit 2) when it has errors. */
  const load = async (spec: string, format: 'text' | 'json'): Promise<LoadResult> => {
    const result = (await loader()).loadModel(spec, { cwd });
    if (format === 'text' && result.diagnostics.length) {
      err(`${formatDiagnostics(result.diagnostics, styleFor(stderr, env), result.sources)}\n\n`);
    }
    if (!result.model) {
      code = EXIT.invalid;
      if (format === 'text') {
        err(`${countSummary(result.diagnostics)} in ${spec}${result.files.length > 1 ? ' and the files it includes' : ''}; nothing was written`);
      }
    }
    return result;
  };

  /**
   * Lints a loaded spec beside validate, generate and check: findings on stderr (validate with code frames, the
   * others one line each), exit 1 when they reach options.lint.failOn.
   */
  const lintBeside = async (result: LoadResult, format: string, frames: boolean, failNote = '') => {
    const api = await linter();
    const lint = await api.lintLoaded({ ...result, model: result.model! });
    if (lint.failed) code = EXIT.lint;
    if (format !== 'text' || !lint.findings.length) return lint;
    const style = styleFor(stderr, env);
    if (frames) err(`${api.formatLintFindings(lint.findings, style, result.sources)}\n\n`);
    else err(`${api.formatLintCompact(lint.findings, style)}\n${api.lintSummary(lint)}${lint.failed ? failNote : ''}; \`toolspec lint\` shows hints and the token table`);
    return lint;
  };

  program
    .command('validate')
    .description('load and check the spec; print every problem at once')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(formatOption())
    .action(async (spec: string, opts: { format: 'text' | 'json' }) => {
      const result = await load(spec, opts.format);
      const valid = result.model !== undefined;
      const lint = valid ? await lintBeside(result, opts.format, true) : undefined;
      if (opts.format === 'json') {
        out(JSON.stringify({ valid, spec, tools: result.model?.tools.length ?? null, diagnostics: result.diagnostics, lint: lint ?? null }, null, 2));
      } else if (lint?.failed) {
        out(`${spec} is valid, but ${(await linter()).lintSummary(lint)}`);
      } else if (valid) {
        const counts = [plural(lint?.errors ?? 0, 'lint error'), plural(result.diagnostics.length + (lint?.warnings ?? 0), 'warning')].filter((c) => !c.startsWith('0 '));
        const warn = counts.length ? ` (${counts.join(', ')})` : '';
        out(`${spec} is valid: ${plural(result.model!.tools.length, 'tool')} in ${plural(result.files.length, 'file')}${warn}`);
      }
    });

  program
    .command('generate')
    .description('write the generated files, and a handler stub for each tool that has none yet')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(formatOption())
    .option('--watch', 'generate now, then again whenever the spec or a file it includes changes (one line per run; Ctrl-C stops)')
    .action(async (spec: string, opts: { format: 'text' | 'json'; watch?: boolean }) => {
      if (opts.watch) {
        const { watchGenerate } = await import('./watch.js');
        code = await watchGenerate({ spec, cwd, format: opts.format, style: styleFor(stderr, env), out, err });
        return;
      }
      const r = await (await import('./commands/generate.js')).generateCommand({ spec, cwd, format: opts.format, style: styleFor(stderr, env) });
      finish(r);
    });

  program
    .command('check')
    .description('the drift check: regenerate in memory and compare, then hold every handler to its contract; changes nothing')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(new Option('--format <format>', 'for people (text), machines (json) or GitHub Actions (github)').choices(['text', 'json', 'github']).default('text'))
    .option('--diff', 'show a diff for each stale file (default: on a terminal)')
    .option('--no-diff', 'no diffs')
    .action(async (spec: string, opts: { format: 'text' | 'json' | 'github'; diff?: boolean }) => {
      const specPath = path.resolve(cwd, spec);
      const state = verifiedState(specPath);
      if (state) {
        const { checkHandlers } = await import('./check/handlers.js');
        const findings = await checkHandlers(state, cwd, undefined, specPath);
        return report(findings, state.tools.length);
      }
      const result = await load(spec, opts.format === 'text' ? 'text' : 'json');
      if (!result.model) {
        if (opts.format === 'json') out(JSON.stringify({ ok: false, spec, findings: [], diagnostics: result.diagnostics }, null, 2));
        if (opts.format === 'github') {
          const { annotation } = await import('./github.js');
          const errors = result.diagnostics.filter((d) => d.severity === 'error');
          out(errors.map((d) => annotation({ level: 'error', file: d.file, line: d.line, column: d.column, title: `toolspec ${d.code}`, message: d.hint ? `${d.message} (${d.hint})` : d.message })).join('\n'));
        }
        return;
      }
      const { checkProject } = await import('./check/check.js');
      const lint = await lintBeside(result, opts.format, false);
      const { formatLintGithub, withLint } = await linter();
      if (opts.format === 'github' && lint.findings.length) out(formatLintGithub(lint.findings));
      // A spec that fails lint is never cached as proven: the next check must lint it again.
      const proven = lint.failed ? undefined : result.inputs;
      report(await checkProject(result.model, result.validators!, cwd, proven, specPath), result.model.tools.length, lint.failed, (json) => withLint(json, lint));

      function report(findings: Finding[], tools: number, lintFailed = false, addLint = (json: string) => json): void {
        code = findings.length || lintFailed ? EXIT.drift : EXIT.ok;
        if (opts.format === 'json') return out(addLint(formatFindingsJson(findings, spec)));
        if (opts.format === 'github') return void (findings.length && out(formatFindingsGithub(findings)));
        if (!findings.length) return out(`${spec}: no drift — generated files, handlers and spec agree (${plural(tools, 'tool')})`);
        out(formatFindingsText(findings, styleFor(stdout, env), { diff: opts.diff ?? Boolean(stdout.isTTY) }));
      }
    });

  program
    .command('diff')
    .description('compare two versions of the spec: every change classified breaking, compatible or prompt; exit 1 on a breaking one')
    .argument('[old]', 'the old spec: a file, a git revision (the spec at that revision, with its includes) or <rev>:<path>')
    .argument('[new]', 'the new spec, the same way (default: the spec file in the working tree)')
    .option('--against <rev>', 'compare the working spec (or the one file given) with the spec at this git revision, e.g. origin/main')
    .option('--spec <path>', 'the spec file, for operands that name only a revision', DEFAULT_SPEC)
    .addOption(new Option('--format <format>', 'for people (text), machines (json) or GitHub Actions (github)').choices(['text', 'json', 'github']).default('text'))
    .addOption(new Option('--fail-on <class>', 'exit 1 on breaking changes, on breaking or prompt changes, or on any change').choices(['breaking', 'prompt', 'any']).default('breaking'))
    .action(async (oldSpec: string | undefined, newSpec: string | undefined, opts: { against?: string; spec: string; format: 'text' | 'json' | 'github'; failOn: 'breaking' | 'prompt' | 'any' }) => {
      const { diffCommand } = await import('./diff/command.js');
      const style = { out: styleFor(stdout, env), err: styleFor(stderr, env) };
      const r = diffCommand({ old: oldSpec, new: newSpec, against: opts.against, spec: opts.spec, format: opts.format, failOn: opts.failOn, cwd, style });
      finish(r);
    });

  program
    .command('lint')
    .description('check the spec against the lint rules and count the tokens its tools take (rules and budget: options.lint)')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(formatOption())
    .option('--rules', 'list the rules, their default severity and what they find')
    .action(async (spec: string, opts: { format: 'text' | 'json'; rules?: boolean }) => {
      const api = await linter();
      if (opts.rules) return out(api.formatRules(styleFor(stdout, env)));
      const result = await load(spec, opts.format);
      if (!result.model) return void (opts.format === 'json' && out(api.lintJson(spec, undefined, result.diagnostics)));
      const lint = await api.lintLoaded({ ...result, model: result.model }, { tokens: true });
      if (lint.failed) code = EXIT.lint;
      out(opts.format === 'json' ? api.lintJson(spec, lint, result.diagnostics) : api.formatLintReport(spec, lint, result.sources, styleFor(stdout, env)));
    });

  program
    .command('import')
    .description('write a spec from an existing MCP server: its tools exactly as it lists them')
    .option('--from-command <command>', 'start the server with this command line (no shell) and read it over stdio')
    .option('--from-url <url>', "read the server at this Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp")
    .option('--from-file <file>', 'read a saved tools/list result, a JSON-RPC response with one, or an array of tools (JSON)')
    .option('--out <file>', 'the spec file to write; - prints it instead', DEFAULT_SPEC)
    .option('--force', 'replace --out when it exists')
    .option('--hoist', 'move sub-schemas that two or more tools repeat into shared $defs (schemas then refer to them)')
    .option('--skip-invalid', 'leave out the tools toolspec cannot take, instead of writing nothing')
    .option('--timeout <duration>', 'how long the server may take to start and to answer each request', '30s')
    .option('--header <header>', 'an HTTP header for --from-url, "Name: value"; repeatable', (v: string, all: string[] = []) => [...all, v])
    .option('--name <name>', 'the server name to write (default: the one the server reports)')
    .option('--server-version <version>', 'the server version to write (default: the one the server reports)')
    .addOption(formatOption())
    .action(async (opts: { fromCommand?: string; fromUrl?: string; fromFile?: string; out: string; force?: boolean; hoist?: boolean; skipInvalid?: boolean; timeout: string; header?: string[]; name?: string; serverVersion?: string; format: 'text' | 'json' }) => {
      const { importCommand } = await import('./import/command.js');
      const { force, hoist, skipInvalid, header, ...rest } = opts;
      const r = await importCommand({ ...rest, force: Boolean(force), hoist: Boolean(hoist), skipInvalid: Boolean(skipInvalid), headers: header ?? [], cwd, env, version: packageVersion() });
      finish(r, { raw: true });
    });

  program
    .command('init')
    .description('create a new MCP server project: npm install && npm start serves it, npm test tests it')
    .argument('[dir]', 'the project folder', '.')
    .option('--force', 'add the files to a folder that is not empty (existing files are still never overwritten)')
    .option('--toolspec <spec>', 'the toolspec devDependency to write in package.json (a version range or a path)', `^${packageVersion()}`)
    .action(async (dir: string, opts: { force?: boolean; toolspec: string }) => {
      const abs = path.resolve(cwd, dir);
      if (fs.existsSync(abs) && fs.readdirSync(abs).length && !opts.force) {
        throw new UserError(`${dir} is not empty; pass --force to add the project files beside what is there (no existing file is overwritten)`);
      }
      const kept: string[] = [];
      for (const f of initFiles(packageName(abs), opts.toolspec)) {
        const target = path.join(abs, f.path);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        try {
          fs.writeFileSync(target, f.contents, { flag: 'wx' });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          kept.push(f.path);
        }
      }
      const spec = path.join(abs, 'toolspec.yaml');
      const result = await load(path.relative(cwd, spec) || spec, 'text');
      if (!result.model) return;
      writeOutput(result.model.rootDir, result.model.options, await (await generator()).generate(result.model, result.validators!));
      for (const f of kept) out(`kept ${f}: it exists already`);
      const shown = displayPath(abs, cwd);
      out(`created an MCP server project in ${shown || '.'}\n\nnext:\n${shown ? `  cd ${shown}\n` : ''}  npm install && npm start   # serve over stdio\n  npm test`);
    });

  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? EXIT.ok : EXIT.invalid;
    }
    const user = e instanceof UserError ? e : fileSystemError(e);
    if (user) {
      err(`toolspec: ${user.message}`);
      return EXIT.invalid;
    }
    err(`toolspec: internal error — this is a bug in toolspec, please report it with the spec that caused it\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return EXIT.internal;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function packageVersion(): string {
  const pkg = createRequire(import.meta.url)('../package.json') as { version: string };
  return pkg.version;
}
