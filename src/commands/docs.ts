/**
 * `toolspec docs`: the server's catalog, one self-contained HTML file (src/docs/catalog.ts), written whole or not at
 * all; with `--diff <rev>`, what changed since that git revision on top (the diff machinery of `toolspec diff`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileSystemError, UserError } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { countTokens } from '../lint/tokens.js';
import { renderCatalog, type CatalogDiff } from '../docs/catalog.js';
import { loadOperand, resolveOperands } from '../diff/sides.js';
import { diffServers, EMPTY_SUBJECT } from '../diff/tools.js';
import type { ServerModel } from '../pipeline/model.js';
import { writeAtomically } from '../import/write.js';
import { countsOf, EXIT, invalid, loadForCommand, plural, served } from './result.js';
import type { CommandResult, SpecInput } from './result.js';
import { notValid } from './diff.js';

/** Where the catalog goes without --out: beside the spec. */
export const DEFAULT_CATALOG = 'toolspec-docs.html';

export interface DocsInput extends SpecInput {
  /** The file to write (relative to cwd); default: toolspec-docs.html in the spec's folder. */
  out?: string | undefined;
  /** A git revision: show what changed since the spec as it was there. */
  diff?: string | undefined;
}

export async function docsCommand(input: DocsInput): Promise<CommandResult> {
  const loaded = await loadForCommand(input, 'text');
  const model = loaded.result.model;
  if (!model) return { code: loaded.code, stdout: '', stderr: loaded.stderr };
  let stderr = loaded.stderr;
  let diff: CatalogDiff | undefined;
  if (input.diff !== undefined) {
    const changes = changesSince(input.diff, input, model);
    if ('failed' in changes) return invalid(stderr + changes.failed);
    diff = changes;
    if (diff.missing) stderr += `note: ${diff.old} does not exist; every tool counts as added\n`;
  }
  const text = renderCatalog({ model, tokens: await countTokens(model), ...(diff && { diff }) });
  const target = input.out
    ? path.resolve(input.cwd, input.out)
    : path.join(path.dirname(path.resolve(input.cwd, model.specFile)), DEFAULT_CATALOG);
  const shown = displayPath(target, input.cwd);
  const unchanged = write(target, shown, text);
  const what = `the catalog of ${served(countsOf(model))}${diff ? `, ${changeCount(diff)} since ${input.diff}` : ''}`;
  return { code: EXIT.ok, stdout: `${shown}: ${what}${unchanged ? ' (unchanged)' : ''}`, stderr };
}

/** The spec at `rev` against `model`, classified as `toolspec diff --against <rev>` does; or why it cannot be. */
function changesSince(rev: string, input: DocsInput, model: ServerModel): CatalogDiff | { failed: string } {
  const operands = resolveOperands({ against: rev, spec: input.spec, cwd: input.cwd });
  const before = loadOperand(operands.old, input.cwd);
  if (!before.missing && !before.result.model)
    return { failed: notValid(before, input.style.err, '--diff needs a revision where it is') };
  return {
    old: before.label,
    missing: before.missing,
    changes: diffServers(before.result.model ?? EMPTY_SUBJECT, model),
  };
}

function changeCount(diff: CatalogDiff): string {
  const breaking = diff.changes.filter((c) => c.class === 'breaking').length;
  return `${plural(diff.changes.length, 'change')}${breaking ? ` (${breaking} breaking)` : ''}`;
}

/** Writes the file whole (a temporary file renamed over it), unless it has these bytes already: true then. */
function write(target: string, shown: string, text: string): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(target);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory())
    throw new UserError(
      `${shown} is a folder; give --out the path of the file to write, e.g. --out ${path.posix.join(shown, DEFAULT_CATALOG)}`,
    );
  if (st?.isFile() && fs.readFileSync(target, 'utf8') === text) return true;
  try {
    writeAtomically(target, shown, text, true);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // mkdir's EEXIST: a file stands where a folder of the path must be.
    const code = err.code === 'EEXIST' && err.syscall === 'mkdir' ? 'ENOTDIR' : err.code;
    // mkdir's ENOENT below a folder that exists: the file system takes no folder there (/proc, /sys).
    if (code === 'ENOENT' && err.syscall === 'mkdir')
      throw new UserError(
        `cannot write ${shown}: its folder cannot be made there (ENOENT); the catalog was not written`,
      );
    const user = code ? fileSystemError({ code, path: shown, syscall: 'write' }) : undefined;
    throw user ? new UserError(`${user.message}; the catalog was not written`) : e;
  }
  return false;
}
