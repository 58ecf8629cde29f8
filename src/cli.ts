/**
 * The command line: the only layer that touches the console and decides exit codes.
 * 0 fine · 1 drift found · 2 invalid spec, config or usage · 3 internal error.
 */
import { Command, CommanderError, Option } from 'commander';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Finding } from './check/findings.js';
import { formatFindingsGithub, formatFindingsJson, formatFindingsText } from './check/report.js';
import { UserError } from './diagnostics.js';
import { initFiles, packageName } from './init.js';
import { displayPath } from './paths.js';
import { countSummary, formatDiagnostics, styleFor } from './report.js';
import type { LoadResult } from './spec.js';
import { saveState, stateFor, verifiedState } from './state.js';
import { writeOutput, type WriteReport } from './write.js';

// The spec loader, the generator and the type checker load only on the paths that use them: a generate or check
// with nothing to do (the cached state holds) starts in a fraction of the time.
const loader = () => import('./spec.js');
const generator = () => import('./emit/generate.js');

export const EXIT = { ok: 0, drift: 1, invalid: 2, internal: 3 } as const;

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

  program
    .command('validate')
    .description('load and check the spec; print every problem at once')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(formatOption())
    .action(async (spec: string, opts: { format: 'text' | 'json' }) => {
      const result = await load(spec, opts.format);
      const valid = result.model !== undefined;
      if (opts.format === 'json') {
        out(JSON.stringify({ valid, spec, tools: result.model?.tools.length ?? null, diagnostics: result.diagnostics }, null, 2));
      } else if (valid) {
        const warn = result.diagnostics.length ? ` (${countSummary(result.diagnostics).replace(/^0 errors, /, '')})` : '';
        out(`${spec} is valid: ${plural(result.model!.tools.length, 'tool')} in ${plural(result.files.length, 'file')}${warn}`);
      }
    });

  program
    .command('generate')
    .description('write the generated files, and a handler stub for each tool that has none yet')
    .argument('[spec]', 'the spec file', DEFAULT_SPEC)
    .addOption(formatOption())
    .action(async (spec: string, opts: { format: 'text' | 'json' }) => {
      const started = performance.now();
      const specPath = path.resolve(cwd, spec);
      // Nothing changed since the last generate (inputs, generator and outputs all hash the same): nothing to do.
      const state = verifiedState(specPath);
      if (state && state.tools.every((t) => fs.existsSync(t.handler))) {
        const outputs = Object.keys(state.outputs).map((f) => displayPath(f, state.rootDir));
        if (opts.format === 'json') {
          out(JSON.stringify({ ok: true, spec, written: [], unchanged: outputs, removed: [], created: [], kept: state.tools.map((t) => displayPath(t.handler, state.rootDir)), diagnostics: [] }, null, 2));
          return;
        }
        const ms = Math.round(performance.now() - started);
        out(`${displayPath(state.generatedDir, state.rootDir)}: ${plural(outputs.length, 'file')}, 0 written, ${outputs.length} unchanged — ${plural(state.tools.length, 'tool')} in ${ms} ms (nothing changed since the last generate)`);
        return;
      }
      const result = await load(spec, opts.format);
      const model = result.model;
      let report: WriteReport | undefined;
      if (model) {
        const files = await (await generator()).generate(model);
        report = writeOutput(model.rootDir, model.options, files);
        const subject = (await import('./check/subject.js')).subjectOf(model);
        saveState(specPath, stateFor({ ...subject, inputs: result.inputs, files, tools: subject.tools }));
      }
      if (opts.format === 'json') {
        out(JSON.stringify({ ok: Boolean(model), spec, ...report, diagnostics: result.diagnostics }, null, 2));
        return;
      }
      if (!model || !report) return;
      const ms = Math.round(performance.now() - started);
      const total = report.written.length + report.unchanged.length;
      out(
        `${model.options.generatedDir}: ${plural(total, 'file')}, ${report.written.length} written, ${report.unchanged.length} unchanged` +
          (report.removed.length ? `, ${report.removed.length} removed (${report.removed.join(', ')})` : '') +
          ` — ${plural(model.tools.length, 'tool')} in ${ms} ms`,
      );
      for (const f of report.created) out(`created ${f}: a stub to fill in`);
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
          out(result.diagnostics.filter((d) => d.severity === 'error').map((d) => `::error file=${d.file},line=${d.line},col=${d.column},title=toolspec ${d.code}::${d.message}`).join('\n'));
        }
        return;
      }
      const { checkProject } = await import('./check/check.js');
      report(await checkProject(result.model, cwd, result.inputs, specPath), result.model.tools.length);

      function report(findings: Finding[], tools: number): void {
        code = findings.length ? EXIT.drift : EXIT.ok;
        if (opts.format === 'json') return out(formatFindingsJson(findings, spec));
        if (opts.format === 'github') return void (findings.length && out(formatFindingsGithub(findings)));
        if (!findings.length) return out(`${spec}: no drift — generated files, handlers and spec agree (${plural(tools, 'tool')})`);
        out(formatFindingsText(findings, styleFor(stdout, env), { diff: opts.diff ?? Boolean(stdout.isTTY) }));
      }
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
      writeOutput(result.model.rootDir, result.model.options, await (await generator()).generate(result.model));
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
    if (e instanceof UserError) {
      err(`toolspec: ${e.message}`);
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
