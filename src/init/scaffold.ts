/**
 * `toolspec init`: a new server project from templates/init, that works with `npm install && npm start` and
 * passes `npm test`. Pure: returns the files; the CLI writes them (never over an existing file).
 *
 * Its toolspec devDependency is one that installs where init runs (`toolspecDependency`): toolspec from a registry
 * gets a registry range; toolspec run from a clone, or installed from a tarball or a folder, gets a `file:` path to
 * it (absolute, so that the new project can move; the clone or the tarball stays on this machine anyway).
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../core/paths.js';

/** npm's rules for a package name, from a folder name. */
export function packageName(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[._-]+$/g, '');
  return name || 'mcp-server';
}

const slash = (p: string) => p.split(path.sep).join('/');

/** Where the compiled server's entry point lands in an init project (its tsconfig compiles `.` into `dist/`). */
export const INIT_MAIN = 'dist/src/generated/main.js';

export interface InitProject {
  /** The package name, also the server's name in client configurations. */
  name: string;
  /** The toolspec devDependency, as package.json will say. */
  toolspec: string;
  /** A spec with no tools (templates/blank/toolspec.yaml) instead of the example. */
  blank?: boolean;
}

export function initFiles(project: InitProject) {
  const root = path.join(packageRoot, 'templates', 'init');
  const fill = (text: string, json: boolean) =>
    text.replace(/\{\{(name|toolspec)\}\}/g, (_, k: 'name' | 'toolspec') =>
      json ? JSON.stringify(project[k]).slice(1, -1) : project[k],
    );
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .map(slash)
    .map((f) => ({
      // npm drops .gitignore files from published packages, so the template carries it without the dot.
      path: f === 'gitignore' ? '.gitignore' : f,
      contents: fill(
        fs.readFileSync(
          f === 'toolspec.yaml' && project.blank ? path.join(packageRoot, 'templates', 'blank', f) : path.join(root, f),
          'utf8',
        ),
        f.endsWith('.json'),
      ),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What is known, on disk, about where the running toolspec came from. */
export interface ToolspecOrigin {
  /** The package's own folder, links resolved. */
  root: string;
  version: string;
  /**
   * What npm's lock file, in the tree that holds `root`, says this copy was resolved from: a registry URL, a git
   * URL, or `file:` and an absolute path (a tarball or a folder). npx and local installs record it; a global
   * install does not.
   */
  resolved?: string;
  /** The tarball `npm pack` made this copy into (dist/packed.json, written by scripts/pack-stamp.mjs). */
  packedAs?: string;
}

export interface ToolspecDependency {
  /** What package.json gets. */
  spec: string;
  /** Why, in a few words, for init's output. */
  why: string;
  /** Set when the spec may not install, with what to do. */
  warning?: string;
}

/**
 * The toolspec devDependency that installs where init runs. Pure: `exists` says which paths are there.
 * - not under a node_modules folder (a clone, or a link to one: `npm link`): `file:` the clone;
 * - installed, and npm recorded a tarball, a folder or a git URL: that;
 * - installed from a tarball `npm pack` made: `file:` the tarball while it is there;
 * - otherwise a registry: `^<version>`.
 */
export function toolspecDependency(origin: ToolspecOrigin, exists: (file: string) => boolean): ToolspecDependency {
  const range = `^${origin.version}`;
  if (!origin.root.split(/[\\/]/).includes('node_modules')) {
    return {
      spec: `file:${slash(origin.root)}`,
      why: `toolspec runs from ${slash(origin.root)}, not from a registry install; that folder must stay, with its dist/ built`,
    };
  }
  const resolved = origin.resolved;
  if (resolved?.startsWith('file:')) {
    const target = resolved.slice('file:'.length);
    const kind = /\.(tgz|tar\.gz|tar)$/.test(target) ? 'the tarball' : 'the folder';
    if (exists(target))
      return { spec: `file:${slash(target)}`, why: `toolspec was installed from ${kind} ${slash(target)}` };
    return gone(`${kind} ${slash(target)},`);
  }
  if (resolved && /^(git\+|git:|github:|gitlab:|bitbucket:)/.test(resolved))
    return { spec: resolved, why: `toolspec was installed from git (${resolved})` };
  if (resolved && /^https?:/.test(resolved) && !resolved.includes('/-/'))
    return { spec: resolved, why: `toolspec was installed from the tarball at ${resolved}` };
  if (!resolved && origin.packedAs) {
    const tarball = origin.packedAs;
    if (exists(tarball))
      return {
        spec: `file:${slash(tarball)}`,
        why: `toolspec was installed from the tarball ${slash(tarball)}, made by npm pack`,
      };
    return gone(`the tarball ${slash(tarball)}, made by npm pack,`);
  }
  return { spec: range, why: `toolspec was installed from a registry (${slash(origin.root)})` };

  function gone(what: string): ToolspecDependency {
    return {
      spec: range,
      why: `toolspec was installed from ${what} which is not there any more`,
      warning: `"${range}" installs only from a registry that has toolspec ${origin.version}; if yours has not, run init again with --toolspec <path of a toolspec tarball or clone>`,
    };
  }
}

/**
 * `--toolspec <spec>` as the user typed it: a path (`../toolspec`, `./toolspec-0.1.0.tgz`, `file:../toolspec`) is
 * taken from the folder init runs in, where the user typed it, and written absolute (npm would read a relative one
 * from the new project's folder); anything else (a range, a URL, a git spec) is written as is.
 */
export function explicitDependency(spec: string, cwd: string): ToolspecDependency {
  const why = 'as --toolspec says';
  const file = /^file:/.test(spec) ? spec.slice('file:'.length) : undefined;
  // A URL or a git spec ends in .tgz too: only what has no scheme (or file:) is a path.
  const scheme = /^[a-z][a-z0-9+.-]+:/i.test(spec) && !path.isAbsolute(spec);
  const isPath =
    file !== undefined ||
    (!scheme && (/^\.{1,2}([\\/]|$)/.test(spec) || /\.(tgz|tar\.gz)$/.test(spec) || path.isAbsolute(spec)));
  if (!isPath) return { spec, why };
  const target = file ?? spec;
  if (path.isAbsolute(target)) return { spec: `file:${slash(target)}`, why };
  return { spec: `file:${slash(path.resolve(cwd, target))}`, why: `${why}: ${spec}, from ${slash(cwd)}` };
}

/**
 * A `file:` dependency as package.json should hold it: relative to the project (npm reads it from there), so that
 * the project, its lock file and the tarball or clone beside it can move together or be checked in; with a word on
 * moving to a registry version later. Anything else is kept as it is.
 */
export function projectRelative(
  dependency: ToolspecDependency,
  projectDir: string,
  version: string,
): ToolspecDependency {
  if (!dependency.spec.startsWith('file:')) return dependency;
  const target = dependency.spec.slice('file:'.length);
  if (!path.isAbsolute(target)) return dependency;
  const relative = slash(path.relative(projectDir, target)) || '.';
  return {
    ...dependency,
    spec: `file:${relative.startsWith('.') ? relative : `./${relative}`}`,
    why: `${dependency.why}; once toolspec is on your registry: npm install -D toolspec@^${version}`,
  };
}

/** Reads what `toolspecDependency` needs about the toolspec that is running, from the disk. */
export function runningToolspec(root: string = packageRoot): ToolspecOrigin {
  const real = fs.realpathSync(root);
  const { version } = JSON.parse(fs.readFileSync(path.join(real, 'package.json'), 'utf8')) as { version: string };
  const packedAs = readJson(path.join(real, 'dist', 'packed.json'))?.['tarball'];
  const packed = typeof packedAs === 'string' && path.isAbsolute(packedAs) ? packedAs : undefined;
  return { root: real, version, resolved: lockRecord(real), packedAs: packed };
}

/**
 * What the lock file of the tree that holds `root` (…/node_modules/toolspec, maybe nested) says it was resolved
 * from; a `file:` path made absolute (npm writes it relative to the tree's root).
 */
function lockRecord(root: string): string | undefined {
  const parts = root.split(path.sep);
  const at = parts.indexOf('node_modules');
  if (at < 0) return undefined;
  const treeRoot = parts.slice(0, at).join(path.sep) || path.sep;
  const key = parts.slice(at).join('/');
  for (const lock of ['node_modules/.package-lock.json', 'package-lock.json', 'npm-shrinkwrap.json']) {
    const packages = readJson(path.join(treeRoot, lock))?.['packages'] as
      Record<string, { resolved?: unknown }> | undefined;
    const resolved = packages?.[key]?.resolved;
    if (typeof resolved !== 'string') continue;
    return resolved.startsWith('file:') ? `file:${path.resolve(treeRoot, resolved.slice('file:'.length))}` : resolved;
  }
  return undefined;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
