/**
 * Rules about descriptions: models choose a tool, and fill in its arguments, by what these say. Clients show the
 * descriptions of prompts, resources and resource templates to the user who picks a prompt or attaches a resource,
 * and models read a resource's description to decide whether to read it.
 */
import type { ToolModel } from '../../pipeline/model.js';
import { isObject, resolvePointer, type SchemaPath } from '../../pipeline/schema/keywords.js';
import type { Found, Rule, RuleContext } from '../types.js';
import {
  contentWords,
  hasVerb,
  jaccard,
  looksEnglish,
  nameWords,
  quoted,
  stem,
  textWords,
  wordCount,
} from '../words.js';

/** Fewer words than this is too short to say what a tool does, what it returns and when to use it. */
export const MIN_DESCRIPTION_WORDS = 5;
/** Two descriptions sharing at least this share of their content words are near-duplicates: 4/5, a fraction. */
const [SHARED, OF] = [4, 5];
export const DUPLICATE_SIMILARITY = SHARED / OF;

/** A description that says something: a string, not only white space. */
const hasText = (d: unknown): d is string => typeof d === 'string' && d.trim() !== '';

const describedTools = (ctx: RuleContext) =>
  ctx.model.tools.flatMap((tool) => {
    const d = tool.definition.description;
    return hasText(d) ? [{ tool, description: d }] : [];
  });

export const missingDescription: Rule = {
  id: 'missing-description',
  severity: 'warning',
  summary: 'a tool without a description',
  check: (ctx) =>
    ctx.model.tools
      .filter((t) => !hasText(t.definition.description))
      .map((tool) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, typeof tool.definition.description === 'string' ? ['description'] : ['name']),
        message: `tool "${tool.name}" has no description`,
        hint: 'models choose tools by their description: say what it does, what it returns and when to use it',
      })),
};

export const vagueDescription: Rule = {
  id: 'vague-description',
  severity: 'warning',
  summary: `a description that only repeats the name, has fewer than ${MIN_DESCRIPTION_WORDS} words, or no verb`,
  check: (ctx) =>
    describedTools(ctx).flatMap(({ tool, description }) => {
      const problem = vagueness(tool, description);
      if (!problem) return [];
      return [
        {
          tools: [tool.name],
          ...ctx.at.inTool(tool, ['description']),
          message: `description of tool "${tool.name}" ${problem}: ${quote(description)}`,
          hint: 'say what the tool does (a verb), what it returns and when to use it rather than another tool',
        },
      ];
    }),
};

/** Why a description is too vague to choose a tool by, or undefined. The first that applies, most specific first. */
function vagueness(tool: ToolModel, description: string): string | undefined {
  const own = new Set([...nameWords(tool.name), ...textWords(tool.definition.title ?? '')].map(stem));
  const content = contentWords(description);
  if (content.length && content.every((w) => own.has(stem(w)))) return 'only repeats its name';
  const words = wordCount(description);
  if (words < MIN_DESCRIPTION_WORDS) return `is too short (${words} word${words === 1 ? '' : 's'})`;
  // The verb list is English: a description in another language is not judged by it.
  if (looksEnglish(description) && !hasVerb(description)) return 'does not say what the tool does (no verb)';
  return undefined;
}

export const missingArgumentDescription: Rule = {
  id: 'missing-argument-description',
  severity: 'warning',
  summary: 'an argument (a property of the input schema, at any depth) without a description',
  check: (ctx) =>
    ctx.model.tools.flatMap((tool) =>
      undescribedArguments(tool.input.schema).map(({ label, path }) => ({
        tools: [tool.name],
        ...ctx.at.inTool(tool, ['inputSchema', ...path], { key: true }),
        message: `argument ${quoted(label)} of tool "${tool.name}" has no description`,
        hint: 'models fill in arguments by their descriptions: say what the value means, its unit or format, and an example',
      })),
    ),
};

/**
 * Properties without a description, below properties and items (not inside $defs: a $ref's target counts), each
 * with its label ("filters.kinds", "items[].id") and its path below the input schema (["properties", "filters", …]).
 */
function undescribedArguments(root: Record<string, unknown>): { label: string; path: SchemaPath }[] {
  const out: { label: string; path: SchemaPath }[] = [];
  const visit = (node: unknown, label: string, path: SchemaPath, depth: number): void => {
    if (!isObject(node) || depth > 16) return;
    const props = node['properties'];
    if (isObject(props)) {
      for (const [name, prop] of Object.entries(props)) {
        const l = label ? `${label}.${name}` : name;
        const p = [...path, 'properties', name];
        if (!described(prop, root)) out.push({ label: l, path: p });
        visit(prop, l, p, depth + 1);
      }
    }
    const items = node['items'];
    if (isObject(items)) visit(items, `${label}[]`, [...path, 'items'], depth + 1);
  };
  visit(root, '', [], 0);
  return out;
}

/** A description of its own, or a $ref to a schema that has one. */
function described(prop: unknown, root: Record<string, unknown>, hops = 0): boolean {
  if (!isObject(prop)) return true; // a boolean schema has nothing to say
  if (hasText(prop['description'])) return true;
  const ref = prop['$ref'];
  if (typeof ref !== 'string' || hops > 8) return false;
  const target = resolvePointer(root, ref);
  return target !== undefined && described(target, root, hops + 1);
}

export const duplicateDescription: Rule = {
  id: 'duplicate-description',
  severity: 'warning',
  summary: `two tools whose descriptions share ${DUPLICATE_SIMILARITY * 100}% or more of their words`,
  check: (ctx) => {
    const list = describedTools(ctx).map((d) => ({
      ...d,
      words: new Set(contentWords(d.description).map(stem)),
      norm: normal(d.description),
    }));
    const out: Found[] = [];
    firstResembling(list).forEach((i, j) => {
      if (i === undefined) return;
      const a = list[i]!;
      const b = list[j]!;
      const same = a.norm === b.norm;
      out.push({
        tools: [b.tool.name, a.tool.name],
        ...ctx.at.inTool(b.tool, ['description']),
        message: same
          ? `tool "${b.tool.name}" has the same description as "${a.tool.name}"`
          : `description of tool "${b.tool.name}" is nearly the same as that of "${a.tool.name}" (${Math.round(similarity(a, b) * 100)}% of the words shared)`,
        hint: `a model cannot tell the two apart: say what each one does differently and when to pick it over the other`,
      });
    });
    return out;
  },
};

interface Described {
  words: ReadonlySet<string>;
  norm: string;
}

/**
 * How alike two descriptions are: 1 when the same text, else the Jaccard similarity of their content words, 0 when
 * it cannot reach the threshold (the smaller set under DUPLICATE_SIMILARITY of the larger) or a set has fewer than
 * three words (a few shared words say little).
 */
export function similarity(a: Described, b: Described): number {
  if (a.norm === b.norm) return 1;
  const [small, large] = [Math.min(a.words.size, b.words.size), Math.max(a.words.size, b.words.size)];
  return small < DUPLICATE_SIMILARITY * large || small < 3 ? 0 : jaccard(a.words, b.words);
}

/**
 * For each description, the first one before it that it resembles (similarity at least DUPLICATE_SIMILARITY), as
 * the plain loop over every earlier one finds it (test/lint-duplicates.test.ts), without comparing every pair.
 * Two sets with Jaccard ≥ t = SHARED/OF share their first common word (in one order of all words, rarest first) within
 * the first |A| − ⌈t·|A|⌉ + 1 words of each: only the earlier descriptions sharing such a word, and the first with
 * the same text, are compared.
 */
export function firstResembling(list: readonly Described[]): (number | undefined)[] {
  const df = new Map<string, number>();
  for (const d of list) for (const w of d.words) df.set(w, (df.get(w) ?? 0) + 1);
  const order = (x: string, y: string) => df.get(x)! - df.get(y)! || (x < y ? -1 : x > y ? 1 : 0);
  const byPrefix = new Map<string, number[]>();
  const sameText = new Map<string, number>();
  return list.map((b, j) => {
    const prefix = [...b.words].sort(order).slice(0, b.words.size - Math.ceil((SHARED * b.words.size) / OF) + 1);
    // The candidates in ascending order (each list is), merged, until one resembles: the first is often the one.
    const same = sameText.get(b.norm);
    const lists = [...(same === undefined ? [] : [[same]]), ...prefix.map((w) => byPrefix.get(w) ?? [])];
    const at = lists.map(() => 0);
    let found: number | undefined;
    for (;;) {
      let next = Infinity;
      lists.forEach((l, k) => (next = Math.min(next, l[at[k]!] ?? Infinity)));
      if (next === Infinity) break;
      lists.forEach((l, k) => l[at[k]!] === next && at[k]!++);
      if (similarity(list[next]!, b) >= DUPLICATE_SIMILARITY) {
        found = next;
        break;
      }
    }
    if (!sameText.has(b.norm)) sameText.set(b.norm, j);
    for (const w of prefix) {
      const posting = byPrefix.get(w);
      if (posting) posting.push(j);
      else byPrefix.set(w, [j]);
    }
    return found;
  });
}

const normal = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

function quote(s: string): string {
  const one = s.trim().replace(/\s+/g, ' ');
  return quoted(one.length > 60 ? `${one.slice(0, 57)}…` : one);
}

export const missingPrimitiveDescription: Rule = {
  id: 'missing-primitive-description',
  severity: 'warning',
  summary: 'a prompt, a prompt argument, a resource or a resource template without a description',
  check: (ctx) => {
    const out: Found[] = [];
    for (const prompt of ctx.model.prompts) {
      if (!hasText(prompt.definition.description)) {
        out.push({
          tools: [prompt.name],
          ...ctx.at.inItem(prompt, 'prompts', ['name']),
          message: `prompt "${prompt.name}" has no description`,
          hint: 'clients list prompts with their description when the user picks one: say what it is for',
        });
      }
      prompt.arguments.forEach((arg, i) => {
        if (hasText(arg.description)) return;
        out.push({
          tools: [prompt.name],
          ...ctx.at.inItem(prompt, 'prompts', ['arguments', i, 'name']),
          message: `argument "${arg.name}" of prompt "${prompt.name}" has no description`,
          hint: 'clients show it where the user fills the argument in: say what to give, with an example',
        });
      });
    }
    for (const resource of ctx.model.resources) {
      if (hasText(resource.definition.description)) continue;
      const what = resource.kind === 'resource' ? 'resource' : 'resource template';
      out.push({
        tools: [resource.name],
        ...ctx.at.inItem(resource, resource.kind === 'resource' ? 'resources' : 'resourceTemplates', ['name']),
        message: `${what} "${resource.name}" has no description`,
        hint: 'models and users decide whether to read a resource by its description: say what it holds',
      });
    }
    return out;
  },
};

export const undescribedTemplateVariable: Rule = {
  id: 'undescribed-template-variable',
  severity: 'warning',
  summary: 'a variable of a resource template that its `variables` do not describe',
  check: (ctx) =>
    ctx.model.resources.flatMap((r) =>
      r.variables
        .filter((v) => !hasText(v.description))
        .map((v): Found => ({
          tools: [r.name],
          ...ctx.at.inItem(r, 'resourceTemplates', ['uriTemplate']),
          message: `variable "${v.name}" of resource template "${r.name}" is not described`,
          hint: `add variables: { ${v.name}: { description: … } } to say what it holds (clients show it when the user fills the template in)`,
        })),
    ),
};
