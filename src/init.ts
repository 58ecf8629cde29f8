/**
 * `toolspec init`: a new server project from templates/init, that works with `npm install && npm start` and
 * passes `npm test`. Pure: returns the files; the CLI writes them (never over an existing file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths.js';

export interface InitFile {
  path: string;
  contents: string;
}

/** npm's rules for a package name, from a folder name. */
export function packageName(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[._-]+$/g, '');
  return name || 'mcp-server';
}

export function initFiles(name: string, toolspecDependency: string): InitFile[] {
  const root = path.join(packageRoot, 'templates', 'init');
  const holes: Record<string, string> = { name, toolspec: toolspecDependency };
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .sort()
    .map((f) => ({
      // npm drops .gitignore files from published packages, so the template carries it without the dot.
      path: f === 'gitignore' ? '.gitignore' : f,
      contents: fs.readFileSync(path.join(root, f), 'utf8').replace(/\{\{(\w+)\}\}/g, (m, k: string) => holes[k] ?? m),
    }));
}
