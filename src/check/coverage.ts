/**
 * Coverage: every tool, prompt and resource has a handler module, and every handler module belongs to one (the
 * prompts' and resources' in src/handlers/prompts/ and resources/). Text only: no type checker.
 * Renames (src/write/renames.ts) are read the way generate reads them, so check says what generate will do: move a
 * renamed tool's module, or ask whether a new tool is a vanished one renamed. No advice here ends with a user's
 * code deleted: a file is only ever "yours to remove" once its code is elsewhere or its tool is gone for good.
 */
import fs from 'node:fs';
import path from 'node:path';
import { displayPath } from '../core/paths.js';
import { namesIn } from '../write/write.js';
import {
  askableOrphans,
  likelyName,
  likelyRenames,
  planHandlers,
  renamedFromLine,
  renameQuestions,
} from '../write/renames.js';
import type { CheckSubject } from './subject.js';
import { fileFinding, type Finding } from './findings.js';

const FOLDERS = { prompt: 'prompts', resource: 'resources' } as const;

/** The findings, and the modules there are to read against their contracts: tools' handlers, prompts' and resources'. */
export function checkCoverage(subject: CheckSubject, cwd: string) {
  const plan = planHandlers(subject.handlersDir, subject.tools);
  const findings: Finding[] = [];
  const add = (...f: Parameters<typeof fileFinding>) => findings.push(fileFinding(...f));
  const moving = new Set(plan.moves.map((m) => m.tool));
  const missing = new Set(plan.missing.map((t) => t.name));
  const handlers = subject.tools.filter((t) => !moving.has(t.name) && !missing.has(t.name));
  const base = (abs: string) => path.basename(abs);

  for (const m of plan.moves) {
    const message = `handler ${base(m.source)} will be moved to ${base(m.target)} by toolspec generate ("${m.from}" was renamed to "${m.tool}"); its code is kept`;
    add('renamed-handler', 'generate', displayPath(m.source, cwd), message, m.tool);
  }
  for (const m of plan.blocked) {
    const message =
      `handler of "${m.from}", which the spec renamed to "${m.tool}", but ${base(m.target)} exists too, so generate kept both: ` +
      `move the code you want from ${base(m.source)} into ${base(m.target)}, then remove ${base(m.source)}`;
    add('orphan-handler', 'handler', displayPath(m.source, cwd), message, m.tool);
  }

  // A vanished tool's handler beside a new tool without one: a question for the spec, as generate asks it.
  const paired = new Set<string>();
  const askable = plan.missing.length ? askableOrphans(plan, subject.generatedDir) : [];
  if (askable.length) {
    const asked = { ...plan, orphans: askable };
    for (const o of likelyRenames(asked).values()) if (o) paired.add(o.abs);
    for (const { tool, diagnostic: q } of renameQuestions(asked, cwd)) {
      findings.push({
        kind: 'unconfirmed-rename',
        tool,
        file: q.file,
        line: q.line,
        column: q.column,
        message: q.hint ? `${q.message} ${q.hint.charAt(0).toUpperCase()}${q.hint.slice(1)}` : q.message,
        fix: 'spec',
      });
    }
  } else {
    for (const tool of plan.missing) {
      const message = `tool "${tool.name}" has no handler module; generate creates a stub`;
      add('missing-handler', 'generate', displayPath(tool.handler, cwd), message, tool.name);
    }
  }

  const toolNames = subject.tools.map((t) => t.name);
  for (const o of plan.orphans) {
    if (paired.has(o.abs)) continue;
    const guess = likelyName(o.tool, toolNames);
    const target = guess && subject.tools.find((t) => t.name === guess);
    const message =
      `handler of "${o.tool}", a tool the spec does not have` +
      (target
        ? `; if "${guess}" is that tool renamed, its handler ${base(target.handler)} exists already: move the code you want from ${base(o.abs)} into it, then remove ${base(o.abs)}`
        : `; if the tool was renamed, add "${renamedFromLine(o.tool)}" to it in the spec: toolspec generate then moves this file, code and all (or keeps both for you to merge, when the new name has a handler already); ` +
          `if the tool is gone for good, the file is yours to remove (toolspec never deletes a handler)`);
    add('orphan-handler', 'handler', displayPath(o.abs, cwd), message);
  }

  const modules = subject.primitives.filter((item) => fs.existsSync(item.handler));
  for (const item of subject.primitives.filter((i) => !modules.includes(i))) {
    const message = `${item.kind} "${item.name}" has no handler module; generate creates a stub`;
    add('missing-handler', 'generate', displayPath(item.handler, cwd), message);
  }
  for (const kind of ['prompt', 'resource'] as const) {
    const dir = path.join(subject.handlersDir, FOLDERS[kind]);
    const names = namesIn(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
    const owned = new Set(subject.primitives.filter((i) => i.kind === kind).map((i) => path.basename(i.handler)));
    for (const n of names.sort()) {
      if (owned.has(n)) continue;
      const message = `handler of "${n.replace(/\.ts$/, '')}", a ${kind} the spec does not have; if it was renamed, move its code to the new name's module; if it is gone for good, the file is yours to remove (toolspec never deletes a handler)`;
      add('orphan-handler', 'handler', displayPath(path.join(dir, n), cwd), message);
    }
  }
  return { findings, handlers, modules };
}
