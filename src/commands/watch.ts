/**
 * `toolspec generate --watch`: generate now, then again whenever the spec or a file it includes changes.
 *
 * It watches folders, not files (editors save by writing a new file and renaming it over the old one, which a
 * watch on the file itself would lose): the spec's folder, the folder of every file the last run read, and every
 * folder included whole — never the generated or handlers folders. An event only starts a check, 100 ms after the
 * last one; the check compares file contents with what the last run started from, so a touch, a save of the same
 * bytes or toolspec's own writes start nothing. One run at a time: events during a run lead to one more check
 * after it. The watched set is derived again after every run, since includes change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateCommand, formatSummary, type GenerateResult } from './generate.js';
import { fileSystemError, UserError } from '../diagnostics.js';
import { displayPath, isInside } from '../paths.js';
import { PLAIN, type Style } from '../report.js';
import { sha256 } from '../state.js';

export interface WatchInput {
  spec: string;
  /** No spec was named and none was found: where the search looked (src/discover.ts), for the message. */
  lookedIn?: string | undefined;
  cwd: string;
  format: 'text' | 'json';
  /** Style of stderr. */
  style?: Style;
  /** Prints one line on stdout / text on stderr. */
  out: (line: string) => void;
  err: (text: string) => void;
  /** Stops watching; without one, SIGINT or SIGTERM does. */
  stop?: AbortSignal;
  /** Quiet time after the last file event before a check. */
  debounceMs?: number;
  /** `--new-stubs`: see GenerateInput. */
  newStubs?: boolean;
}

/** What made a run: a file whose content differs from what the previous run started from. */
export interface Change {
  file: string;
  change: 'changed' | 'added' | 'removed';
}

const YAML = /\.ya?ml$/i;

/** Watches until stopped, then resolves with exit code 0. */
export async function watchGenerate(input: WatchInput): Promise<number> {
  const specPath = path.resolve(input.cwd, input.spec);
  const debounceMs = input.debounceMs ?? 100;
  const signals = input.stop ? undefined : stopOnSignals();
  const stop = input.stop ?? signals!.signal;

  // What the last run read, and how the files it may read looked when it started.
  let inputs = new Set<string>([specPath]);
  let folders = new Set<string>();
  let outputDirs: string[] = [];
  let failed = false;
  let baseline = new Map<string, string | null>();
  const watchers = new Map<string, { watcher: fs.FSWatcher; ino: number }>();

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** The folders to watch: where the inputs live, and the included ones (or their nearest existing parent). */
  const watchedDirs = (): Set<string> => {
    const dirs = new Set<string>();
    for (const dir of [path.dirname(specPath), ...[...inputs].map((f) => path.dirname(f)), ...folders]) {
      let d = dir;
      while (!isDir(d) && path.dirname(d) !== d) d = path.dirname(d);
      if (!outputDirs.some((o) => isInside(o, d))) dirs.add(d);
    }
    return dirs;
  };

  /**
   * A file whose change matters: one the last run read, a spec file in an included folder, or — after a run that
   * found the spec invalid, which may name a file that is not there yet — any spec file in a watched folder.
   */
  const relevant = (file: string, dirs: ReadonlySet<string>): boolean =>
    inputs.has(file) ||
    (YAML.test(file) && (folders.has(path.dirname(file)) || (failed && dirs.has(path.dirname(file)))));

  /** Every file a change could matter in: the inputs, and the spec files in the watched and included folders. */
  const candidates = (skip: ReadonlySet<string> = new Set()): Set<string> => {
    const files = new Set([...inputs].filter((f) => !skip.has(path.dirname(f))));
    for (const dir of new Set([...watchedDirs(), ...folders])) {
      if (skip.has(dir)) continue;
      for (const name of listDir(dir)) if (YAML.test(name)) files.add(path.join(dir, name));
    }
    return files;
  };

  /** The content of every candidate now, and the folders looked at. */
  const snapshot = () => ({
    hashes: new Map([...candidates()].map((f): [string, string | null] => [f, hashOf(f)])),
    dirs: new Set([...watchedDirs(), ...folders, ...[...inputs].map((f) => path.dirname(f))]),
  });

  const changes = (): Change[] => {
    const found: Change[] = [];
    const dirs = watchedDirs();
    for (const file of new Set([...candidates(), ...baseline.keys()])) {
      if (!relevant(file, dirs)) continue;
      const before = baseline.get(file) ?? null;
      const now = hashOf(file);
      if (before === now) continue;
      found.push({
        file: displayPath(file, input.cwd),
        change: before === null ? 'added' : now === null ? 'removed' : 'changed',
      });
    }
    return found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  };

  const onEvent = (dir: string) => (_event: string, name: string | Buffer | null) => {
    if (stop.aborted) return;
    if (name !== null) {
      const file = path.join(dir, name.toString());
      // Editors' swap and backup files, toolspec's own staging folders and the like: not what a spec reads.
      if (!inputs.has(file) && !YAML.test(file) && ![...folders].some((f) => isInside(file, f))) return;
    }
    clearTimeout(timer);
    timer = setTimeout(check, debounceMs);
  };

  const refreshWatchers = () => {
    const wanted = watchedDirs();
    for (const [dir, w] of watchers) {
      if (!wanted.has(dir) || inode(dir) !== w.ino) {
        w.watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (watchers.has(dir)) continue;
      const ino = inode(dir);
      if (ino === undefined) continue;
      try {
        const watcher = fs.watch(dir, onEvent(dir));
        watcher.on('error', () => {
          // The folder went away: drop its watcher and look again.
          watcher.close();
          watchers.delete(dir);
          clearTimeout(timer);
          timer = setTimeout(check, debounceMs);
        });
        watchers.set(dir, { watcher, ino });
      } catch {
        // A folder that cannot be watched (gone meanwhile, no permission) is looked at again after the next run.
      }
    }
  };

  const runOnce = async (cause: Change[] | undefined): Promise<void> => {
    const before = snapshot();
    const started = performance.now();
    let result: GenerateResult | undefined;
    let problem: string | undefined;
    try {
      result = await generateCommand({
        spec: input.spec,
        lookedIn: input.lookedIn,
        cwd: input.cwd,
        format: input.format,
        style: input.style ?? PLAIN,
        ...(input.newStubs ? { newStubs: true } : {}),
      });
    } catch (e) {
      // What would end `toolspec generate` (a refused write, a bug) ends this run only.
      const user = e instanceof UserError ? e : fileSystemError(e, input.cwd);
      problem = user
        ? user.message
        : `internal error — this is a bug in toolspec, please report it with the spec that caused it\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
    }
    if (result) {
      inputs = new Set([specPath, ...result.inputs.files.keys()]);
      folders = new Set(result.inputs.folders);
      if (result.outputDirs.length) outputDirs = result.outputDirs; // an invalid spec names none: keep the last ones
      failed = result.code === 2;
      // Files first read by this run count as they were read.
      for (const [file, hash] of result.inputs.files) if (!before.hashes.has(file)) before.hashes.set(file, hash);
    } else {
      failed = true;
    }
    // Folders that this run brought in are taken as they are now. In the others a file that appeared during the run
    // is new, and the next check sees it.
    for (const file of candidates(before.dirs)) if (!before.hashes.has(file)) before.hashes.set(file, hashOf(file));
    baseline = before.hashes;
    report(cause, result, problem, Math.round(performance.now() - started));
    refreshWatchers();
  };

  const report = (
    cause: Change[] | undefined,
    result: GenerateResult | undefined,
    problem: string | undefined,
    ms: number,
  ) => {
    const time = new Date();
    if (input.format === 'json') {
      const what = result ? result.json : { ok: false, spec: input.spec, error: problem };
      if (!result && problem) input.err(`toolspec: ${problem}`);
      input.out(JSON.stringify({ time: time.toISOString(), changes: cause ?? [], ...what, ms }));
      return;
    }
    const head = `${clock(time)} ${cause ? describeChanges(cause) : 'start'} →`;
    if (!result) {
      input.err(`toolspec: ${problem}`);
      return input.out(`${head} failed; nothing written, still watching`);
    }
    if (result.notes) input.err(result.notes);
    if (!result.summary) return input.out(`${head} ${result.failure}; nothing written, still watching`);
    const created = result.summary.created.length
      ? `; created ${result.summary.created.join(', ')} (stubs to fill in)`
      : '';
    const moved = result.summary.moved.map((m) => `; moved ${m.from} to ${m.to} (renamed tool)`).join('');
    input.out(`${head} ${formatSummary(result.summary)}${moved}${created}`);
  };

  const check = (): void => {
    timer = undefined;
    if (stop.aborted) return;
    if (running) return; // looked at again when the run ends
    const found = changes();
    if (!found.length) return refreshWatchers();
    start(found);
  };

  const start = (cause: Change[] | undefined) => {
    running = runOnce(cause)
      .catch((e: unknown) =>
        input.err(
          `toolspec: internal error — this is a bug in toolspec, please report it\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
        ),
      )
      .finally(() => {
        running = undefined;
        // Events during the run (they found it busy), or a file edited while it read: look once more, after the
        // usual quiet time.
        clearTimeout(timer);
        if (!stop.aborted) timer = setTimeout(check, debounceMs);
      });
  };

  try {
    start(undefined);
    await new Promise<void>((resolve) => {
      if (stop.aborted) resolve();
      else stop.addEventListener('abort', () => resolve(), { once: true });
    });
    clearTimeout(timer);
    await running;
  } finally {
    clearTimeout(timer);
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
    signals?.dispose();
  }
  return 0;
}

/**
 * An AbortSignal that SIGINT (Ctrl-C) or SIGTERM aborts. Only the first signal is caught: a second one, while a run
 * finishes, ends the process the default way.
 */
export function stopOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    dispose();
    controller.abort();
  };
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}

/** "toolspec.yaml changed", "tools/b.yaml added, toolspec.yaml changed", "a.yaml, b.yaml and 3 more changed". */
export function describeChanges(changes: readonly Change[]): string {
  const parts: string[] = [];
  for (const kind of ['added', 'removed', 'changed'] as const) {
    const files = changes.filter((c) => c.change === kind).map((c) => c.file);
    if (!files.length) continue;
    const shown = files.length > 3 ? `${files.slice(0, 2).join(', ')} and ${files.length - 2} more` : files.join(', ');
    parts.push(`${shown} ${kind}`);
  }
  return parts.join(', ');
}

function clock(d: Date): string {
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function hashOf(file: string): string | null {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function isDir(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function inode(dir: string): number | undefined {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() ? st.ino : undefined;
  } catch {
    return undefined;
  }
}
