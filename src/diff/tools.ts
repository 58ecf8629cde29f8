/**
 * The diff of two servers: tools matched by name, then by the new side's `renamedFrom` (a declared rename), then by
 * their schemas (a removed and an added tool with the same schemas is a likely rename); then each matched pair's
 * text, annotations, execution, metadata and schemas. Pure: models in, changes out.
 */
import type { SchemaModel, ToolAnnotations, ToolModel } from '../pipeline/model.js';
import { closest } from '../core/suggest.js';
import { diffAccess } from './access.js';
import { diffPrimitives } from './primitives.js';
import { changeOf, type Change, type DiffSubject, type RuleId, type Segments, type Side } from './rules.js';
import { SchemaView, sameData } from './schema-node.js';
import { show } from './schema-common.js';
import { compareSchemas, equivalentSchemas } from './schema.js';

export const EMPTY_SUBJECT: DiffSubject = { server: {}, tools: [] };

export function diffServers(before: DiffSubject, after: DiffSubject): Change[] {
  const out: Change[] = [];
  const add = (...args: Parameters<typeof changeOf>) => out.push(changeOf(...args));

  const oi = before.server.instructions;
  const ni = after.server.instructions;
  if (oi !== ni) add('INSTRUCTIONS_CHANGED', 'tool', null, ['server', 'instructions'], presence(oi, ni), oi, ni);

  const oldByName = new Map(before.tools.map((t) => [t.name, t]));
  const newNames = new Set(after.tools.map((t) => t.name));
  const removed = before.tools.filter((t) => !newNames.has(t.name));
  const added = after.tools.filter((t) => !oldByName.has(t.name));
  const renamedFrom = new Map<string, ToolModel>();
  const taken = () => [...renamedFrom.values()];
  for (const t of added) {
    // The first former name that the old side has: the spec's renamedFrom lists the tool's past names.
    const r = removed.find((o) => t.renamedFrom?.includes(o.name) && !taken().includes(o));
    if (r) renamedFrom.set(t.name, r);
  }
  for (const r of removed) {
    const match = !taken().includes(r) && added.find((t) => !renamedFrom.has(t.name) && sameSchemas(r, t));
    if (match) renamedFrom.set(match.name, r);
  }

  for (const t of after.tools) {
    const old = oldByName.get(t.name) ?? renamedFrom.get(t.name);
    if (!old) {
      add('TOOL_ADDED', 'tool', t.name, [], 'added');
      continue;
    }
    if (old.name !== t.name) {
      // A tool matched by the schemas has no renamedFrom that the old side has (it would have matched by that).
      const declared = t.renamedFrom?.includes(old.name);
      const detail = `${q(old.name)} → ${q(t.name)} (${declared ? 'renamedFrom' : 'removed, and added with the same schemas'})`;
      // A rename the spec declares needs no guessing; its consequence for clients is the same.
      const message = declared
        ? `clients that call ${q(old.name)} get an unknown-tool error; keep ${q(old.name)} as a tool of its own that calls the same code (say in its description that it is deprecated for ${q(t.name)}) until clients have moved, or release a new major version`
        : `did you mean to rename ${q(old.name)} to ${q(t.name)}? Both have the same schemas. Clients that call ${q(old.name)} get an unknown-tool error; keep the old name too, or release a new major version`;
      add('TOOL_RENAMED', 'tool', t.name, ['name'], detail, old.name, t.name, message);
    }
    diffTool(old, t, (rule, side, at, detail, b, a) => add(rule, side, t.name, at, detail, b, a));
  }
  const addedNames = added.map((t) => t.name);
  for (const r of removed) {
    if (taken().includes(r)) continue;
    const near = closest(r.name, addedNames);
    const detail = near
      ? `removed (did you mean ${q(near)}? It was added, with different schemas)`
      : r.deprecated === undefined
        ? 'removed'
        : `removed (it was deprecated: ${r.deprecated})`;
    const message =
      r.deprecated === undefined
        ? undefined
        : `clients that still call the deprecated ${q(r.name)} get an unknown-tool error: its removal is a breaking change, for a new major version`;
    add('TOOL_REMOVED', 'tool', r.name, [], detail, undefined, undefined, message);
  }
  return [...out, ...diffPrimitives(before, after), ...diffAccess(before, after)];
}

const q = JSON.stringify;

type AddChange = (rule: RuleId, side: Side, at: Segments, detail: string, before?: unknown, after?: unknown) => void;
type AddToolChange = (rule: RuleId, at: Segments, detail: string, before?: unknown, after?: unknown) => void;

/** One matched pair: text, hints, execution and metadata, then the schemas. */
function diffTool(o: ToolModel, n: ToolModel, add: AddChange): void {
  const od = o.definition;
  const nd = n.definition;
  const tool: AddToolChange = (rule, at, detail, b, a) => add(rule, 'tool', at, detail, b, a);
  const field = (rule: RuleId, at: Segments, b: unknown, a: unknown) => {
    if (!sameData(b, a)) tool(rule, at, presence(b, a), b, a);
  };
  field('TITLE_CHANGED', ['title'], od.title, nd.title);
  field('TITLE_CHANGED', ['annotations', 'title'], od.annotations?.title, nd.annotations?.title);
  field('DESCRIPTION_CHANGED', ['description'], od.description, nd.description);
  hints(od.annotations, nd.annotations, tool);
  const modes = (t: string | undefined) =>
    new Set(t === 'required' ? ['task'] : t === 'optional' ? ['plain', 'task'] : ['plain']);
  const ot = od.execution?.taskSupport;
  const nt = nd.execution?.taskSupport;
  if ((ot ?? 'forbidden') !== (nt ?? 'forbidden')) {
    const lost = [...modes(ot)].some((m) => !modes(nt).has(m));
    const detail = `${ot ?? 'forbidden (default)'} → ${nt ?? 'forbidden (default)'}`;
    tool(lost ? 'TASK_SUPPORT_NARROWED' : 'TASK_SUPPORT_WIDENED', ['execution', 'taskSupport'], detail, ot, nt);
  }
  if (o.task !== n.task) {
    const detail = `${o.task ?? 'none'} → ${n.task ?? 'none'}`;
    tool(n.task === 'required' ? 'TASK_REQUIRED' : 'TASK_MODE_CHANGED', ['task'], detail, o.task, n.task);
  }
  field('ICONS_CHANGED', ['icons'], od.icons, nd.icons);
  field('META_CHANGED', ['_meta'], od._meta, nd._meta);

  const schemas = (side: 'input' | 'output', a: SchemaModel, b: SchemaModel) => {
    const key = side === 'input' ? 'inputSchema' : 'outputSchema';
    for (const c of compareSchemas(view(a), view(b), side))
      add(c.rule, side, [key, ...c.segments], c.detail, c.before, c.after);
  };
  schemas('input', o.input, n.input);
  if (o.output && n.output) schemas('output', o.output, n.output);
  else if (o.output) tool('OUTPUT_SCHEMA_REMOVED', ['outputSchema'], 'removed', o.output.schema);
  else if (n.output) tool('OUTPUT_SCHEMA_ADDED', ['outputSchema'], 'added', undefined, n.output.schema);
}

/** The four hints by their effective values (MCP's defaults when absent; a read-only tool destroys nothing and is idempotent). */
function hints(o: ToolAnnotations | undefined, n: ToolAnnotations | undefined, add: AddToolChange): void {
  const eff = (a: ToolAnnotations | undefined) => {
    const readOnly = a?.readOnlyHint ?? false;
    return {
      readOnly,
      destructive: readOnly ? false : (a?.destructiveHint ?? true),
      idempotent: readOnly ? true : (a?.idempotentHint ?? false),
      openWorld: a?.openWorldHint ?? true,
    };
  };
  const e0 = eff(o);
  const e1 = eff(n);
  const shown = (raw: boolean | undefined, value: boolean) => (raw === undefined ? `${value} (default)` : String(raw));
  const flip = (key: 'readOnly' | 'destructive' | 'idempotent' | 'openWorld', on: RuleId, off: RuleId, extra = '') => {
    const hint = `${key}Hint` as const;
    if (e0[key] === e1[key]) return;
    add(
      e1[key] ? on : off,
      ['annotations', hint],
      `${shown(o?.[hint], e0[key])} → ${shown(n?.[hint], e1[key])}${extra}`,
      o?.[hint],
      n?.[hint],
    );
  };
  const implied =
    !e1.readOnly && e0.readOnly
      ? `; now destructiveHint ${shown(n?.destructiveHint, e1.destructive)}, idempotentHint ${shown(n?.idempotentHint, e1.idempotent)}`
      : '';
  flip('readOnly', 'READ_ONLY_HINT_ON', 'READ_ONLY_HINT_OFF', implied);
  // destructiveHint and idempotentHint mean something only for a tool that is not read-only, on both sides.
  if (!e0.readOnly && !e1.readOnly) {
    flip('destructive', 'DESTRUCTIVE_HINT_ON', 'DESTRUCTIVE_HINT_OFF');
    flip('idempotent', 'IDEMPOTENT_HINT_ON', 'IDEMPOTENT_HINT_OFF');
  }
  flip('openWorld', 'OPEN_WORLD_HINT_ON', 'OPEN_WORLD_HINT_OFF');
}

function sameSchemas(a: ToolModel, b: ToolModel): boolean {
  if (!equivalentSchemas(view(a.input), view(b.input), 'input')) return false;
  if (!a.output || !b.output) return !a.output && !b.output;
  return equivalentSchemas(view(a.output), view(b.output), 'output');
}

const view = (s: SchemaModel) => new SchemaView(s.schema, s.dialect);

function presence(o: unknown, n: unknown): string {
  if (o === undefined) return `added: ${show(n)}`;
  if (n === undefined) return 'removed';
  return 'changed';
}
