/**
 * Writing the imported spec without ever losing a user's file: the text goes to a temporary file beside the
 * target, then takes the target's name in one step. Without `force` that step is a hard link, which fails when the
 * name exists (even one created a moment ago by someone else); with `force` it is a rename, which replaces the
 * old file whole or not at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/diagnostics.js';

/** Refuses early, before any server is started, when the target cannot be written. */
export function checkTarget(target: string, shown: string, force: boolean): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(target);
  } catch {
    return;
  }
  if (st.isDirectory())
    throw new UserError(
      `${shown} is a folder; give --out the path of the spec file to write, e.g. --out ${path.posix.join(shown, 'toolspec.yaml')}`,
    );
  if (!force)
    throw new UserError(
      `${shown} exists already; nothing was imported\n  hint: pass --force to replace it, or --out another.yaml to write beside it`,
    );
}

export function writeAtomically(target: string, shown: string, text: string, force: boolean): void {
  const dir = path.dirname(target);
  makeFolders(dir);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  fs.writeFileSync(temp, text, { flag: 'wx' });
  try {
    if (force) {
      fs.renameSync(temp, target);
      return;
    }
    try {
      fs.linkSync(temp, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new UserError(
          `${shown} was created while importing; it was left as it is\n  hint: pass --force to replace it`,
        );
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw e;
      // A file system without hard links: exclusive create, then write (not atomic, but never over a file).
      fs.writeFileSync(target, text, { flag: 'wx' });
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * The missing folders of `dir`, made one at a time from the top: Node's recursive mkdir loops for ever where a
 * parent exists but refuses children with ENOENT (/proc), and this walk is bounded by the path's depth.
 */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let cur = dir; !fs.existsSync(cur); cur = path.dirname(cur)) {
    missing.push(cur);
    if (path.dirname(cur) === cur) break;
  }
  for (const folder of missing.reverse()) fs.mkdirSync(folder);
}
