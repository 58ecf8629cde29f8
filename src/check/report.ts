/** Check findings for people (grouped, with diffs), for machines (JSON) and for GitHub Actions (workflow commands). */
import { renderGithub, renderJson, renderText, type Finding as Reported } from '../report/findings.js';
import { plural, type Style } from '../report/text.js';
import { FIX_TEXT, type Finding } from './findings.js';

/** A check finding as every command reports one: its kind is the code; the fix is the hint. */
export function asFinding(f: Finding): Reported {
  return {
    code: f.kind,
    severity: 'error',
    file: f.file,
    line: f.line,
    column: f.column,
    ...(f.tool !== undefined && { tool: f.tool }),
    message: f.message,
    hint: FIX_TEXT[f.fix],
    details: [...(f.expected ? [`expected: ${f.expected}`] : []), ...(f.actual ? [`actual:   ${f.actual}`] : [])],
    data: {
      fix: f.fix,
      ...(f.expected !== undefined && { expected: f.expected }),
      ...(f.actual !== undefined && { actual: f.actual }),
    },
  };
}

export function formatFindingsText(findings: readonly Finding[], style: Style, opts: { diff: boolean }): string {
  if (!findings.length) return '';
  const out: string[] = [];
  const files = findings.filter((f) => f.kind.endsWith('-file'));
  const groups = { 'Generated files': files, Handlers: findings.filter((f) => !files.includes(f)) };
  for (const [title, list] of Object.entries(groups)) {
    if (!list.length) continue;
    out.push(style.bold(title));
    for (const f of list) {
      out.push(renderText(asFinding(f), style, { compact: true, indent: '  ' }));
      if (opts.diff && f.diff) out.push(colourDiff(f.diff, style).replace(/^/gm, '      '));
    }
    out.push('');
  }
  out.push(summary(findings));
  return `${out.join('\n')}\n`;
}

/**
 * The last line: what `toolspec generate` fixes and what needs a person. What it counts as generate's, generate does
 * without touching a handler's code (it creates stubs for tools that have none and moves renamed tools' modules);
 * a rename question comes first, since generate stops until the spec answers it.
 */
export function summary(findings: readonly Finding[]): string {
  const byGenerate = findings.filter((f) => f.fix === 'generate').length;
  const questions = findings.filter((f) => f.fix === 'spec').map((f) => `${f.file}:${f.line}:${f.column}`);
  const people = [...new Set(findings.filter((f) => f.fix === 'handler').map((f) => f.file))];
  const confirm = questions.length === 1 ? 'a rename to confirm' : `${questions.length} renames to confirm`;
  const need = people.length === 1 ? 'a handler needs' : `${people.length} handlers need`;
  const parts = [];
  if (questions.length) parts.push(`${confirm} in the spec first (generate stops until then): ${questions.join(', ')}`);
  if (byGenerate) parts.push(`\`toolspec generate\` fixes ${byGenerate}${questions.length ? ' after that' : ''}`);
  if (people.length) parts.push(`${need} a person: ${people.join(', ')}`);
  return `${plural(findings.length, 'problem')}: ${parts.join('; ')}`;
}

export function formatFindingsJson(findings: readonly Finding[], spec: string): string {
  const list = findings.map((f) => renderJson(asFinding(f)));
  return `${JSON.stringify({ ok: findings.length === 0, spec, findings: list }, null, 2)}\n`;
}

export function formatFindingsGithub(findings: readonly Finding[]): string {
  if (!findings.length) return '';
  return `${renderGithub(findings.map(asFinding), 'toolspec check')}\n${summary(findings)}\n`;
}

function colourDiff(diff: string, style: Style): string {
  return diff
    .split('\n')
    .map((l) =>
      l.startsWith('+') && !l.startsWith('+++')
        ? style.cyan(l)
        : l.startsWith('-') && !l.startsWith('---')
          ? style.red(l)
          : l.startsWith('@@')
            ? style.dim(l)
            : l,
    )
    .join('\n');
}
