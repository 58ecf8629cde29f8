/**
 * The cache: work `generate` may skip, kept between runs by the content it was computed from. One entry is one small
 * file named by the SHA-256 of toolspec's build, the entry's kind and its whole input, so a hit is what computing
 * that input with this build gives; nothing in it is ever compared with the project or trusted to say that files
 * are current. `check`, `call` and every command that only reports (validate, lint, diff) never open it: they
 * compute everything from the spec (ARCHITECTURE.md, "The cache").
 *
 * Where it lives: the nearest `node_modules/.cache/toolspec` above the project, else the user's cache folder
 * (`$XDG_CACHE_HOME/toolspec` or `~/.cache/toolspec`). Either is created with mode 0700 and refused (no cache, the
 * run computes everything) when it is a link, owned by another user, or writable by group or others. Entries are
 * read with a size limit, without following links, and taken only when their first line is their own name; writes
 * go to a temporary file renamed into place. Entries unused for 30 days go, checked at most once a day.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../core/paths.js';

export interface Cache {
  /** The value kept for `input` of this kind, if there is one. */
  get(kind: string, input: string): string | undefined;
  /** Keeps `value` as what `input` of this kind computes to. A cache that cannot be written only costs time. */
  put(kind: string, input: string, value: string): void;
}

/** An entry larger than this is not read (no piece of a 2,000-tool spec comes near it). */
const MAX_ENTRY_BYTES = 16 * 2 ** 20;
const DAY_MS = 24 * 3600_000;
const KEEP_MS = 30 * DAY_MS;
/** A temporary file older than this is a killed writer's leftover. */
const STALE_TMP_MS = 10 * 60_000;

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** A file's text; undefined when it cannot be read (not there, a folder, no permission). */
export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The cache folder for a project, made if need be, or undefined when no folder is safe to use: one the user owns,
 * no link, and writable by the user alone.
 */
export function cacheFolder(projectDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  let dir = path.resolve(projectDir);
  while (!fs.existsSync(path.join(dir, 'node_modules')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const folder = fs.existsSync(path.join(dir, 'node_modules'))
    ? path.join(dir, 'node_modules', '.cache', 'toolspec')
    : path.join(env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache'), 'toolspec');
  try {
    fs.mkdirSync(path.dirname(folder), { recursive: true });
  } catch {
    return undefined;
  }
  return safeFolder(folder) ? folder : undefined;
}

/**
 * Makes `dir` (mode 0700) unless it is there: true when it is a real folder (not a link), the user's own, that group
 * and others cannot write.
 */
function safeFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory() || st.isSymbolicLink()) return false;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return false;
  return (st.mode & 0o022) === 0;
}

/**
 * The cache of the project at `projectDir`, or undefined when there is no safe folder for it. `read: false`
 * (`generate --no-cache`): nothing is taken from it, and what the run computes replaces what it held.
 */
export function openCache(
  projectDir: string,
  { env, read = true }: { env?: NodeJS.ProcessEnv; read?: boolean } = {},
): Cache | undefined {
  const folder = cacheFolder(projectDir, env);
  if (!folder) return undefined;
  const dir = path.join(folder, 'pieces');
  if (!safeFolder(dir)) return undefined;
  prune(folder, dir);
  const build = buildFingerprint();
  const name = (kind: string, input: string) =>
    createHash('sha256').update(build).update('\0').update(kind).update('\0').update(input).digest('hex');
  return {
    get(kind, input) {
      if (!read) return undefined;
      const key = name(kind, input);
      const text = readEntry(path.join(dir, key));
      if (text === undefined || !text.startsWith(`${key}\n`)) return undefined;
      return text.slice(key.length + 1);
    },
    put(kind, input, value) {
      const key = name(kind, input);
      const file = path.join(dir, key);
      const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        fs.writeFileSync(tmp, `${key}\n${value}`, { flag: 'wx', mode: 0o600 });
        fs.renameSync(tmp, file);
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    },
  };
}

/** An entry's text: a regular file, not a link, within the size limit; touched when last used more than a day ago. */
function readEntry(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_ENTRY_BYTES) return undefined;
    const text = fs.readFileSync(fd, 'utf8');
    if (Date.now() - st.mtimeMs > DAY_MS) fs.futimesSync(fd, new Date(), new Date());
    return text;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * At most once a day (the `pruned` stamp's time): entries unused for 30 days, temporary files of killed writers, and
 * the files earlier versions of toolspec kept here, go.
 */
function prune(folder: string, dir: string): void {
  const stamp = fs.statSync(path.join(folder, 'pruned'), { throwIfNoEntry: false });
  if (stamp && Date.now() - stamp.mtimeMs < DAY_MS) return;
  try {
    fs.writeFileSync(path.join(folder, 'pruned'), '', { mode: 0o600 });
    const now = Date.now();
    for (const name of fs.readdirSync(dir)) {
      const abs = path.join(dir, name);
      const st = fs.lstatSync(abs);
      const age = now - st.mtimeMs;
      if (!st.isFile() || age > KEEP_MS || (name.includes('.tmp-') && age > STALE_TMP_MS))
        fs.rmSync(abs, { force: true, recursive: true });
    }
    for (const name of fs.readdirSync(folder)) {
      if (/^(state|verdicts|contracts)-[0-9a-f]{16}\.json/.test(name))
        fs.rmSync(path.join(folder, name), { force: true });
    }
  } catch {
    // pruning is housekeeping: the next run tries again
  }
}

let fingerprint: string | undefined;

/**
 * toolspec's build: its own code (not its declaration files, which run nothing), templates and schemas, and the
 * versions of the libraries whose output lands in generated files. A new build never reads an older one's entries.
 */
export function buildFingerprint(): string {
  if (fingerprint) return fingerprint;
  const h = createHash('sha256');
  const code = fileURLToPath(new URL('..', import.meta.url));
  for (const dir of [code, path.join(packageRoot, 'templates'), path.join(packageRoot, 'schema')]) {
    for (const f of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
      const abs = path.join(dir, f);
      if (/(?<!\.d)\.(ts|js|json)$/.test(f) && fs.statSync(abs).isFile())
        h.update(f).update('\0').update(fs.readFileSync(abs));
    }
  }
  const require = createRequire(import.meta.url);
  for (const dep of ['prettier', 'json-schema-to-typescript', 'ajv', 'ajv-formats', 'yaml'])
    h.update(`${dep}@${(require(`${dep}/package.json`) as { version: string }).version}\0`);
  fingerprint = h.digest('hex');
  return fingerprint;
}
