/** A diff for people (grouped by class), for machines (JSON) and for GitHub Actions (workflow commands). */
import { renderGithub, renderJson, type Finding, type FindingSeverity } from '../report/findings.js';
import { PLAIN, type Style } from '../report/text.js';
import { CLASS_ORDER, formatPath, jsonPointer, sides, type Change, type ChangeClass } from './rules.js';
import type { VersionVerdict } from './semver.js';
import { textDiff } from './text.js';

export interface DiffReport {
  /** The old side as shown: a file, or `<rev>:<path>`. */
  old: string;
  new: string;
  changes: Change[];
  /** True when the changes fail the diff (exit 1) under the chosen --fail-on, or --check-version. */
  failed: boolean;
  /** The bump the changes need and whether server.version made it, when both sides have semantic versions. */
  version?: VersionVerdict;
}

export type FailOn = 'breaking' | 'prompt' | 'any';

export function fails(changes: readonly Change[], failOn: FailOn): boolean {
  return changes.some(
    (c) => c.class === 'breaking' || (failOn === 'prompt' && c.class === 'prompt') || failOn === 'any',
  );
}

const count = (changes: readonly Change[], cls: ChangeClass) => changes.filter((c) => c.class === cls).length;

/** What a change touches and how, as it is listed: the tool, the path in it and the detail. */
const where = (c: Change) => [c.tool, formatPath(c.segments), c.detail].filter(Boolean).join(' ');

export function formatDiffText(report: DiffReport, style: Style): string {
  const out: string[] = [`${style.bold('toolspec diff')} ${report.old} → ${report.new}`, ''];
  const colour: Record<ChangeClass, (s: string) => string> = {
    breaking: style.red,
    compatible: style.cyan,
    prompt: style.yellow,
  };
  for (const cls of CLASS_ORDER) {
    const list = report.changes.filter((c) => c.class === cls);
    if (!list.length) continue;
    // Titled by the class: Breaking changes, Compatible changes, Prompt changes.
    out.push(style.bold(`${cls[0]!.toUpperCase()}${cls.slice(1)} changes (${list.length})`));
    for (const c of list) {
      out.push(`  ${colour[cls](c.rule)} ${where(c)}`);
      if (cls === 'prompt') out.push(...textDiff(c.before, c.after, style).map((l) => `      ${l}`));
      else out.push(`      ${style.dim(c.message)}`);
    }
    out.push('');
  }
  out.push(summary(report));
  if (report.version && report.changes.length) out.push(versionLine(report.version));
  return `${out.join('\n')}\n`;
}

/** "server.version 1.2.0 → 1.3.0: the changes need a major version (2.0.0 or later)". */
function versionLine(v: VersionVerdict): string {
  const need = v.needed === 'none' ? 'no new version' : `a ${v.needed} version (${v.least} or later)`;
  return `server.version ${v.old} → ${v.new}: the changes need ${need}${v.ok ? '' : ' — not made'}`;
}

function summary(report: DiffReport): string {
  if (!report.changes.length) return `no changes: ${report.old} and ${report.new} describe the same tools`;
  const [breaking, compatible, prompt] = CLASS_ORDER.map((cls) => count(report.changes, cls));
  const parts = `${breaking} breaking, ${compatible} compatible, ${prompt} prompt change${prompt === 1 ? '' : 's'}`;
  if (!report.failed) return parts;
  return breaking
    ? `${parts}: clients built against ${report.old} may fail; keep the old behaviour, or release this as a new major version`
    : `${parts}: changes that --fail-on counts`;
}

const SEVERITY: Record<ChangeClass, FindingSeverity> = { breaking: 'error', prompt: 'warning', compatible: 'notice' };

/**
 * A change as every command reports one: the rule is its code; breaking → error, prompt → warning, compatible →
 * notice; at the tool in the new spec when it has a place. A prompt change shows its text diff as details.
 */
export function asFinding(c: Change): Finding {
  return {
    code: c.rule,
    severity: SEVERITY[c.class],
    ...(c.file !== undefined && { file: c.file }),
    ...(c.line !== undefined && { line: c.line, column: c.column }),
    ...(c.tool !== null && { tool: c.tool }),
    message: `${where(c)}: ${c.message}`,
    ...(c.class === 'prompt' && { details: textDiff(c.before, c.after, PLAIN) }),
    data: {
      class: c.class,
      path: formatPath(c.segments),
      pointer: jsonPointer(c.segments),
      detail: c.detail,
      ...sides(c.before, c.after),
    },
  };
}

/**
 * The JSON report. Stable shape: `{ old, new, ok, summary: { breaking, compatible, prompt }, changes: [...] }`,
 * each change a finding (`{ code, severity, file?, line?, column?, tool?, message, class, path, pointer, detail,
 * before?, after? }`), the code being the rule.
 */
export function formatDiffJson(report: DiffReport): string {
  const body = {
    old: report.old,
    new: report.new,
    ok: !report.failed,
    summary: Object.fromEntries(CLASS_ORDER.map((cls) => [cls, count(report.changes, cls)])),
    ...(report.version ? { version: report.version } : {}),
    changes: report.changes.map((c) => renderJson(asFinding(c))),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** One annotation per change, then the summary. */
export function formatDiffGithub(report: DiffReport): string {
  const lines = report.changes.length ? [renderGithub(report.changes.map(asFinding), 'toolspec diff')] : [];
  lines.push(summary(report));
  return `${lines.join('\n')}\n`;
}
