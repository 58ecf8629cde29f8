/**
 * Contracts: each handler module read with the TypeScript type checker (ts-morph), against the contract generated
 * in memory from the spec (not the files on disk, which may be stale). A handler fits when its `handler` export is
 * assignable to `Handler<'tool'>`, its file type-checks, and nothing in its signature is `any`. ts-morph is loaded
 * only when there are handlers to read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Project, ts } from 'ts-morph';
import type { OutputFile } from '../emit/generate.js';
import { displayPath } from '../paths.js';
import type { StateTool } from '../state.js';
import { isObject } from '../validate/keywords.js';
import type { HandlerModule } from './coverage.js';
import { CONTRACT_MODULES } from './cache.js';
import type { CheckSubject } from './subject.js';
import type { Finding } from './findings.js';

const CHECK_FILE = '__toolspec_check__.ts';


export type ContractTool = StateTool;

export interface ContractInput {
  subject: CheckSubject;
  /** The generated files to check against, in memory; without them, the generated folder on disk is used. */
  files?: readonly OutputFile[];
}

export async function checkContracts(input: ContractInput, handlers: readonly HandlerModule[], cwd: string): Promise<Finding[]> {
  if (!handlers.length) return [];
  const { Project, ts } = await import('ts-morph');
  const { subject } = input;
  const tools = new Map(subject.tools.map((t) => [t.name, t]));
  const tsconfig = path.join(subject.rootDir, 'tsconfig.json');
  const hasTsconfig = fs.existsSync(tsconfig);
  const project: Project = new Project({
    ...(hasTsconfig ? { tsConfigFilePath: tsconfig } : {}),
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      ...(hasTsconfig ? {} : { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }),
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      lib: ['lib.es2023.d.ts'],
    },
  });
  // The contract as the spec says it is now (in memory), or as generate wrote it (verified unchanged by the caller).
  // Only the modules a handler's types come from: parsing the validators or the manifest would cost more than all the checking.
  for (const f of input.files ?? []) {
    if (f.kind === 'generated' && CONTRACT_MODULES.includes(path.posix.basename(f.path))) {
      project.createSourceFile(path.resolve(subject.rootDir, f.path), f.contents, { overwrite: true });
    }
  }
  for (const h of handlers) project.addSourceFileAtPath(h.abs);
  // One assignment per handler: `const c3: Handler<'tool'> = handler3;`. Its errors say how a handler misses.
  const lines = handlers.map((h, i) => {
    let spec = path.relative(subject.generatedDir, h.abs).split(path.sep).join('/').replace(/\.ts$/, '.js');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    return `import { handler as handler${i} } from ${JSON.stringify(spec)};\nexport const c${i}: Handler<${JSON.stringify(h.tool)}> = handler${i};`;
  });
  const checkPath = path.join(subject.generatedDir, CHECK_FILE);
  project.createSourceFile(checkPath, `import type { Handler } from './contract.js';\n${lines.join('\n')}\n`, { overwrite: true });

  // From here on the compiler's own objects: ts-morph's wrappers cost more than the checking.
  const program = project.getProgram().compilerObject;
  const checker = program.getTypeChecker();
  const checkSf = program.getSourceFile(checkPath)!;
  const mismatches = new Map<number, ts.Diagnostic[]>();
  for (const d of program.getSemanticDiagnostics(checkSf)) {
    if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined) continue;
    const i = (checkSf.getLineAndCharacterOfPosition(d.start).line - 2) / 2;
    mismatches.set(i, [...(mismatches.get(i) ?? []), d]);
  }
  const flatten = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const text = (t: ts.Type, at: ts.Node) => checker.typeToString(t, at, ts.TypeFormatFlags.NoTruncation).replace(/import\("[^"]*"\)\./g, '');

  const findings: Finding[] = [];
  handlers.forEach((h, i) => {
    const sf = program.getSourceFile(h.abs)!;
    const tool = tools.get(h.tool)!;
    const expected = `(args: ${tool.input}, ctx: ToolContext) => ${tool.output ? `StructuredResult<${tool.output}>` : 'TextResult'} (or a Promise of it)`;
    const file = displayPath(h.abs, cwd);
    const at = (pos: number) => {
      const p = sf.getLineAndCharacterOfPosition(pos);
      return { line: p.line + 1, column: p.character + 1 };
    };
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    let symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((e) => e.name === 'handler');
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = symbol?.declarations?.[0];
    if (!symbol || !decl) {
      findings.push({
        kind: 'handler-export', tool: h.tool, file, line: 1, column: 1, fix: 'handler', expected: `export const handler: Handler<'${h.tool}'> = …`,
        message: 'exports no `handler`; the registry imports { handler } from it',
      });
      return;
    }
    const name = ts.getNameOfDeclaration(decl) ?? decl;
    const where = at(name.getStart(sf));
    // A const's initializer is what must fit (its annotation would hide a mismatch); otherwise the declaration.
    const init = ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
    const actual = init ? checker.getTypeAtLocation(init) : checker.getTypeOfSymbolAtLocation(symbol, decl);
    const declared = checker.getTypeOfSymbolAtLocation(symbol, decl);
    const anyProblem = anyIn(ts, checker, declared, actual, decl);
    if (anyProblem) {
      findings.push({ kind: 'handler-any', tool: h.tool, file, ...where, message: anyProblem, fix: 'handler', expected, actual: text(actual, decl) });
      return;
    }
    for (const d of mismatches.get(i) ?? []) {
      findings.push({ kind: 'handler-contract', tool: h.tool, file, ...where, message: explain(flatten(d), tool), fix: 'handler', expected, actual: text(actual, decl) });
    }
    // The handler's own file: what the contract now gives may not support what its body does.
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      if (d.category !== ts.DiagnosticCategory.Error || d.file !== sf) continue;
      const chain = flatten(d);
      const againstContract = /is not assignable to type 'Handler</.test(chain);
      findings.push({
        kind: 'handler-contract', tool: h.tool, file, ...at(d.start ?? 0), fix: 'handler',
        message: againstContract ? explain(chain, tool) : chain.split('\n')[0]!,
        ...(againstContract ? { expected, actual: text(actual, decl) } : {}),
      });
    }
  });
  return findings;
}

/** `any` makes every assignment pass: the handler, or a parameter or result of it, typed `any` cannot be checked. */
function anyIn(api: typeof ts, checker: ts.TypeChecker, declared: ts.Type, type: ts.Type, decl: ts.Node): string | undefined {
  const isAny = (t: ts.Type) => (t.flags & api.TypeFlags.Any) !== 0;
  if (isAny(declared) || isAny(type)) return 'the handler is typed `any`, so its contract cannot be checked; declare it as Handler<…>';
  for (const sig of checker.getSignaturesOfType(type, api.SignatureKind.Call)) {
    for (const param of sig.getParameters()) {
      if (isAny(checker.getTypeOfSymbolAtLocation(param, decl))) {
        return `parameter \`${param.name}\` is typed \`any\`, so the contract cannot check it; type it from the contract (ToolInputs[…]) or drop the annotation`;
      }
    }
    if (isAny(checker.getReturnTypeOfSignature(sig))) return 'the handler returns `any`, so its result cannot be checked against the contract';
  }
  return undefined;
}

/**
 * TypeScript's elaboration, in a person's words: which parameter or property, what the handler has, what the spec
 * says. Falls back to the compiler's own message.
 */
export function explain(chain: string, tool: ContractTool): string {
  const lines = chain.split('\n').map((l) => l.trim());
  const param = lines.map((l) => /^Types of parameters '(\w+)' and '\w+' are incompatible/.exec(l)?.[1]).find(Boolean);
  const props = lines.map((l) => /^Types of property '([^']+)' are incompatible/.exec(l)?.[1]).filter((p): p is string => Boolean(p));
  const assign = [...lines].reverse().map((l) => /^Type '(.+)' is not assignable to type '(.+)'\.?$/.exec(l)).find(Boolean);
  const missingProp = lines.map((l) => /^Property '([^']+)' is missing in type '(.+)' but required in type '(.+)'/.exec(l)).find(Boolean);
  const returns = lines.some((l) => /return types? .* incompatible|Call signature return types/.test(l));
  if (param) {
    const where = [param, ...props].join('.');
    if (missingProp) {
      return `${[param, ...props, missingProp[1]].join('.')}: the handler requires it, the spec does not provide it`;
    }
    if (assign) {
      const spec = param === 'args' && props.length ? schemaTypeAt(tool.inputSchema, props) : undefined;
      return `${where}: ${assign[2]} in the handler, the spec says ${spec ?? assign[1]}`;
    }
    return `${where}: the handler's type does not accept what the spec sends`;
  }
  // "Type '(args) => R' is not assignable to type 'Handler<…>'" then "Type 'R' is not assignable to type 'Result'": the result.
  const result = /^Type '\(.*\) => .+' is not assignable to type 'Handler</.test(lines[0] ?? '')
    ? /^Type '(.+)' is not assignable to type '(.+)'\.?$/.exec(lines[1] ?? '')
    : undefined;
  if (result) return `returns ${result[1]}, where the contract wants ${result[2]}`;
  if (returns && assign) return `returns ${assign[1]}, where the contract wants ${assign[2]}`;
  if (/Target signature provides too few arguments/.test(chain)) return 'the handler takes more parameters than (args, ctx)';
  return lines[0] ?? chain;
}

/** "integer", "string", "array" … from the input schema, for a property path. */
function schemaTypeAt(schema: Record<string, unknown>, props: string[]): string | undefined {
  let node: unknown = schema;
  for (const p of props) {
    const properties = isObject(node) ? node['properties'] : undefined;
    node = isObject(properties) ? properties[p] : undefined;
  }
  if (!isObject(node)) return undefined;
  const t = node['type'];
  if (Array.isArray(t)) return t.join(' or ');
  if (typeof t === 'string') return t;
  if (Array.isArray(node['enum'])) return `one of ${node['enum'].map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
}
