/**
 * `toolspec generate --watch`: generate now, then again whenever the spec or a file it includes changes; and the
 * loop it runs in (`watchLoop`: what it watches, and when it runs), which `toolspec dev` shares.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { generateCommand, formatSummary, type GenerateInput, type GenerateResult } from './generate.js';
import { describeError } from '../core/diagnostics.js';
import { displayPath, isInside } from '../core/paths.js';
import { sha256 } from '../cache/store.js';
import { namesIn } from '../write/write.js';

export interface WatchInput extends GenerateInput {
  /** Prints one line on stdout / text on stderr. */
  out: (line: string) => void;
  err: (text: string) => void;
}

/** What made a run: a file whose content differs from what the previous run started from. */
export interface Change {
  file: string;
  change: 'changed' | 'added' | 'removed';
}

const YAML = /\.ya?ml$/i;
/** Quiet time after the last file event before a check. */
const DEBOUNCE_MS = 100;

/** Watches until stopped, then resolves with exit code 0. */
export async function watchGenerate(input: WatchInput): Promise<number> {
  let skip: string[] = [];
  await watchLoop({
    always: [path.resolve(input.cwd, input.spec)],
    tracked: YAML,
    cwd: input.cwd,
    onCrash: input.err,
    run: async (cause) => {
      const started = performance.now();
      const { result, problem } = await runGenerate(input);
      const ms = Math.round(performance.now() - started);
      const time = new Date();
      if (!result) input.err(`toolspec: ${problem}`);
      if (input.format === 'json') {
        const what = result ? result.json : { ok: false, spec: input.spec, error: problem };
        input.out(JSON.stringify({ time: time.toISOString(), changes: cause ?? [], ...what, ms }));
      } else {
        if (result?.notes) input.err(result.notes);
        input.out(`${clock(time)} ${cause ? describeChanges(cause) : 'start'} → ${outcome(result)}`);
      }
      if (!result) return undefined;
      if (result.outputDirs.length) skip = result.outputDirs; // an invalid spec names none: keep the last ones
      return { files: result.inputs.files, folders: result.inputs.folders, loose: result.code === 2, skip };
    },
  });
  return 0;
}

/** One generate, as the watch and dev loops run it: what would end `toolspec generate` ends this run only. */
export async function runGenerate(input: GenerateInput): Promise<{ result?: GenerateResult; problem?: string }> {
  try {
    return { result: await generateCommand(input) };
  } catch (e) {
    // A refused write, a bug: reported, and the loop goes on.
    return { problem: describeError(e, input.cwd).message };
  }
}

/** What a run did, as its line says after the arrow. */
function outcome(result: GenerateResult | undefined): string {
  if (!result?.summary) return `${result?.failure ?? 'failed'}; nothing written, still watching`;
  const { created, moved } = result.summary;
  return (
    formatSummary(result.summary) +
    moved.map((m) => `; moved ${m.from} to ${m.to} (renamed tool)`).join('') +
    (created.length ? `; created ${created.join(', ')} (stubs to fill in)` : '')
  );
}

/** What a run read, and so what the loop watches until the next run. */
export interface WatchSet {
  /** Every file the run read: absolute path → sha256 of the text it read. */
  files: ReadonlyMap<string, string>;
  /** Folders read whole: any tracked file that appears in one counts. */
  folders: readonly string[];
  /** After a failed run, which may name a file that is not there yet: any tracked file in a watched folder counts. */
  loose: boolean;
  /** Folders never watched, and files in them never compared: the run's own output. */
  skip: readonly string[];
}

interface LoopInput {
  /** Files that always count (the spec), watched before the first run. */
  always: readonly string[];
  /** The file names that may matter beyond the files read (spec files; for dev, modules too). */
  tracked: RegExp;
  /** One run: what it read, or undefined when it failed before reading anything (the last set is kept, loosely). */
  run: (cause: Change[] | undefined) => Promise<WatchSet | undefined>;
  cwd: string;
  /** A run that threw (a bug): reported here, and the loop goes on. */
  onCrash: (text: string) => void;
}

/**
 * The loop behind `generate --watch` and `dev`: a first run, then one more whenever a file that matters changes its
 * bytes. Folders are watched, not files (editors save by writing a new file and renaming it over the old one, which
 * a watch on the file itself would lose): the spec's folder, the folder of every file the last run read, and every
 * folder included whole — never the run's own output (the generated and handlers folders). An event starts a check
 * after a quiet time (100 ms); the check compares contents with what the last run started from, so touches, saves
 * of the same bytes and the runs' own writes start nothing; one run at a time, and events during a run lead to one
 * more check after it. The watched set is derived again after every run, since includes change. Resolves once
 * SIGINT or SIGTERM came and the run in flight has ended.
 */
export async function watchLoop(input: LoopInput): Promise<void> {
  const { tracked } = input;
  const { signal: stop, dispose } = stopOnSignals();

  // What the last run read, and how the files it may read looked when it started.
  let inputs = new Set<string>(input.always);
  let folders = new Set<string>();
  let skip: readonly string[] = [];
  let loose = false;
  let baseline = new Map<string, string | null>();
  const watchers = new Map<string, { watcher: fs.FSWatcher; ino: number }>();

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** The folders to watch: where the inputs live, and the included ones (or their nearest existing parent). */
  const watchedDirs = (): Set<string> => {
    const dirs = new Set<string>();
    // (The inputs hold the files that always count.)
    for (const dir of [...[...inputs].map((f) => path.dirname(f)), ...folders]) {
      let d = dir;
      while (inode(d) === undefined && path.dirname(d) !== d) d = path.dirname(d);
      if (!skip.some((o) => isInside(o, d))) dirs.add(d);
    }
    return dirs;
  };

  /** A file whose change matters: one the last run read, a tracked file in a folder read whole, or — after a failed run — in any watched folder. */
  const relevant = (file: string, dirs: ReadonlySet<string>): boolean =>
    inputs.has(file) ||
    (tracked.test(file) && (folders.has(path.dirname(file)) || (loose && dirs.has(path.dirname(file)))));

  /** Every file a change could matter in: the inputs, and the tracked files in the watched and included folders. */
  const candidates = (): Set<string> => {
    const files = new Set(inputs);
    for (const dir of new Set([...watchedDirs(), ...folders]))
      for (const name of namesIn(dir)) if (tracked.test(name)) files.add(path.join(dir, name));
    return files;
  };

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
      // Editors' swap and backup files, toolspec's own staging folders and the like: not what a run reads.
      if (!inputs.has(file) && !tracked.test(file) && ![...folders].some((f) => isInside(file, f))) return;
    }
    schedule();
  };

  /** A check after the quiet time (again, when one was due). */
  const schedule = () => {
    clearTimeout(timer);
    if (!stop.aborted) timer = setTimeout(check, DEBOUNCE_MS);
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
          schedule();
        });
        watchers.set(dir, { watcher, ino });
      } catch {
        // A folder that cannot be watched (gone meanwhile, no permission) is looked at again after the next run.
      }
    }
  };

  const runOnce = async (cause: Change[] | undefined): Promise<void> => {
    // The content of every candidate now, and the folders looked at.
    const before = new Map([...candidates()].map((f): [string, string | null] => [f, hashOf(f)]));
    const looked = new Set([...watchedDirs(), ...folders, ...[...inputs].map((f) => path.dirname(f))]);
    const read = await input.run(cause);
    if (read) {
      skip = read.skip;
      const outside = (f: string) => !skip.some((o) => isInside(o, f));
      inputs = new Set([...input.always, ...[...read.files.keys()].filter(outside)]);
      folders = new Set(read.folders);
      loose = read.loose;
      // Files first read by this run count as they were read.
      for (const [file, hash] of read.files) if (outside(file) && !before.has(file)) before.set(file, hash);
    } else {
      loose = true;
    }
    // Folders that this run brought in are taken as they are now. In the others a file that appeared during the run
    // is new, and the next check sees it.
    for (const file of candidates())
      if (!before.has(file) && !looked.has(path.dirname(file))) before.set(file, hashOf(file));
    baseline = before;
    refreshWatchers();
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
        input.onCrash(
          `toolspec: internal error — this is a bug in toolspec, please report it\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
        ),
      )
      .finally(() => {
        running = undefined;
        // Events during the run (they found it busy), or a file edited while it read: look once more, after the
        // usual quiet time.
        schedule();
      });
  };

  try {
    start(undefined);
    if (!stop.aborted) await once(stop, 'abort');
    await running;
  } finally {
    clearTimeout(timer);
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
    dispose();
  }
}

/**
 * An AbortSignal that SIGINT (Ctrl-C) or SIGTERM aborts. Only the first signal is caught: a second one, while a run
 * finishes, ends the process the default way.
 */
function stopOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    dispose();
    controller.abort();
  };
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const dispose = () => signals.forEach((s) => process.off(s, onSignal));
  signals.forEach((s) => process.on(s, onSignal));
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

/** HH:MM:SS, local time. */
export const clock = (d: Date): string => d.toTimeString().slice(0, 8);

function hashOf(file: string): string | null {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

/** The folder's inode; undefined when it is not a folder (or not there). */
function inode(dir: string): number | undefined {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() ? st.ino : undefined;
  } catch {
    return undefined;
  }
}
