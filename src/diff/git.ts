/**
 * The spec as it was at a git revision: a file source over the revision's tree, which the loader reads as it reads
 * the disk (its include rules are the loader's own, not repeated here).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/diagnostics.js';
import { fsError, type FileSource } from '../pipeline/load/files.js';
import { MAX_FILE_BYTES, MAX_TOTAL_BYTES } from '../pipeline/load/limits.js';

const posix = path.posix;

/** Runs git; a failure becomes a UserError that says what was asked and what git said. */
function git(args: readonly string[], cwd: string, what: string): Buffer {
  try {
    return execFileSync('git', ['--literal-pathspecs', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: MAX_FILE_BYTES * 2 + MAX_TOTAL_BYTES,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT')
      throw new UserError('git is not installed (or not on PATH); comparing with a revision needs git');
    const said = err.stderr?.toString('utf8').trim().split('\n')[0];
    throw new UserError(`${what}${said ? ` (git: ${said})` : ''}`);
  }
}

/** The top folder of the git repository that holds `dir` (real path). */
export function repositoryRoot(dir: string): string {
  const out = git(
    ['rev-parse', '--show-toplevel'],
    existingAncestor(dir),
    `${dir} is not inside a git repository; revisions can be compared only inside one`,
  );
  return fs.realpathSync(out.toString('utf8').trim());
}

/** The commit a revision names, or a UserError saying it names none. */
export function resolveRevision(root: string, rev: string): string {
  if (rev === '' || rev.startsWith('-'))
    throw new UserError(`"${rev}" is not a git revision; name a branch, tag or commit, e.g. origin/main or HEAD~1`);
  const out = git(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    root,
    `unknown git revision "${rev}"; name a branch, tag or commit (in CI, fetch the history first: actions/checkout with fetch-depth: 0)`,
  );
  return out.toString('utf8').trim();
}

/** `abs` as a path inside the repository at `root`, with forward slashes; links in the folders above resolved. */
export function pathInRepository(root: string, abs: string): string {
  const rel = path.relative(root, realPathLoose(abs));
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    throw new UserError(`${abs} is outside the git repository at ${root}`);
  return rel.split(path.sep).join('/');
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
}

/**
 * The files under the spec's folder as of `commit`, as a source the loader reads like the disk (load/files.ts):
 * paths under `root` (the repository's top folder), links (mode 120000) resolved inside the tree. Whether a spec
 * exists at the revision is `stat` of its path; blobs are read when the loader asks for them.
 */
export function gitSource(root: string, commit: string, specPath: string): FileSource {
  const specDir = posix.dirname(specPath);
  const tree = new Map<string, TreeEntry>();
  const folders = new Set<string>(['.']);
  /** `git ls-tree -z -l` of `paths` at the commit (the whole tree when none; `-r` with recursive): entries by path. */
  const lsTree = (paths: string[], recursive: boolean): [string, TreeEntry][] =>
    git(
      ['ls-tree', '-z', '-l', '--full-tree', ...(recursive ? ['-r'] : []), commit, '--', ...paths],
      root,
      `cannot list ${paths.join(', ') || 'the tree'} at ${commit}`,
    )
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', oid = '', size = ''] = line.slice(0, tab).split(/\s+/);
        return [line.slice(tab + 1), { mode, type, oid, size: Number(size) || 0 }];
      });
  for (const [p, entry] of lsTree(specDir === '.' ? [] : [specDir], true)) {
    tree.set(p, entry);
    for (let d = posix.dirname(p); d !== '.' && !folders.has(d); d = posix.dirname(d)) folders.add(d);
  }
  const inSpecDir = (rel: string) => specDir === '.' || rel === specDir || rel.startsWith(`${specDir}/`);
  /** Paths outside the spec's folder (where a link may lead) are looked up one by one, when asked. */
  const outside = new Map<string, TreeEntry | undefined>();
  const entryAt = (rel: string): TreeEntry | undefined => {
    if (inSpecDir(rel) || rel.startsWith('../') || rel === '..') return tree.get(rel);
    if (!outside.has(rel)) outside.set(rel, lsTree([rel], false).find(([p]) => p === rel)?.[1]);
    return outside.get(rel);
  };
  const relOf = (abs: string) => path.relative(root, abs).split(path.sep).join('/') || '.';
  /** A path with the links on its way replaced by their targets (at most 8 hops), still relative to root. */
  const resolve = (rel: string): string => {
    let segments = rel === '.' ? [] : rel.split('/');
    for (let hops = 0, i = 0; i < segments.length; i++) {
      const prefix = segments.slice(0, i + 1).join('/');
      const entry = entryAt(prefix);
      if (entry?.mode !== '120000') continue;
      if (++hops > 8) throw fsError('ELOOP', prefix);
      const link = blob(entry.oid).toString('utf8');
      const target = posix.normalize(posix.join(posix.dirname(prefix), link));
      segments = [...(target === '.' ? [] : target.split('/')), ...segments.slice(i + 1)];
      i = -1;
    }
    return segments.length ? segments.join('/') : '.';
  };
  const blob = (oid: string) => git(['cat-file', 'blob', oid], root, `cannot read object ${oid}`);
  const at = (abs: string) => resolve(relOf(abs));
  return {
    stat(abs) {
      const rel = at(abs);
      const entry = entryAt(rel);
      if (entry) return { kind: entry.type === 'blob' ? 'file' : 'other', size: entry.size };
      if (folders.has(rel)) return { kind: 'folder', size: 0 };
      throw fsError('ENOENT', abs);
    },
    read(abs) {
      const entry = entryAt(at(abs));
      if (!entry || entry.type !== 'blob') throw fsError('ENOENT', abs);
      return blob(entry.oid);
    },
    list(abs) {
      // git keeps no empty folders: an included folder without files at the revision reads as empty, not as missing.
      const rel = at(abs);
      const inside = [...tree.keys(), ...folders].filter((p) => p !== '.' && posix.dirname(p) === rel);
      return [...new Set(inside.map((p) => posix.basename(p)))].sort();
    },
    // path.join takes the forward slashes of a relative path, and '.', as the platform's own.
    realpath: (abs) => path.join(root, at(abs)),
  };
}

function existingAncestor(p: string): string {
  let dir = path.resolve(p);
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** The real path of `p`, whose last parts need not exist. */
function realPathLoose(p: string): string {
  const abs = path.resolve(p);
  const base = existingAncestor(abs);
  return path.join(fs.realpathSync(base), path.relative(base, abs));
}
