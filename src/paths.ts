import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The package's own folder (holds package.json, schema/ and templates/), from src/ or dist/src/ alike. */
export const packageRoot = ((): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

export const specSchemaPath = path.join(packageRoot, 'schema', 'toolspec.schema.json');
export const includeSchemaPath = path.join(packageRoot, 'schema', 'toolspec-include.schema.json');

/** How a path is shown to the user: relative to the working directory when inside it, with forward slashes. */
export function displayPath(abs: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, abs);
  const shown = rel && !escapes(rel) ? rel : abs;
  return shown.split(path.sep).join('/');
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
