/**
 * Renamed tools and their handler modules. A handler module is the user's code: when a tool is renamed, its module
 * must follow the tool, never be stubbed over or deleted. This module reads the handlers folder and says what a
 * generate would do with it (move a former name's module, or stop and ask), and rewrites a moved module's reference
 * to its tool in memory (ts-morph); src/write/write.ts does the move itself. Shared by generate and check.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Node } from 'ts-morph';
import { diagnostic, type Diagnostic } from '../core/diagnostics.js';
import { handlerFileName, pascalCase } from '../core/names.js';
import { displayPath } from '../core/paths.js';
import { closest } from '../core/suggest.js';
import { readText } from '../cache/store.js';
import { namesIn } from './write.js';

/** A module that exports `handler` is a handler module; other modules in the folder are shared code. */
export const EXPORTS_HANDLER =
  /\bexport\s+(?:declare\s+)?(?:const|let|var|(?:async\s+)?function\*?)\s+handler\b|\bexport\s*\{[^}]*\bhandler\b[^}]*\}/;

/** What the plan reads of a tool. */
export interface RenameTool {
  name: string;
  /** Absolute path of its handler module. */
  handler: string;
  renamedFrom?: string[];
  source: { file: string; line: number; column: number };
}

/** A former name's handler module and the module it becomes. */
export interface HandlerMove {
  /** The tool as it is named now, and the former name whose module moves. */
  tool: string;
  from: string;
  /** Absolute paths. */
  source: string;
  target: string;
}

/** A handler module whose tool the spec no longer has, and which no tool's `renamedFrom` claims. */
export interface OrphanHandler {
  /** The tool it was written for: its `Handler<'…'>`, else its file name. */
  tool: string;
  abs: string;
}

export interface HandlerPlan {
  /** Former names' modules to move: the tool has no module yet. */
  moves: HandlerMove[];
  /** Former names' modules left where they are: the tool has a module already (both are kept). */
  blocked: HandlerMove[];
  orphans: OrphanHandler[];
  /** Tools with no module and none to move: generate would create a stub for each. */
  missing: RenameTool[];
}

/**
 * What the handlers folder holds against the spec's tools. A tool with no module takes the module of the first of
 * its former names that has one; the modules of its other former names stay, as blocked moves (one module per tool).
 */
export function planHandlers(handlersDir: string, tools: readonly RenameTool[]): HandlerPlan {
  // The handler modules: `.ts` files, no declarations or tests, that export `handler` (a folder named x.ts, or a file
  // gone meanwhile, is none).
  const modules = namesIn(handlersDir)
    .filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts') && !/\.(test|spec)\.ts$/.test(n))
    .sort()
    .filter((n) => EXPORTS_HANDLER.test(readText(path.join(handlersDir, n)) ?? ''));
  const present = new Set(modules);
  const owned = new Set(tools.map((t) => path.basename(t.handler)));
  const plan: HandlerPlan = { moves: [], blocked: [], orphans: [], missing: [] };
  const claimed = new Set<string>();
  for (const tool of tools) {
    let has = present.has(path.basename(tool.handler));
    for (const from of tool.renamedFrom ?? []) {
      const file = handlerFileName({ name: from });
      if (!present.has(file) || owned.has(file)) continue;
      claimed.add(file);
      const move = { tool: tool.name, from, source: path.join(handlersDir, file), target: tool.handler };
      if (has) plan.blocked.push(move);
      else plan.moves.push(move);
      has = true;
    }
    if (!has) plan.missing.push(tool);
  }
  const names = new Set(tools.map((t) => t.name));
  for (const n of modules) {
    if (owned.has(n) || claimed.has(n)) continue;
    const abs = path.join(handlersDir, n);
    // A module whose Handler<'…'> names a tool the spec has is a copy of that tool's handler, not its former self.
    const named = toolOfModule(abs);
    plan.orphans.push({ tool: named !== undefined && !names.has(named) ? named : n.replace(/\.ts$/, ''), abs });
  }
  return plan;
}

/** A manifest larger than this is not one toolspec wrote (2,000 tools of the largest schemas stay far below). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/**
 * The orphans a rename question may be about: the handlers of tools the last generate still had (its
 * manifest.json in the generated folder), so that a tool that vanished in this edit is asked about, and one that
 * vanished long ago (its handler left on purpose) is not. All of them when the manifest cannot be read as one: the
 * question is then asked, never skipped. Only the question depends on it: what is written does not.
 */
export function askableOrphans(plan: HandlerPlan, generatedDir: string): OrphanHandler[] {
  const file = path.join(generatedDir, 'manifest.json');
  try {
    if (fs.statSync(file).size > MAX_MANIFEST_BYTES) return plan.orphans;
    const tools = (JSON.parse(fs.readFileSync(file, 'utf8')) as { tools?: unknown }).tools;
    if (!Array.isArray(tools)) return plan.orphans;
    const names = new Set(tools.map((t) => (t as { name?: unknown } | null)?.name));
    return plan.orphans.filter((o) => names.has(o.tool));
  } catch {
    return plan.orphans;
  }
}

/** The tool a handler module says it handles: the name in its `Handler<'…'>`. */
function toolOfModule(abs: string): string | undefined {
  return /\bHandler<\s*(['"])([A-Za-z0-9._-]{1,128})\1\s*>/.exec(readText(abs) ?? '')?.[2];
}

/**
 * For each tool without a handler, the orphan that is most likely its former self: the only one when there is one
 * of each, else the closest name (or none).
 */
export function likelyRenames(plan: HandlerPlan): Map<RenameTool, OrphanHandler | undefined> {
  const only = plan.orphans.length === 1 && plan.missing.length === 1;
  const orphanNames = plan.orphans.map((o) => o.tool);
  return new Map(
    plan.missing.map((tool) => {
      const name = only ? orphanNames[0] : likelyName(tool.name, orphanNames);
      return [tool, plan.orphans.find((o) => o.tool === name)];
    }),
  );
}

/**
 * The name among `names` most likely to be `name` before or after a rename: the closest spelling, else the only one
 * that contains it or that it contains (`search` and `search_all`).
 */
export function likelyName(name: string, names: readonly string[]): string | undefined {
  const near = closest(name, names);
  if (near) return near;
  const lower = name.toLowerCase();
  const related = names.filter((n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase()));
  return related.length === 1 ? related[0] : undefined;
}

/** The YAML line that declares a rename. */
export const renamedFromLine = (former: string) => `renamedFrom: ${former}`;

/** The flag that tells generate to stub new tools beside vanished tools' handlers. */
export const NEW_STUBS_FLAG = '--new-stubs';

/**
 * What generate asks when handler modules of vanished tools are there beside tools without one: for a tool whose
 * name is close to a vanished one's, was it renamed (at the tool, with the line to add); for the others, one
 * question for all of them (at the first), since a new tool and a rename look the same until the user says.
 */
export function renameQuestions(plan: HandlerPlan, cwd: string): { tool: string; diagnostic: Diagnostic }[] {
  const likely = likelyRenames(plan);
  const spanAt = ({ source: s }: RenameTool) => ({ ...s, endLine: s.line, endColumn: s.column });
  const where = ({ source: s }: RenameTool) => `${s.file}:${s.line}:${s.column}`;
  const paired = plan.missing.flatMap((tool) => {
    const orphan = likely.get(tool);
    if (!orphan) return [];
    const message = `tool "${tool.name}" has no handler, and ${displayPath(orphan.abs, cwd)} is the handler of "${orphan.tool}", which the spec no longer has: was "${orphan.tool}" renamed to "${tool.name}"?`;
    const hint =
      `if it is, add "${renamedFromLine(orphan.tool)}" to tool "${tool.name}" (${where(tool)}), ` +
      `and generate moves the handler with your code to ${displayPath(tool.handler, cwd)}; ` +
      `if "${tool.name}" is a new tool, run toolspec generate ${NEW_STUBS_FLAG} to create its stub (nothing else is touched)`;
    return [{ tool: tool.name, diagnostic: diagnostic('TS044', spanAt(tool), message, hint) }];
  });
  const rest = plan.missing.filter((tool) => !likely.get(tool));
  if (!rest.length) return paired;
  const orphans = plan.orphans.map((o) => `${displayPath(o.abs, cwd)} ("${o.tool}")`).join(', ');
  const first = rest[0]!;
  const former = plan.orphans[0]!.tool;
  const one = rest.length === 1;
  const message = one
    ? `tool "${first.name}" has no handler, and the handlers of tools the spec no longer has are there: ${orphans}; is "${first.name}" one of them renamed?`
    : `${rest.length} tools have no handler (${rest.map((t) => `"${t.name}"`).join(', ')}), and the handlers of tools the spec no longer has are there: ${orphans}; was one of those tools renamed to one of these?`;
  const hint = one
    ? `if it is, add "${renamedFromLine(former)}" to tool "${first.name}" (${where(first)}), naming the right one, and generate moves the handler with your code to ${displayPath(first.handler, cwd)}; ` +
      `if "${first.name}" is a new tool, run toolspec generate ${NEW_STUBS_FLAG} to create its stub (nothing else is touched)`
    : `for a rename, add "${renamedFromLine(former)}" (naming the right one) to the tool it became (${rest.map((t) => `"${t.name}" at ${where(t)}`).join(', ')}), and generate moves its handler with your code; ` +
      `if they are all new tools, run toolspec generate ${NEW_STUBS_FLAG} to create their stubs (nothing else is touched)`;
  return [...paired, { tool: first.name, diagnostic: diagnostic('TS044', spanAt(first), message, hint) }];
}

/**
 * A moved handler module's text, its references to its tool renamed: `Handler<'old'>` becomes `Handler<'new'>`,
 * and the old tool's type names imported from the generated folder (`OldInput`, `OldOutput`, `OldArguments`) become
 * the new tool's, where they are used too. The rest of the text is kept byte for byte. `generatedDir` and `target` are
 * absolute: the module's imports are resolved against them.
 */
export async function rewriteHandler(
  text: string,
  move: Pick<HandlerMove, 'from' | 'tool' | 'target'> & { typeName: string; generatedDir: string },
): Promise<string> {
  const { Project, SyntaxKind } = await import('ts-morph');
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: false } });
  const sf = project.createSourceFile('/handler.ts', text);
  // The generated modules this one imports from, and the names it imports from them (as used in the file).
  const generated = sf.getImportDeclarations().filter((decl) => {
    const spec = decl.getModuleSpecifierValue();
    if (!spec.startsWith('.')) return false;
    const rel = path.relative(move.generatedDir, path.resolve(path.dirname(move.target), spec));
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  });
  const fromGenerated = new Set(
    generated.flatMap((d) => d.getNamedImports().map((n) => (n.getAliasNode() ?? n.getNameNode()).getText())),
  );
  const renameLiteral = (node: Node | undefined) => {
    const literal = node?.asKind(SyntaxKind.LiteralType)?.getLiteral().asKind(SyntaxKind.StringLiteral);
    if (literal?.getLiteralValue() !== move.from) return;
    const quote = literal.getText().charAt(0);
    literal.replaceWithText(`${quote}${move.tool}${quote}`);
  };
  // `Handler<'old'>`, and `ToolInputs['old']` and the like from the generated modules.
  for (const ref of sf.getDescendantsOfKind(SyntaxKind.TypeReference)) {
    const name = ref.getTypeName().getText();
    if (name === 'Handler' || fromGenerated.has(name)) renameLiteral(ref.getTypeArguments()[0]);
  }
  for (const access of sf.getDescendantsOfKind(SyntaxKind.IndexedAccessType)) {
    const object = access.getObjectTypeNode().asKind(SyntaxKind.TypeReference);
    if (object && fromGenerated.has(object.getTypeName().getText())) renameLiteral(access.getIndexTypeNode());
  }
  const oldBase = pascalCase(move.from);
  if (oldBase && oldBase !== move.typeName) {
    const renames = new Map(
      ['Input', 'Output', 'Arguments'].map((s) => [`${oldBase}${s}`, `${move.typeName}${s}`] as const),
    );
    for (const decl of generated) {
      for (const named of decl.getNamedImports()) {
        const to = renames.get(named.getName());
        if (!to) continue;
        if (named.getAliasNode()) named.getNameNode().replaceWithText(to);
        else named.getNameNode().asKind(SyntaxKind.Identifier)?.rename(to);
      }
    }
  }
  return sf.getFullText();
}
