/**
 * The one finding type every command reports through, and its three renderers: text for people (a header line,
 * a code frame when the file's text is at hand, the hint and the details), JSON for machines (one item shape for
 * every command), and GitHub workflow commands (annotations on the pull request's lines). Each command turns its
 * own results (diagnostics, lint findings, check's drift, diff's changes) into findings and lays them out
 * (grouping, summaries); how one finding looks is decided only here.
 */
import type { Span } from '../core/diagnostics.js';
import { codeFrame, visible, type Style } from './text.js';

export type FindingSeverity = 'error' | 'warning' | 'notice';

/** Where it is, when it has a place (core/diagnostics.ts's Span). */
export interface Finding extends Partial<Span> {
  /** What kind of problem, stable for tools to match on: TS012, a lint rule id, a check kind, a diff rule. */
  code: string;
  severity: FindingSeverity;
  tool?: string;
  message: string;
  /** How to fix it. */
  hint?: string;
  /** Lines that belong under the message: the expected and the actual type, a text diff. */
  details?: string[];
  /** What the command knows beyond the common fields (check's fix, diff's class and path): kept in the JSON. */
  data?: Record<string, unknown>;
}

export interface TextOptions {
  /** The text of the finding's file: a code frame is shown under the header. */
  source?: string | undefined;
  /** Header and details only, one finding a line (the commands that report beside their own work). */
  compact?: boolean;
  /** Shown before each line. */
  indent?: string;
}

/** `toolspec.yaml:12:5 error TS022 unknown type "strng"`, then the code frame, the hint and the details. */
export function renderText(f: Finding, style: Style, opts: TextOptions = {}): string {
  const indent = opts.indent ?? '';
  const place = f.file === undefined ? '' : `${[f.file, f.line, f.column].filter((p) => p !== undefined).join(':')} `;
  const colour = f.severity === 'error' ? style.red : f.severity === 'warning' ? style.yellow : style.cyan;
  const lines = [
    `${place ? `${style.bold(visible(place.trimEnd()))} ` : ''}${colour(style.bold(f.severity))} ${style.dim(visible(f.code))}${f.tool === undefined ? '' : ` ${style.dim(visible(f.tool))}`} ${visible(f.message)}`,
  ];
  if (!opts.compact && opts.source !== undefined && f.line !== undefined && f.column !== undefined) {
    const frame = codeFrame(opts.source, { ...f, line: f.line, column: f.column });
    if (frame) {
      const gutter = String(f.line);
      lines.push(style.dim(`  ${gutter} | `) + frame.text);
      lines.push(style.dim(`  ${' '.repeat(gutter.length)} | `) + colour(frame.caret));
    }
  }
  if (!opts.compact && f.hint) lines.push(`  ${style.cyan('hint:')} ${visible(f.hint)}`);
  for (const d of f.details ?? []) lines.push(`    ${d}`);
  return lines.map((l) => indent + l).join('\n');
}

/** Findings with code frames (from their files' text), a blank line apart. */
export function renderTexts(list: readonly Finding[], style: Style, sources: ReadonlyMap<string, string>): string {
  return list
    .map((f) => renderText(f, style, { source: f.file === undefined ? undefined : sources.get(f.file) }))
    .join('\n\n');
}

/**
 * One item shape for every command's JSON: the common fields in a fixed order, then the command's own data. The
 * details are left out: they are lines for people, and the data holds the same facts as fields.
 */
export function renderJson(f: Finding): Record<string, unknown> {
  return {
    code: f.code,
    severity: f.severity,
    ...(f.file !== undefined && { file: f.file }),
    ...(f.line !== undefined && { line: f.line, column: f.column }),
    ...(f.endLine !== undefined && { endLine: f.endLine, endColumn: f.endColumn }),
    ...(f.tool !== undefined && { tool: f.tool }),
    message: f.message,
    ...(f.hint !== undefined && { hint: f.hint }),
    ...f.data,
  };
}

/** A finding's message with its details and hint, as one text: for the formats that take a single message. */
export function fullMessage(f: Finding): string {
  return [f.message, ...(f.details ?? []), ...(f.hint ? [`hint: ${f.hint}`] : [])].join('\n');
}

/**
 * GitHub Actions workflow commands: one annotation per finding, at its place, titled `<command>: <code>` (e.g.
 * `toolspec check: stale-file`). Escaped by the runner's rules (actions/toolkit's command.ts): in the message `%`,
 * CR and LF; in a property those and `:` and `,` too. Nothing a spec contains (a key with a newline, a message with
 * "::") can end the annotation and start a command of its own.
 * https://docs.github.com/actions/reference/workflow-commands-for-github-actions#setting-an-error-message
 */
export function renderGithub(list: readonly Finding[], command: string): string {
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  return list
    .map((f) => {
      const props = [
        f.file !== undefined && `file=${property(f.file)}`,
        f.line !== undefined && `line=${f.line}`,
        f.column !== undefined && `col=${f.column}`,
        `title=${property(`${command}: ${f.code}`)}`,
      ].filter(Boolean);
      return `::${f.severity} ${props.join(',')}::${data(fullMessage(f))}`;
    })
    .join('\n');
}
