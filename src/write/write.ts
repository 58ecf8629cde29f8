/**
 * Writing generate's output: all-or-nothing, unchanged files left alone (bytes and mtime), handler files created
 * only when missing and never touched again, nothing written outside the configured folders, and generated files
 * that the spec no longer produces removed (only files that carry toolspec's header). A renamed tool's handler
 * module moves to the new name (src/write/renames.ts plans it): the new file is linked in before anything else is written
 * and the old one removed only after everything else is, so an interruption leaves the code in one file or both.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/diagnostics.js';
import type { OutputFile } from '../pipeline/emit/generate.js';
import { HEADER_MARK } from '../pipeline/emit/text.js';
import type { Options } from '../core/options.js';
import { isInside } from '../core/paths.js';

export interface WriteReport {
  /** Generated files whose bytes changed or that did not exist. */
  written: string[];
  unchanged: string[];
  /** Generated files removed because the spec no longer produces them. */
  removed: string[];
  /** The project's own files whose toolspec part changed (the tool table, server.json). */
  published: string[];
  /** Handler stubs created. */
  created: string[];
  /** Handler files that exist already and were left as they are. */
  kept: string[];
  /** Handler modules moved to a renamed tool's file: relative paths. */
  moved: { from: string; to: string }[];
  /** Moves not made because the renamed tool's file exists already: both files are kept. */
  notMoved: { from: string; to: string }[];
}

/** A handler module to move: read and rewritten (src/write/renames.ts) before the write begins. */
export interface HandlerMoveWrite {
  /** Absolute paths. */
  source: string;
  target: string;
  /** The module's text as read: the move is refused if it changed meanwhile. */
  original: string;
  /** Its text at the new path. */
  contents: string;
}

export function writeOutput(
  rootDir: string,
  options: Options,
  files: readonly OutputFile[],
  moves: readonly HandlerMoveWrite[] = [],
): WriteReport {
  const genDir = path.resolve(rootDir, options.generatedDir);
  const handlersDir = path.resolve(rootDir, options.handlersDir);
  for (const dir of [genDir, handlersDir]) assertInsideReal(rootDir, dir);
  const release = lock(genDir, path.relative(rootDir, genDir).split(path.sep).join('/'));
  try {
    return writeLocked(rootDir, genDir, handlersDir, files, moves);
  } finally {
    release();
  }
}

/** How long a generate waits for another one writing the same project before it gives up. */
export const LOCK_WAIT_MS = 30_000;

/**
 * One generate at a time per generated folder: a lock file beside it holds the writer's pid. Another run waits for
 * it (a lock whose process is gone is taken over), and says who holds it after LOCK_WAIT_MS. The lock is linked in
 * whole from a file that already holds the pid, so no run ever reads an empty lock and takes it for a dead one; a
 * dead run's lock is renamed away first and looked at there, so two runs taking it over cannot both win, and a
 * lock that turns out to be live (taken meanwhile) is linked back.
 */
function lock(genDir: string, shown: string): () => void {
  const file = `${genDir}.toolspec-lock`;
  const mine = `${file}-${process.pid}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(mine, String(process.pid));
  try {
    for (;;) {
      if (linkUnlessExists(mine, file)) return () => fs.rmSync(file, { force: true });
      const held = readIfExists(file);
      const holder = Number(held);
      if (held !== undefined && !processAlive(holder)) {
        takeOverDead(file, held);
        continue;
      }
      if (Date.now() > deadline) {
        throw new UserError(
          `another toolspec (pid ${holder}) has been writing ${shown} for ${LOCK_WAIT_MS / 1000} s; let it finish, or remove ${path.basename(file)} if that process is not toolspec`,
        );
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** Links `from` in at `to`: false when `to` exists. A file system without hard links copies, refusing too. */
function linkUnlessExists(from: string, to: string): boolean {
  try {
    try {
      fs.linkSync(from, to);
    } catch (e) {
      if (['EEXIST', 'ENOENT'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  }
}

/** Removes the lock a dead run left (its text `held`); a live lock found in its place (taken meanwhile) goes back. */
function takeOverDead(file: string, held: string): void {
  const away = `${file}-stale-${process.pid}`;
  try {
    fs.renameSync(file, away);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // another run took it over first
    throw e;
  }
  if (readIfExists(away) !== held) linkUnlessExists(away, file);
  fs.rmSync(away, { force: true });
}

/** Stubs a killed run was writing (".<name>.toolspec-<pid>" whose process is gone): never the user's files. */
function removeDeadTemps(dir: string): void {
  for (const name of namesIn(dir, true)) {
    const m = /(?:^|[\\/])\.[^\\/]+\.toolspec-(\d+)$/.exec(name);
    if (m && !processAlive(Number(m[1]))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function writeLocked(
  rootDir: string,
  genDir: string,
  handlersDir: string,
  files: readonly OutputFile[],
  moves: readonly HandlerMoveWrite[],
): WriteReport {
  const report: WriteReport = {
    written: [],
    unchanged: [],
    published: [],
    removed: [],
    created: [],
    kept: [],
    moved: [],
    notMoved: [],
  };
  recoverGeneration(genDir);
  const rel = (abs: string) => path.relative(rootDir, abs).split(path.sep).join('/');
  for (const m of moves) {
    for (const abs of [m.source, m.target]) {
      if (!isInside(handlersDir, abs) || abs === handlersDir)
        throw new UserError(`refusing to move ${rel(abs)}: it is outside ${rel(handlersDir)}`);
    }
    if (readIfExists(m.source) !== m.original)
      throw new UserError(
        `${rel(m.source)} changed while toolspec was moving it; nothing was written: run generate again`,
      );
  }

  const changes: { abs: string; rel: string; contents: string }[] = [];
  const stubs: { abs: string; rel: string; contents: string }[] = [];
  const published: { abs: string; rel: string; contents: string }[] = [];
  for (const f of files) {
    const abs = path.resolve(rootDir, f.path);
    const home = f.kind === 'generated' ? genDir : f.kind === 'handler' ? handlersDir : rootDir;
    if (!isInside(home, abs) || abs === home)
      throw new UserError(`refusing to write ${f.path}: it is outside ${path.relative(rootDir, home) || '.'}`);
    if (f.kind === 'generated') {
      if (holds(abs, f.contents)) report.unchanged.push(f.path);
      else changes.push({ abs, rel: f.path, contents: f.contents });
      continue;
    }
    const current = readIfExists(abs);
    if (f.kind === 'published') {
      if (
        isInside(genDir, abs) ||
        isInside(handlersDir, abs) ||
        (current !== undefined && fs.lstatSync(abs).isSymbolicLink())
      )
        throw new UserError(`refusing to write ${f.path}: it is not a plain file of the project`);
      if (f.mark !== undefined && current !== undefined && !current.includes(f.mark))
        throw new UserError(
          `${f.path} exists and toolspec did not write it; nothing was written: move it away, then run generate again`,
        );
      if (f.mark === undefined && current !== f.based)
        throw new UserError(`${f.path} changed while toolspec was reading it; nothing was written: run generate again`);
      if (current !== f.contents) published.push({ abs, rel: f.path, contents: f.contents });
    } else if (current === undefined) stubs.push({ abs, rel: f.path, contents: f.contents });
    else report.kept.push(f.path);
  }
  const produced = new Set(files.map((f) => path.resolve(rootDir, f.path)));
  const stale = listOwned(genDir).filter((abs) => !produced.has(abs));

  removeDeadTemps(handlersDir);
  // The moved modules first, linked in whole beside the old ones: a file that appeared meanwhile is never replaced.
  const linked: HandlerMoveWrite[] = [];
  const fresh: HandlerMoveWrite[] = [];
  for (const m of moves) {
    if (placeWhole(m.target, m.contents)) fresh.push(m);
    // Already there with exactly the moved text: a move that an interrupted run had linked in; finish it.
    else if (readIfExists(m.target) !== m.contents) {
      report.notMoved.push({ from: rel(m.source), to: rel(m.target) });
      continue;
    }
    linked.push(m);
  }
  if (changes.length || stale.length) {
    try {
      swapGeneration(genDir, changes, new Set(stale));
    } catch (e) {
      // Nothing else was written: take back the copies this run linked in (the originals are still in place).
      for (const m of fresh) if (readIfExists(m.target) === m.contents) fs.rmSync(m.target, { force: true });
      throw e;
    }
    report.written = changes.map((c) => c.rel);
    report.removed = stale.map(rel);
  }
  // The project's own files with a part toolspec keeps: written whole beside them, then renamed over them.
  for (const p of published) {
    viaTemp(p.abs, p.contents, (temp) => fs.renameSync(temp, p.abs));
    report.published.push(p.rel);
  }
  // Written whole beside its place, then linked in: a kill or a full disk never leaves an empty stub, and a link
  // never replaces a file that appeared meanwhile.
  for (const s of stubs) (placeWhole(s.abs, s.contents, 'stub-written') ? report.created : report.kept).push(s.rel);
  for (const m of linked) {
    failpoint('handler-moved');
    // The code is whole at its new place: only now does the old file go.
    fs.rmSync(m.source, { force: true });
    report.moved.push({ from: rel(m.source), to: rel(m.target) });
  }
  return report;
}

/**
 * Writes a file whole beside its place, then links it in: true when it is in place, false when a file is there
 * already (left as it is). A kill or a full disk never leaves a partial file.
 */
function placeWhole(abs: string, contents: string, point?: string): boolean {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  return viaTemp(abs, contents, (temp) => {
    if (point) failpoint(point);
    return linkUnlessExists(temp, abs);
  });
}

/** Writes `contents` beside `abs` (`.<name>.toolspec-<pid>`), hands that file to `place`, then removes it. */
function viaTemp<T>(abs: string, contents: string, place: (temp: string) => T): T {
  const temp = path.join(path.dirname(abs), `.${path.basename(abs)}.toolspec-${process.pid}`);
  try {
    writeFile(temp, contents);
    return place(temp);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Replaces the generated folder as a whole, so that a crash at any point leaves one generation complete: the new
 * one is built beside it (unchanged files hard-linked in, keeping their bytes and mtimes; files that are not
 * toolspec's carried over), then the two folders trade places with two renames. A crash between those renames
 * leaves the previous generation whole under `<folder>.toolspec-old`, and the next run puts it back.
 */
function swapGeneration(
  genDir: string,
  changes: readonly { abs: string; contents: string }[],
  stale: ReadonlySet<string>,
): void {
  const { stage, old } = swapPaths(genDir);
  const changed = new Map(changes.map((c) => [path.basename(c.abs), c.contents]));
  const staleNames = new Set([...stale].map((abs) => path.basename(abs)));
  fs.mkdirSync(stage, { recursive: true });
  try {
    for (const name of fs.existsSync(genDir) ? fs.readdirSync(genDir) : [])
      if (!changed.has(name) && !staleNames.has(name)) carryOver(path.join(genDir, name), path.join(stage, name));
    for (const [name, contents] of changed) {
      writeFile(path.join(stage, name), contents);
      failpoint('staged-file');
    }
  } catch (e) {
    fs.rmSync(stage, { recursive: true, force: true });
    throw e;
  }
  if (fs.existsSync(genDir)) {
    const real = fs.realpathSync(genDir);
    fs.renameSync(real, old);
    failpoint('between-renames');
    fs.renameSync(stage, real);
    fs.rmSync(old, { recursive: true, force: true });
  } else {
    fs.renameSync(stage, genDir);
  }
}

/**
 * fs.writeFileSync, with the file named in its error: a full disk fails in write(2), whose error names no path,
 * and the user is told which file could not be written (exit 2), not shown an internal error.
 */
function writeFile(abs: string, contents: string): void {
  try {
    fs.writeFileSync(abs, contents);
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    if (error instanceof Error && error.path === undefined) error.path = abs;
    throw e;
  }
}

/** Finishes what an interrupted generate left: the previous generation back in place, a half-built one gone. */
export function recoverGeneration(genDir: string): void {
  const { stage, old } = swapPaths(genDir);
  if (fs.existsSync(old)) {
    if (fs.existsSync(genDir)) fs.rmSync(old, { recursive: true, force: true });
    else fs.renameSync(old, genDir);
  }
  fs.rmSync(stage, { recursive: true, force: true });
}

/** Beside the folder itself (where a link inside the project points): renames stay on one file system. */
function swapPaths(genDir: string): { stage: string; old: string } {
  const real = fs.existsSync(genDir) ? fs.realpathSync(genDir) : genDir;
  return { stage: `${real}.toolspec-new`, old: `${real}.toolspec-old` };
}

/** A file or folder into the new generation: hard-linked where the file system allows, else copied with its times. */
function carryOver(from: string, to: string): void {
  if (fs.lstatSync(from).isFile()) {
    try {
      fs.linkSync(from, to);
      return;
    } catch {
      // another device, or links not allowed: copy
    }
  }
  fs.cpSync(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
}

/**
 * Test hook: TOOLSPEC_FAILPOINT=<name> kills the process at that point, as a crash or power loss would, so the
 * tests can prove what a crash leaves behind. Unset in normal use.
 */
export function failpoint(name: string): void {
  if (process.env['TOOLSPEC_FAILPOINT'] === name) process.kill(process.pid, 'SIGKILL');
}

/** Files in the generated folder that toolspec made: its header, or its manifest.json. */
export function listOwned(genDir: string): string[] {
  return namesIn(genDir)
    .sort()
    .map((n) => path.join(genDir, n))
    .filter((abs) => {
      if (!fs.statSync(abs).isFile()) return false;
      if (path.basename(abs) === 'manifest.json') return true;
      const head = readHead(abs, HEADER_MARK.length + 2);
      return head === `//${HEADER_MARK}` || head.startsWith(`#${HEADER_MARK}`);
    });
}

/** The names in a folder (with `recursive`, its subfolders' too, as relative paths); none when it cannot be read. */
export function namesIn(dir: string, recursive = false): string[] {
  try {
    return fs.readdirSync(dir, { recursive }) as string[];
  } catch {
    return [];
  }
}

/** The first bytes of a file: enough to see the header without reading a multi-megabyte module. */
function readHead(abs: string, bytes: number): string {
  const fd = fs.openSync(abs, 'r');
  try {
    const buf = Buffer.alloc(bytes * 4); // room for `bytes` characters of UTF-8
    return buf
      .subarray(0, fs.readSync(fd, buf, 0, buf.length, 0))
      .toString('utf8')
      .slice(0, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether the file holds exactly `contents`: read only when its size says it may (an edit mostly changes sizes). */
function holds(abs: string, contents: string): boolean {
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  if (stat?.isFile() && stat.size !== Buffer.byteLength(contents)) return false;
  return readIfExists(abs) === contents;
}

function readIfExists(abs: string): string | undefined {
  try {
    return fs.readFileSync(abs, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    (e as NodeJS.ErrnoException).path ??= abs; // a read on an open file names none
    throw e;
  }
}

/** The nearest existing ancestor of `dir` must really lie inside the project (no link pointing out). */
function assertInsideReal(rootDir: string, dir: string): void {
  let existing = dir;
  while (!fs.existsSync(existing) && existing !== path.dirname(existing)) existing = path.dirname(existing);
  const real = fs.realpathSync(existing);
  if (!isInside(fs.realpathSync(rootDir), real)) {
    throw new UserError(
      `refusing to write into ${path.relative(rootDir, dir)}: it is a link to ${real}, outside the project`,
    );
  }
}
