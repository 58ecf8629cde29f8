/** The generated-file step: regenerate in memory and compare byte for byte with the disk. No type checker needed. */
import path from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { OutputFile } from '../pipeline/emit/generate.js';
import type { ServerModel } from '../pipeline/model.js';
import { displayPath } from '../core/paths.js';
import { readText } from '../cache/store.js';
import { listOwned } from '../write/write.js';
import { fileFinding, type Finding } from './findings.js';

export function checkGenerated(model: ServerModel, files: readonly OutputFile[], cwd: string): Finding[] {
  const findings: Finding[] = [];
  const add = (...f: Parameters<typeof fileFinding>) => findings.push(fileFinding(...f));
  const show = (rel: string) => displayPath(path.resolve(model.rootDir, rel), cwd);
  const produced = new Set<string>();
  for (const f of files) {
    if (f.kind === 'handler') continue;
    const abs = path.resolve(model.rootDir, f.path);
    produced.add(abs);
    const current = readText(abs);
    if (current === undefined) add('missing-file', 'generate', show(f.path), 'missing: generate has not written it');
    else if (current !== f.contents)
      findings.push({
        kind: 'stale-file',
        file: show(f.path),
        line: firstDifference(current, f.contents),
        column: 1,
        message:
          'stale: it differs from what the spec generates (edited by hand, or the spec changed since the last generate)',
        fix: 'generate',
        diff: unifiedDiff(show(f.path), current, f.contents),
      });
  }
  for (const abs of listOwned(path.resolve(model.rootDir, model.options.generatedDir)))
    if (!produced.has(abs))
      add('extra-file', 'generate', displayPath(abs, cwd), 'no longer produced by the spec; generate removes it');
  return findings;
}

/** Generated JSON and validator code have very long lines; a diff shows where they differ, not all of them. */
const MAX_DIFF_LINE = 160;

function firstDifference(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i + 1;
}

/** From the file on disk to what generate would write; of the patch's header lines, only the files'. */
function unifiedDiff(file: string, current: string, expected: string): string {
  // A diff of a large, much-changed file can take the diff algorithm minutes: bound it, and say so instead.
  const [before, after] = [`${file} (on disk)`, `${file} (generated)`];
  const options = { context: 3, maxEditLength: 5000, timeout: 2000, headerOptions: FILE_HEADERS_ONLY };
  const patch = createTwoFilesPatch(before, after, current, expected, undefined, undefined, options);
  if (patch === undefined) {
    const lines = (t: string) => t.split('\n').length;
    return `(too many differences to show: ${lines(current)} lines on disk, ${lines(expected)} generated)`;
  }
  return patch
    .split('\n')
    .map((l) => (l.length > MAX_DIFF_LINE ? `${l.slice(0, MAX_DIFF_LINE)}…` : l))
    .join('\n')
    .trimEnd();
}
