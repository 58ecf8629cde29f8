/**
 * Rules about the behaviour hints: clients decide by them whether to ask the user before a call, so a tool that
 * destroys data must say so, and the hints must not contradict each other.
 */
import type { ToolModel } from '../../pipeline/model.js';
import type { Rule } from '../types.js';
import { nameWords } from '../words.js';

/**
 * Words in a tool name that say it destroys or replaces data ("delete_note", "dropTable", "files.removes"). Only the
 * verb itself counts: "list_deleted_items" lists, it does not delete.
 */
const DESTRUCTIVE_WORDS = 'delete remove drop overwrite destroy purge erase wipe truncate'.split(' ');
const DESTRUCTIVE: ReadonlySet<string> = new Set(DESTRUCTIVE_WORDS.flatMap((w) => [w, `${w}s`]));

const hints = (tool: ToolModel) => tool.definition.annotations ?? {};

export const destructiveNotMarked: Rule = {
  id: 'destructive-not-marked',
  severity: 'warning',
  summary: `a tool whose name says it destroys data (${DESTRUCTIVE_WORDS.join(', ')}) but is read-only or not marked destructiveHint: true`,
  check: (ctx) =>
    ctx.model.tools.flatMap((tool) => {
      const word = nameWords(tool.name).find((w) => DESTRUCTIVE.has(w));
      const h = hints(tool);
      if (word === undefined || (h.destructiveHint === true && h.readOnlyHint !== true)) return [];
      const [what, where]: [string, string[]] =
        h.readOnlyHint === true
          ? ['is marked readOnlyHint: true', ['annotations', 'readOnlyHint']]
          : h.destructiveHint === false
            ? ['is marked destructiveHint: false', ['annotations', 'destructiveHint']]
            : ['does not say destructiveHint: true', tool.definition.annotations ? ['annotations'] : ['name']];
      return [
        {
          tools: [tool.name],
          ...ctx.at.inTool(tool, where, { key: where.length > 1 }),
          message: `tool "${tool.name}" says "${word}" in its name but ${what}`,
          hint:
            'clients ask the user before a destructive call: set annotations: { readOnlyHint: false, destructiveHint: true } ' +
            "(MCP's default when left out, but clients differ); if it loses nothing, rename it or ignore this rule for it with a reason",
        },
      ];
    }),
};

export const conflictingHints: Rule = {
  id: 'conflicting-hints',
  severity: 'error',
  summary: 'readOnlyHint: true together with destructiveHint: true',
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => hints(t).readOnlyHint === true && hints(t).destructiveHint === true)
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['annotations', 'destructiveHint'], { key: true }),
        message: `tool "${tool.name}" is marked both readOnlyHint: true and destructiveHint: true`,
        hint: 'a read-only tool destroys nothing, and clients ignore destructiveHint when readOnlyHint is true: remove destructiveHint, or set readOnlyHint: false if the tool changes data',
      })),
};

export const legacyExecution: Rule = {
  id: 'legacy-execution',
  severity: 'warning',
  summary: '`execution` (task support), which only 2025 clients see: protocol 2026-07-28 removed it',
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => t.definition.execution !== undefined)
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['execution'], { key: true }),
        message: `tool "${tool.name}" sets execution, which only 2025 clients receive`,
        hint: 'protocol 2026-07-28 moved tasks to the io.modelcontextprotocol/tasks extension and its clients never see execution; keep it for 2025 clients, or remove it',
      })),
};
