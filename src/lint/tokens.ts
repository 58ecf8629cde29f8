/**
 * The token budget: how much of a model's context the tools take. Counted with a real tokenizer (gpt-tokenizer)
 * over what clients pass to a model for each tool: its name, description and inputSchema as compact JSON. Other
 * models tokenize differently and clients wrap tools in their own format, so the figures are an estimate.
 */
import { clientSchema, manifestTools } from '../pipeline/emit/manifest.js';
import type { ServerModel, ToolModel } from '../pipeline/model.js';
import type { Locator, RawFinding, Rule } from './types.js';

/** The encodings toolspec can count with, and the models that use them. */
const ENCODINGS = {
  o200k_base: {
    models: 'GPT-4o, GPT-4.1, GPT-5 and the o-series',
    load: () => import('gpt-tokenizer/encoding/o200k_base'),
  },
  cl100k_base: { models: 'GPT-4 and GPT-3.5', load: () => import('gpt-tokenizer/encoding/cl100k_base') },
};

/** The parts of a tool that clients put in front of a model. */
export const COUNTED_FIELDS = ['name', 'description', 'inputSchema'] as const;

/** What `toolspec lint` counts (and prints as JSON under `tokens`). */
export type TokenReport = Awaited<ReturnType<typeof countTokens>>;

export async function countTokens(model: ServerModel) {
  const { encoding, budget } = model.options.lint;
  const { countTokens: count } = await ENCODINGS[encoding].load();
  const json = (v: unknown) => count(JSON.stringify(v));
  // What a model is shown of one tool (JSON.stringify leaves out a description that is not there).
  const view = (tool: ToolModel, inputSchema: unknown) =>
    json({ name: tool.name, description: tool.definition.description, inputSchema });
  const refs = model.options.refs;
  const alternativeRefs = refs === 'bundle' ? 'inline' : 'bundle';
  const manifest = manifestTools(model);
  let alternativeTotal = 0;
  const tools = model.tools.map((tool, i) => {
    const schema = clientSchema(tool.input, model.options);
    const other = clientSchema(tool.input, { ...model.options, refs: alternativeRefs });
    // Name, description and inputSchema, as one compact JSON object.
    const tokens = view(tool, schema);
    alternativeTotal += view(tool, other);
    return {
      name: tool.name,
      tokens,
      description: count(tool.definition.description ?? ''),
      // As the spec sends it (options.refs), and with the other choice (inlined when the spec bundles, and back).
      inputSchema: json(schema),
      alternative: json(other),
      // The tool's whole tools/list entry (title, outputSchema, annotations, icons, _meta too).
      payload: json(manifest[i]),
      // Tokens over the per-tool budget; 0 when within it or when there is none.
      overBudget: budget.perTool ? Math.max(0, tokens - budget.perTool) : 0,
    };
  });
  // Prompts, and resources with templates, each its list entry as compact JSON, in the spec's order: apart from the
  // tools (a client shows them to the user; a model reads one when it is used). Present when the spec has any.
  const prompts = model.prompts.map((p) => ({ name: p.name, kind: 'prompt' as const, tokens: json(p.definition) }));
  const resources = model.resources.map((r) => ({ name: r.name, kind: r.kind, tokens: json(r.definition) }));
  return {
    encoding,
    // The models that use the encoding; for others the counts are an estimate.
    models: ENCODINGS[encoding].models,
    counted: COUNTED_FIELDS,
    refs,
    alternativeRefs,
    total: tools.reduce((n, t) => n + t.tokens, 0),
    alternativeTotal,
    payload: json({ tools: manifest }),
    // 0: no budget.
    budget: { total: budget.total, perTool: budget.perTool },
    // Largest first; the sort is stable: equal counts keep the spec's order.
    tools: tools.sort((a, b) => b.tokens - a.tokens),
    ...(prompts.length ? { prompts } : {}),
    ...(resources.length ? { resources } : {}),
  };
}

export const tokenBudget: Rule = {
  id: 'token-budget',
  severity: 'error',
  summary: 'the tools take more tokens than options.lint.budget allows (in total, or per tool)',
};

/** Overruns of the spec's budget, as findings. */
export function budgetFindings(report: TokenReport, model: ServerModel, at: Locator): RawFinding[] {
  const out: RawFinding[] = [];
  const { total, perTool } = report.budget;
  const inlineHint = (saved: number) =>
    saved > 0 ? `; with options.refs: ${report.alternativeRefs} it would take ${saved} fewer` : '';
  if (total && report.total > total)
    out.push({
      rule: 'token-budget',
      tools: [],
      ...at.inSpec(['options', 'lint', 'budget', 'total']),
      message: `the tools take ${report.total} tokens (${report.encoding}), over the budget of ${total} by ${report.total - total}`,
      hint: `shorten the largest tools first (see the table of \`toolspec lint\`)${inlineHint(report.total - report.alternativeTotal)}, or split the server`,
    });
  // overBudget is 0 without a per-tool budget.
  for (const t of report.tools.filter((t) => t.overBudget)) {
    const tool = model.tools.find((m) => m.name === t.name)!;
    out.push({
      rule: 'token-budget',
      tools: [t.name],
      ...at.inTool(tool, ['name']),
      message: `tool "${t.name}" takes ${t.tokens} tokens (${report.encoding}), over the per-tool budget of ${perTool} by ${t.overBudget}`,
      hint: `its description takes ${t.description} and its inputSchema ${t.inputSchema}${inlineHint(t.inputSchema - t.alternative)}; shorten what a model does not need`,
    });
  }
  return out;
}

export const toolSearch: Rule = {
  id: 'tool-search',
  severity: 'warning',
  summary:
    'more tools than options.lint.toolSearch.maxTools, or tools taking more of a context window than its share: clients defer them behind a tool search',
  check: (ctx) => {
    const { maxTools } = ctx.model.options.lint.toolSearch;
    const n = ctx.model.tools.length;
    if (!maxTools || n <= maxTools) return [];
    return [
      {
        tools: [],
        ...ctx.at.inSpec(['tools'], { key: true }),
        message: `the server has ${n} tools, past the ${maxTools} beyond which clients defer tools behind a tool search or cut the list`,
        hint: searchHint(ctx.model),
      },
    ];
  },
};

/** A finding when the tools pass their share of options.lint.toolSearch's context window (asked only when set). */
export function searchFindings(report: TokenReport, model: ServerModel, at: Locator): RawFinding[] {
  const { contextWindow, share } = model.options.lint.toolSearch;
  const used = (report.total / contextWindow) * 100;
  if (used <= share) return [];
  return [
    {
      rule: 'tool-search',
      tools: [],
      ...at.inSpec(['options', 'lint', 'toolSearch', 'contextWindow']),
      message: `the tools take ${report.total} tokens (${report.encoding}), ${used.toFixed(1)}% of a ${contextWindow}-token context window, past the ${share}% at which clients defer tools behind a tool search`,
      hint: searchHint(model),
    },
  ];
}

function searchHint(model: ServerModel): string {
  const loaded = model.tools.filter((t) => t.definition._meta?.['anthropic/alwaysLoad'] === true).length;
  const hinted = model.tools.filter((t) => typeof t.definition._meta?.['anthropic/searchHint'] === 'string').length;
  return `a model then sees a tool only once a search finds it: mark the few every conversation needs alwaysLoad: true (${loaded} now), give the others a searchHint (${hinted} of ${model.tools.length} ${hinted === 1 ? 'has' : 'have'} one), or split the server`;
}
