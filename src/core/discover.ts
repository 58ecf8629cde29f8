/**
 * Which spec a command works on when none is named: `toolspec.yaml` in the working folder, else in the nearest
 * parent folder that has one, as eslint and tsc find their configuration. The search stops at the top of a git
 * repository (a folder holding `.git`, a folder or a worktree's file): a spec above it belongs to another project.
 * Outside a repository it goes on to the file system's root. A path the user names is never searched for.
 */
import fs from 'node:fs';
import path from 'node:path';

export const DEFAULT_SPEC = 'toolspec.yaml';

export interface SpecChoice {
  /** The spec as the user would type it from `cwd`: as given, or e.g. `../toolspec.yaml` when found above. */
  spec: string;
  /** When none was named and none was found: where the search looked, for the "cannot find" message. */
  lookedIn?: string;
}

export function chooseSpec(given: string | undefined, cwd: string): SpecChoice {
  if (given !== undefined) return { spec: given };
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, DEFAULT_SPEC);
    if (fs.existsSync(candidate)) return { spec: path.relative(cwd, candidate).split(path.sep).join('/') };
    const top = fs.existsSync(path.join(dir, '.git'));
    if (top || path.dirname(dir) === dir) {
      const start = path.resolve(cwd);
      const where = `${start}${dir === start ? '' : ` and its parents${top ? ` up to ${dir}` : ''}`}`;
      return { spec: DEFAULT_SPEC, lookedIn: `looked in ${where}${top ? ', the top of its git repository' : ''}` };
    }
  }
}
