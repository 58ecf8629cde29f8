/**
 * `toolspec diff`: resolve the two operands, load both specs, diff them, place each change in the new spec and
 * format the report. Returns what to print and the exit code; the CLI prints.
 */
import type { Style } from '../report/text.js';
import { renderTexts } from '../report/findings.js';
import { renderSarif } from '../report/sarif.js';
import { byFormat, EXIT, PLAIN_STYLES, plural, type CommandResult, type ReportFormat, type Styles } from './result.js';
import type { ServerModel, SourcePosition } from '../pipeline/model.js';
import { sourceLocator } from '../lint/positions.js';
import type { Locator } from '../lint/types.js';
import {
  asFinding as asChangeFinding,
  fails,
  formatDiffGithub,
  formatDiffJson,
  formatDiffText,
  type DiffReport,
  type FailOn,
} from '../diff/report.js';
import type { Change } from '../diff/rules.js';
import { loadOperand, resolveOperands, type LoadedSide, type OperandInput } from '../diff/sides.js';
import { checkVersion } from '../diff/semver.js';
import { diffServers, EMPTY_SUBJECT } from '../diff/tools.js';

/** The options of `toolspec diff` as the command line gives them (src/cli.ts), and its operands. */
export interface DiffCommandInput extends OperandInput {
  format: ReportFormat;
  failOn: FailOn;
  /** Fail (exit 1) when the new server.version did not move as far as the changes need (src/diff/semver.ts). */
  checkVersion?: boolean;
  style?: Styles;
}

export function diffCommand(input: DiffCommandInput): CommandResult {
  const style = input.style ?? PLAIN_STYLES;
  const operands = resolveOperands(input);
  const before = loadOperand(operands.old, input.cwd);
  const after = loadOperand(operands.new, input.cwd);
  let stderr = '';
  for (const side of [before, after]) {
    if (side.missing) stderr += `note: ${side.label} does not exist; it counts as a spec without tools\n`;
  }
  const invalid = [before, after].filter((s) => !s.missing && !s.result.model);
  if (invalid.length) {
    for (const side of invalid) stderr += notValid(side, style.err, 'fix it, or compare other versions');
    const stdout =
      input.format === 'json'
        ? `${JSON.stringify({ ok: false, old: before.label, new: after.label, diagnostics: invalid.flatMap((s) => s.result.diagnostics) }, null, 2)}\n`
        : '';
    return { code: EXIT.invalid, stdout, stderr };
  }
  const found = diffServers(before.result.model ?? EMPTY_SUBJECT, after.result.model ?? EMPTY_SUBJECT);
  const newModel = after.result.model;
  const at = newModel && sourceLocator(newModel, after.result.sources, after.result.parsed);
  const changes = newModel && at ? locate(found, newModel, at) : found;
  // A message about the new side names a revision's file as its diagnostics do (sides.ts).
  const gitPrefix = operands.new.kind === 'git' ? `${operands.new.rev}:` : '';
  const report: DiffReport = { old: before.label, new: after.label, changes, failed: fails(changes, input.failOn) };
  const oldModel = before.result.model;
  if (oldModel && newModel && at) {
    const verdict = checkVersion(changes, oldModel.server.version, newModel.server.version);
    const version = at.inSpec(['server', 'version']);
    const place = `${gitPrefix}${version.file}:${version.line}:${version.column}`;
    if (!verdict) {
      if (input.checkVersion)
        return {
          code: EXIT.invalid,
          stdout: '',
          stderr: `${stderr}${place}: server.version must be a semantic version (MAJOR.MINOR.PATCH) on both sides for --check-version: ${oldModel.server.version} → ${newModel.server.version}\n`,
        };
    } else {
      report.version = verdict;
      if (input.checkVersion && !verdict.ok) {
        report.failed = true;
        stderr += `${place}: error ${verdict.reason}\n`;
      }
    }
  }
  const stdout = byFormat(input.format, {
    json: () => formatDiffJson(report),
    github: () => formatDiffGithub(report),
    sarif: () => renderSarif(report.changes.map(asChangeFinding), 'toolspec diff'),
    text: () => formatDiffText(report, style.out),
  });
  return { code: report.failed ? 1 : 0, stdout, stderr };
}

/** Why a side is not a spec to compare: its errors with their code frames, then `then`, what to do. */
export function notValid(side: LoadedSide, style: Style, then: string): string {
  const errors = side.result.diagnostics.filter((d) => d.severity === 'error');
  return `${renderTexts(errors, style, side.result.sources)}\n\ntoolspec: ${side.label} is not a valid spec (${plural(errors.length, 'error')}); ${then}\n`;
}

/**
 * Where each change is in the new spec: the deepest part of its path written in the tool's own file (a path
 * through a shared `$defs` entry stops at the `$ref`), or the main file for a removed tool. A new side read from
 * git is placed at the same path in the working tree (its model keeps the paths in the repository), as GitHub
 * annotations need.
 */
function locate(changes: Change[], model: ServerModel, at: Locator): Change[] {
  return changes.map((c) => {
    const place = placeOf(c, model, at);
    if (!place) return { ...c, file: model.specFile };
    return { ...c, file: place.file, line: place.line, column: place.column };
  });
}

function placeOf(c: Change, model: ServerModel, at: Locator): SourcePosition | undefined {
  if (c.tool === null && (c.segments[0] === 'prompts' || c.segments[0] === 'resources')) {
    // A prompt's or resource's change: at the item on the new side (a removed one has no place there).
    const items = c.segments[0] === 'prompts' ? model.prompts : model.resources;
    return items.find((i) => i.name === c.segments[1])?.source;
  }
  if (c.tool === null) return at.inSpec(c.segments);
  const tool = model.tools.find((t) => t.name === c.tool);
  return tool && at.inTool(tool, c.segments);
}
