/**
 * Where the loader reads a spec from: the disk by default, a git revision (diff/git.ts), or memory (tests, import).
 * The loader's include rules (relative paths, inside the spec's folder, links resolved, folders of .yaml files)
 * exist once, in load.ts, whatever the source. Paths are absolute, in the platform's form.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Entry {
  kind: 'file' | 'folder' | 'other';
  /** Bytes, for files. */
  size: number;
}

export interface FileSource {
  /** What is at `abs`; throws an error with a `code` (ENOENT, EACCES, …) as the file system would. */
  stat(abs: string): Entry;
  read(abs: string): Buffer;
  /** The names in a folder; throws as stat does. */
  list(abs: string): string[];
  /** `abs` with links resolved (as far as they exist); `abs` itself when nothing is there. */
  realpath(abs: string): string;
}

/** A file-system error as Node raises it: callers tell them apart by `code`. */
export function fsError(code: string, abs: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${abs}`), { code, path: abs });
}

export const diskSource: FileSource = {
  stat(abs) {
    const st = fs.statSync(abs);
    return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other', size: st.size };
  },
  read: (abs) => fs.readFileSync(abs),
  list: (abs) => fs.readdirSync(abs),
  realpath(abs) {
    try {
      // The system's realpath(3): one call, where realpathSync's JavaScript walk stats every component of every path.
      return fs.realpathSync.native(abs);
    } catch {
      return abs;
    }
  },
};

/** Files held in memory, by absolute path; folders are implied by the paths. No links. */
export function memorySource(files: ReadonlyMap<string, string | Buffer>): FileSource {
  const norm = (p: string) => path.resolve(p);
  const bytes = new Map([...files].map(([p, t]) => [norm(p), typeof t === 'string' ? Buffer.from(t, 'utf8') : t]));
  const children = (dir: string) => {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    return [
      ...new Set(
        [...bytes.keys()].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length).split(path.sep)[0]!),
      ),
    ];
  };
  return {
    stat(abs) {
      const p = norm(abs);
      const b = bytes.get(p);
      if (b) return { kind: 'file', size: b.length };
      if (children(p).length) return { kind: 'folder', size: 0 };
      throw fsError('ENOENT', abs);
    },
    read(abs) {
      const b = bytes.get(norm(abs));
      if (!b) throw fsError(children(norm(abs)).length ? 'EISDIR' : 'ENOENT', abs);
      return b;
    },
    list(abs) {
      const names = children(norm(abs));
      if (!names.length && !bytes.has(norm(abs))) throw fsError('ENOENT', abs);
      return names.sort();
    },
    realpath: (abs) => norm(abs),
  };
}
