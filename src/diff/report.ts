/** A diff for people (grouped by class), for machines (JSON) and for GitHub Actions (workflow commands). */
import { annotation, type Annotation } from '../github.js';
import { PLAIN, type Style } from '../report.js';
import { CLASS_ORDER, formatPath, jsonPointer, type Change, type ChangeClass } from './rules.js';
import { textDiff } from './text.js';

export interface DiffReport {
  /** The old side as shown: a file, or `<rev>:<path>`. */
  old: string;
  new: string;
  changes: Change[];
  /** True when the changes fail the diff (exit 1) under the chosen --fail-on. */
  failed: boolean;
}

export type FailOn = 'breaking' | 'prompt' | 'any';

export function fails(changes: readonly Change[], failOn: FailOn): boolean {
  return changes.some(
    (c) => c.class === 'breaking' || (failOn === 'prompt' && c.class === 'prompt') || failOn === 'any',
  );
}

const TITLES: Record<ChangeClass, string> = {
  breaking: 'Breaking changes',
  compatible: 'Compatible changes',
  prompt: 'Prompt changes',
};

/** `BOUNDS_TIGHTENED search_docs inputSchema.properties.limit.maximum 50 → 20` */
export function headline(c: Change): string {
  return [c.rule, c.tool, formatPath(c.segments), c.detail].filter(Boolean).join(' ');
}

export function formatDiffText(report: DiffReport, style: Style = PLAIN): string {
  const out: string[] = [`${style.bold('toolspec diff')} ${report.old} → ${report.new}`, ''];
  const colour: Record<ChangeClass, (s: string) => string> = {
    breaking: style.red,
    compatible: style.cyan,
    prompt: style.yellow,
  };
  for (const cls of CLASS_ORDER) {
    const list = report.changes.filter((c) => c.class === cls);
    if (!list.length) continue;
    out.push(style.bold(`${TITLES[cls]} (${list.length})`));
    for (const c of list) {
      out.push(`  ${colour[cls](c.rule)} ${[c.tool, formatPath(c.segments), c.detail].filter(Boolean).join(' ')}`);
      if (cls === 'prompt') out.push(...textDiff(c.before, c.after, style).map((l) => `      ${l}`));
      else out.push(`      ${style.dim(c.message)}`);
    }
    out.push('');
  }
  out.push(summary(report));
  return `${out.join('\n')}\n`;
}

export function summary(report: DiffReport): string {
  const count = (cls: ChangeClass) => report.changes.filter((c) => c.class === cls).length;
  if (!report.changes.length) return `no changes: ${report.old} and ${report.new} describe the same tools`;
  const parts = `${count('breaking')} breaking, ${count('compatible')} compatible, ${count('prompt')} prompt change${count('prompt') === 1 ? '' : 's'}`;
  if (!report.failed) return parts;
  return count('breaking')
    ? `${parts}: clients built against ${report.old} may fail; keep the old behaviour, or release this as a new major version`
    : `${parts}: changes that --fail-on counts`;
}

/**
 * The JSON report. Stable shape: `{ old, new, ok, summary: { breaking, compatible, prompt }, changes: [...] }`,
 * each change `{ class, rule, tool, path, pointer, detail, message, before?, after?, file?, line?, column? }`.
 */
export function formatDiffJson(report: DiffReport): string {
  const count = (cls: ChangeClass) => report.changes.filter((c) => c.class === cls).length;
  const changes = report.changes.map((c) => ({
    class: c.class,
    rule: c.rule,
    tool: c.tool,
    path: formatPath(c.segments),
    pointer: jsonPointer(c.segments),
    detail: c.detail,
    message: c.message,
    ...('before' in c && { before: c.before }),
    ...('after' in c && { after: c.after }),
    ...(c.file !== undefined && { file: c.file }),
    ...(c.line !== undefined && { line: c.line, column: c.column }),
  }));
  const body = {
    old: report.old,
    new: report.new,
    ok: !report.failed,
    summary: { breaking: count('breaking'), compatible: count('compatible'), prompt: count('prompt') },
    changes,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** One annotation per change: breaking → error, prompt → warning, compatible → notice; at the tool in the new spec. */
export function formatDiffGithub(report: DiffReport): string {
  const level: Record<ChangeClass, Annotation['level']> = {
    breaking: 'error',
    prompt: 'warning',
    compatible: 'notice',
  };
  const lines = report.changes.map((c) => {
    const body =
      c.class === 'prompt' ? [headline(c), ...textDiff(c.before, c.after, PLAIN)] : [`${headline(c)}: ${c.message}`];
    return annotation({
      level: level[c.class],
      ...(c.file !== undefined ? { file: c.file } : {}),
      ...(c.line !== undefined ? { line: c.line } : {}),
      ...(c.column !== undefined ? { column: c.column } : {}),
      title: `toolspec diff: ${c.rule}`,
      message: body.join('\n'),
    });
  });
  lines.push(summary(report));
  return `${lines.join('\n')}\n`;
}
