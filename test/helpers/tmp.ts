import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp folder holding `files` (path → text); removed by the returned cleanup. */
export function tempProject(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-'));
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(dir, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
