/**
 * Output options: their one home is the spec's `options` mapping, so a person and CI run the same command with
 * no flags. Defaults are set here and nowhere else.
 */

export interface Options {
  /** Folder of generated files, relative to the spec's folder, with forward slashes. */
  generatedDir: string;
  /** Folder of the user's handler modules, relative to the spec's folder. */
  handlersDir: string;
  /**
   * "inline" (default): refs replaced by their targets, keywords beside a ref merged in, recursive refs kept with
   * their $defs; "bundle": each schema carries the $defs it uses. docs/spec/options.md: "Which clients read $ref".
   */
  refs: 'bundle' | 'inline';
  /** Tools per tools/list page; 0 sends every tool in one page. */
  pageSize: number;
  /** Time limit of a call for tools without their own `timeout`, in milliseconds (spec: `timeout: 30s`); 0: none. */
  timeoutMs: number;
  /** Whether generate writes examples.test.ts (contract tests from the examples of tools, prompts and resources). */
  contractTests: boolean;
  /** The cache hints of tools/list on protocol 2026-07-28 (spec: `cache: { ttl: 5m, scope: public }`). */
  cache: { ttlMs: number; scope: 'public' | 'private' };
  /** Whether clients may subscribe to resource updates (resources/subscribe on 2025 revisions). */
  subscriptions: boolean;
  /** Markdown files, relative to the spec's folder, whose tool table generate keeps (src/publish/table.ts). */
  toolTables: string[];
  /** The MCP bundle's manifest.json, relative to the spec's folder, whose version and tools generate keeps. */
  bundleManifest?: string;
  /** Lint rules' severities, suppressions and the token budget (see src/lint). */
  lint: LintOptions;
}

export interface LintOptions {
  /** The lowest severity that fails lint, validate, generate and check; "never": findings are only printed. */
  failOn: 'error' | 'warning' | 'never';
  /** Severity per rule id, only for the rules the spec sets; the others keep their default. */
  rules: Record<string, 'off' | 'warning' | 'error'>;
  /** Per-tool suppressions; each should say why. */
  ignore: { rule: string; tools: string[]; reason?: string }[];
  /** Token budget of the tools as a model reads them; 0: none. */
  budget: { total: number; perTool: number };
  /**
   * Where clients' tool search starts deferring tools: past `maxTools` tools, or past `share` percent of a
   * `contextWindow` of tokens (0: not checked).
   */
  toolSearch: { maxTools: number; contextWindow: number; share: number };
  /** The tokenizer's encoding. */
  encoding: 'o200k_base' | 'cl100k_base';
}

export const DEFAULT_LINT_OPTIONS: Readonly<LintOptions> = Object.freeze({
  failOn: 'error',
  rules: Object.freeze({}),
  ignore: Object.freeze([]) as unknown as LintOptions['ignore'],
  budget: Object.freeze({ total: 0, perTool: 0 }),
  toolSearch: Object.freeze({ maxTools: 40, contextWindow: 0, share: 10 }),
  encoding: 'o200k_base',
});

export const DEFAULT_OPTIONS: Readonly<Options> = Object.freeze({
  generatedDir: 'src/generated',
  handlersDir: 'src/handlers',
  refs: 'inline',
  pageSize: 0,
  timeoutMs: 0,
  contractTests: true,
  // The manifest is static: it changes only with a new build, so clients may keep it a while, shared.
  cache: Object.freeze({ ttlMs: 5 * 60_000, scope: 'public' as const }),
  subscriptions: false,
  toolTables: Object.freeze([]) as unknown as string[],
  lint: DEFAULT_LINT_OPTIONS,
});
