/**
 * `toolspec dev`: the edit loop. Watches the spec (and what it includes), the handlers and every project module the
 * type check reads; on each change it regenerates (the generate command), type-checks and builds incrementally
 * (src/dev/build.ts), and restarts the server over HTTP on 127.0.0.1, always on the same port (src/dev/server.ts).
 * One line per cycle on stdout; the spec's diagnostics or the compiler's errors on stderr when a cycle fails, and
 * then the server that runs keeps running the last good build. SIGINT or SIGTERM stops the loop and the server.
 *
 * The server runs with --stateless by default: a 2025 client then has no session to lose, so the same client keeps
 * working across restarts, as a 2026-07-28 client does anyway. `--sessions` keeps the 2025 sessionful leg (questions
 * to 2025 clients mid-call), whose sessions end with every restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createBuilder } from '../dev/build.js';
import { DevServer } from '../dev/server.js';
import type { Style } from '../report/text.js';
import { readText } from '../cache/store.js';
import { EXIT, plural } from './result.js';
import { clock, describeChanges, runGenerate, watchLoop, type Change } from './watch.js';

export interface DevInput {
  spec: string;
  cwd: string;
  /** The HTTP port (0: one picked once, then kept). */
  port: number;
  /** Serve 2025 clients with sessions (they end on every restart) instead of statelessly. */
  sessions: boolean;
  style: Style;
  /** One line per cycle on stdout / diagnostics and the server's output on stderr. */
  out: (line: string) => void;
  err: (text: string) => void;
}

const HOST = '127.0.0.1';
const TRACKED = /\.(ya?ml|[cm]?tsx?)$/i;

/** Runs until stopped; resolves with the exit code (2 when the port is taken before anything started). */
export async function devCommand(input: DevInput): Promise<number> {
  const specPath = path.resolve(input.cwd, input.spec);
  const rootDir = path.dirname(specPath);
  const server = new DevServer({
    cwd: rootDir,
    host: HOST,
    port: input.port,
    flags: input.sessions ? [] : ['--stateless'],
    output: input.err,
  });
  const port = await server.listen();
  if (port === undefined) {
    input.err(
      `toolspec dev: port ${input.port} on ${HOST} is in use: stop what uses it, or pick another with --port (0 picks a free one)`,
    );
    return EXIT.invalid;
  }
  const url = `http://${HOST}:${port}/mcp`;
  const builder = await createBuilder(rootDir, input.cwd);
  let generatedDir: string | undefined;
  let skip: string[] = [];
  const kept = () => (server.running ? 'the server still runs the last good build' : 'no server running');

  const cycle = async (cause: Change[] | undefined) => {
    const started = performance.now();
    const line = (what: string) =>
      input.out(
        `${clock(new Date())} ${cause ? describeChanges(cause) : 'start'} → ${what} (${Math.round(performance.now() - started)} ms)`,
      );
    const { result, problem } = await runGenerate({ ...input, format: 'text' });
    if (!result) {
      input.err(`toolspec: ${problem}`);
      line(`generate failed; ${kept()}`);
      return undefined;
    }
    if (result.notes) input.err(result.notes.trimEnd());
    if (result.outputDirs[0]) generatedDir = result.outputDirs[0];
    const files = new Map(result.inputs.files);
    const watched = (loose: boolean) => ({ files, folders: result.inputs.folders, skip, loose });
    if (!result.summary) {
      line(`${result.failure}; ${kept()}`);
      return watched(result.code === 2);
    }
    const s = result.summary;
    const generated =
      (s.written.length ? `regenerated ${plural(s.written.length, 'file')}` : 'generated files unchanged') +
      (s.created.length ? `, created ${s.created.join(', ')}` : '');

    const build = builder(writeIfChanged);
    for (const [file, hash] of build.read) files.set(file, hash);
    skip = [generatedDir!, ...(build.outDir ? [path.resolve(rootDir, build.outDir)] : [])];
    line(`${generated}, ${await serve(build)}`);
    return watched(false);
  };

  /** Starts the build when it type-checks and is new: what came of it, for the cycle's line. */
  const serve = async (build: ReturnType<typeof builder>): Promise<string> => {
    if (build.errors.length) {
      input.err(build.errors.join('\n'));
      return `${plural(build.errors.length, 'type error')}; ${kept()}`;
    }
    const main = build.outputOf(path.join(generatedDir!, 'main.ts'));
    if (!main || !fs.existsSync(main)) {
      input.err(
        `toolspec dev: the build has no ${path.relative(rootDir, path.join(generatedDir!, 'main.js'))}: check that tsconfig.json includes ${path.relative(rootDir, generatedDir!)}`,
      );
      return 'type-checked, no server to start';
    }
    if (server.running && !build.emitted.length) return `type-checked, the build is the same: still serving ${url}`;
    const was = server.running;
    const restart = await server.restart(main);
    if (restart.ok) return `type-checked, ${was ? 'restarted' : 'serving'} on ${url}`;
    input.err(restart.why);
    return `type-checked, the server did not start; ${kept()}`;
  };

  try {
    await watchLoop({
      always: [specPath, path.join(rootDir, 'tsconfig.json')],
      tracked: TRACKED,
      cwd: input.cwd,
      onCrash: input.err,
      run: cycle,
    });
  } finally {
    await server.close();
  }
  return EXIT.ok;
}

/** The build's writer: a file whose bytes are already there is left alone (false). */
function writeIfChanged(file: string, text: string): boolean {
  if (readText(file) === text) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return true;
}
