/**
 * The spec as it was at a git revision: the spec file and every file it includes (followed the way the loader
 * follows them), copied out of the revision into a folder of the same layout, so the normal loader reads it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../diagnostics.js';
import { isRecord, MAX_FILE_BYTES } from '../load/load.js';
import { SourceFile } from '../load/source.js';

const posix = path.posix;

/** Runs git; a failure becomes a UserError that says what was asked and what git said. */
function git(args: readonly string[], cwd: string, what: string): Buffer {
  try {
    return execFileSync('git', ['--literal-pathspecs', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: MAX_FILE_BYTES * 2 });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT') throw new UserError('git is not installed (or not on PATH); comparing with a revision needs git');
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
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new UserError(`${abs} is outside the git repository at ${root}`);
  return rel.split(path.sep).join('/');
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

/**
 * Copies the spec at `specPath` (inside the repository) as of `commit`, and what it includes, into `into` under
 * the same relative paths. Returns false when the spec file does not exist at that commit.
 */
export function extractSpec(root: string, commit: string, specPath: string, into: string): boolean {
  const specDir = posix.dirname(specPath);
  const seen = new Set<string>();
  const inSpecDir = (p: string) => (specDir === '.' ? !p.startsWith('../') && p !== '..' : p.startsWith(`${specDir}/`));

  const list = (p: string): TreeEntry[] =>
    git(['ls-tree', '-z', '-l', '--full-tree', commit, '--', p], root, `cannot list ${p} at ${commit}`)
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', oid = '', size = ''] = line.slice(0, tab).split(/\s+/);
        return { mode, type, oid, size: Number(size) || 0, path: line.slice(tab + 1) };
      });
  const dest = (p: string) => path.join(into, ...p.split('/'));

  const copy = (entry: TreeEntry, depth: number): void => {
    if (seen.has(entry.path)) return;
    seen.add(entry.path);
    const target = dest(entry.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (entry.type === 'tree') {
      // A folder where a file is named: the loader says so. Its files matter only when included as a folder.
      fs.mkdirSync(target, { recursive: true });
      return;
    }
    if (entry.type !== 'blob') return;
    if (entry.mode === '120000') {
      // A link: made as a link, so the loader judges where it points exactly as in a working tree.
      const link = blob(entry.oid).toString('utf8');
      fs.symlinkSync(link, target);
      const to = posix.normalize(posix.join(posix.dirname(entry.path), link));
      if (posix.isAbsolute(link) || to.startsWith('../') || depth >= 8) return;
      const linked = list(to).find((e) => e.path === to);
      if (linked?.type === 'tree') folder(to, depth + 1);
      else if (linked) copy(linked, depth + 1);
      return;
    }
    if (entry.size > MAX_FILE_BYTES) {
      // Too large to be a spec: an empty file of the same size, so the loader refuses it with its usual message.
      fs.writeFileSync(target, '');
      fs.truncateSync(target, entry.size);
      return;
    }
    const text = blob(entry.oid);
    fs.writeFileSync(target, text);
    follow(entry.path, text.toString('utf8'), depth);
  };
  const blob = (oid: string) => git(['cat-file', 'blob', oid], root, `cannot read object ${oid}`);

  const file = (p: string, depth: number): boolean => {
    const entry = list(p).find((e) => e.path === p);
    if (!entry) return false;
    copy(entry, depth);
    return true;
  };
  const folder = (p: string, depth: number): boolean => {
    const entries = list(`${p}/`).filter((e) => posix.dirname(e.path) === p);
    // git keeps no empty folders: an included folder without files at the revision reads as empty, not as missing.
    fs.mkdirSync(dest(p), { recursive: true });
    if (!entries.length) return false;
    for (const e of entries) if (/\.ya?ml$/i.test(e.path)) copy(e, depth);
    return true;
  };
  /** The includes of one file, resolved as the loader resolves them; those it would refuse are not copied. */
  const follow = (p: string, text: string, depth: number): void => {
    const data = new SourceFile(p, text).value;
    if (!isRecord(data) || !Array.isArray(data['include'])) return;
    for (const entry of data['include']) {
      if (typeof entry !== 'string' || entry === '' || posix.isAbsolute(entry) || /^[A-Za-z]:[\\/]/.test(entry)) continue;
      const resolved = posix.normalize(posix.join(posix.dirname(p), entry.replace(/\\/g, '/')));
      if (!inSpecDir(resolved)) continue;
      if (/[\\/]$/.test(entry)) folder(resolved.replace(/\/$/, ''), depth);
      else file(resolved, depth);
    }
  };

  return file(specPath, 0);
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
