import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The package's own folder (holds package.json, schema/ and templates/), from src/ or dist/src/ alike. */
export const packageRoot = ((): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

/** toolspec's own version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

export const specSchemaPath = path.join(packageRoot, 'schema', 'toolspec.schema.json');
export const includeSchemaPath = path.join(packageRoot, 'schema', 'toolspec-include.schema.json');

/**
 * How a path is shown to the user: as they would type it from the working directory, with forward slashes. That is
 * relative, with `..` when the path is beside or above it (run from a project's subfolder: `../toolspec.yaml`),
 * unless the two share no folder but the file system's root (or the drive differs): then absolute.
 */
export function displayPath(abs: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, abs);
  const shown = rel && (!escapes(rel) || sharesFolder(rel, cwd)) ? rel : abs;
  return shown.split(path.sep).join('/');
}

/** True when the relative path `rel` (from `cwd`) climbs to a folder below the root, not to the root itself. */
function sharesFolder(rel: string, cwd: string): boolean {
  const top = path.resolve(cwd, ...rel.split(path.sep).filter((s) => s === '..'));
  return !path.isAbsolute(rel) && top !== path.parse(top).root;
}

/** True when `inner` is `outer` or lies below it. Both absolute. */
export function isInside(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || !escapes(rel);
}

/** A relative path that leaves its base: `..` or `../…` (not a name that merely starts with dots, like `..a.ts`). */
function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}
