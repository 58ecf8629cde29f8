/**
 * The two sides of a diff: which spec each operand names (a file, a git revision of the spec, or `<rev>:<path>`),
 * and each loaded with the normal loader, so includes and `$defs` resolve the same way on both sides.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError, type Diagnostic } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { loadModel, type LoadResult } from '../compile.js';
import { gitSource, pathInRepository, repositoryRoot, resolveRevision } from './git.js';

export type Operand = { kind: 'file'; path: string } | { kind: 'git'; rev: string; root: string; path: string };

export interface OperandInput {
  old?: string | undefined;
  new?: string | undefined;
  against?: string | undefined;
  /** The spec file for operands that name only a revision. */
  spec: string;
  cwd: string;
}

export function resolveOperands(input: OperandInput): { old: Operand; new: Operand } {
  const { cwd } = input;
  if (input.against !== undefined) {
    if (input.new !== undefined)
      throw new UserError(
        '--against takes the old side from git: pass at most one spec file, the new side (e.g. toolspec diff --against origin/main specs/toolspec.yaml)',
      );
    const spec = input.old ?? input.spec;
    return { old: revisionOf(input.against, spec, cwd), new: { kind: 'file', path: spec } };
  }
  if (input.old === undefined)
    throw new UserError(
      'name the old spec: toolspec diff <old> [new], where each is a spec file, a git revision or <rev>:<path>; or compare with git: toolspec diff --against origin/main',
    );
  return {
    old: parseOperand(input.old, input.spec, cwd),
    new: input.new === undefined ? { kind: 'file', path: input.spec } : parseOperand(input.new, input.spec, cwd),
  };
}

/** A spec file when one exists at that path; otherwise `<rev>:<path>` or a revision of the spec. */
function parseOperand(arg: string, spec: string, cwd: string): Operand {
  const abs = path.resolve(cwd, arg);
  if (fs.existsSync(abs) || /^[A-Za-z]:[\\/]/.test(arg)) return { kind: 'file', path: arg };
  const colon = arg.indexOf(':');
  if (colon > 0) {
    const rev = arg.slice(0, colon);
    const p = arg.slice(colon + 1);
    if (p === '') return revisionOf(rev, spec, cwd);
    // As in git: a path after the colon is relative to the repository's top, or to here when it starts with ./ or ../
    if (/^\.\.?\//.test(p)) return revisionOf(rev, p, cwd);
    const root = repositoryRoot(cwd);
    return { kind: 'git', rev, root, path: path.posix.normalize(p.replace(/\\/g, '/')).replace(/^\.\//, '') };
  }
  if (/\.ya?ml$/i.test(arg))
    throw new UserError(`cannot find ${arg}; pass a spec file, a git revision, or <rev>:<path>`);
  return revisionOf(arg, spec, cwd);
}

function revisionOf(rev: string, spec: string, cwd: string): Operand {
  const abs = path.resolve(cwd, spec);
  const root = repositoryRoot(path.dirname(abs));
  return { kind: 'git', rev, root, path: pathInRepository(root, abs) };
}

export interface LoadedSide {
  /** As shown: the file's path, or `<rev>:<path>`. */
  label: string;
  /** A revision's files named `<rev>:<path>` in its diagnostics and sources; its model keeps the paths alone. */
  result: LoadResult;
  /** The spec file does not exist at the revision: the side is taken as a spec with no tools. */
  missing: boolean;
}

export function loadOperand(op: Operand, cwd: string): LoadedSide {
  if (op.kind === 'file') {
    const result = loadModel(op.path, { cwd });
    return { label: displayPath(path.resolve(cwd, op.path), cwd), result, missing: false };
  }
  const commit = resolveRevision(op.root, op.rev);
  const label = `${op.rev}:${op.path}`;
  const source = gitSource(op.root, commit, op.path);
  const spec = path.join(op.root, ...op.path.split('/'));
  try {
    if (source.stat(spec).kind !== 'file') throw new Error('not a file');
  } catch {
    return {
      label,
      result: { diagnostics: [], files: [], sources: new Map(), inputs: { files: [], folders: [] } },
      missing: true,
    };
  }
  const result = loadModel(spec, { cwd: op.root, source });
  // Files are shown as <rev>:<path in the repository>, which is what `git show` takes.
  const shown = (f: string) => `${op.rev}:${f}`;
  const relabel = (d: Diagnostic): Diagnostic => ({
    ...d,
    file: shown(d.file),
    message: d.message.split(op.root + path.sep).join(''),
  });
  return {
    label,
    missing: false,
    result: {
      ...result,
      diagnostics: result.diagnostics.map(relabel),
      files: result.files.map(shown),
      sources: new Map([...result.sources].map(([f, text]) => [shown(f), text])),
    },
  };
}
