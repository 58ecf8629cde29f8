/**
 * Contracts: each handler module read with the TypeScript type checker, against the contract generated in memory
 * from the spec (not the files on disk, which may be stale). A tool's handler fits when its `handler` export is
 * assignable to `Handler<'tool'>`, its file type-checks, and nothing in its signature is `any`; a prompt's or
 * resource's module when it is assignable to `PromptModule<'name'>` or `ResourceModule<'name'>` (its `handler`, and
 * its `complete` where the spec says `complete: handler`). One program reads them all. The compiler (the one
 * ts-morph bundles) is loaded only when there are handlers to read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import type { OutputFile } from '../pipeline/emit/generate.js';
import { displayPath } from '../core/paths.js';
import { isObject } from '../pipeline/schema/keywords.js';
import type { CheckSubject, PrimitiveHandler, SubjectTool } from './subject.js';
import type { Finding } from './findings.js';

/** The generated modules that handler types depend on (contract.ts imports types.ts and context.ts; stubs import dispatcher.ts). */
const CONTRACT_MODULES: readonly string[] = [
  'contract.ts',
  'types.ts',
  'context.ts',
  'dispatcher.ts',
  'primitive-types.ts',
];

/**
 * One program per check, but the declaration files it reads (the compiler's lib, the SDK's and Node's types under
 * node_modules) are parsed once per process and shared by every program after it, as the compiler's own
 * DocumentRegistry shares them between language services: a second check in the same process (watch, dev, a test
 * suite's cases) parses only the project's own files. An entry is used only for the very same text.
 */
const declarations = new Map<string, { text: string; file: ts.SourceFile }>();

/** The compiler's lib files, which the bundled compiler keeps in memory rather than on disk: read once. */
let libFiles: Map<string, string> | undefined;

function compilerHost(
  api: typeof ts,
  options: ts.CompilerOptions,
  memory: ReadonlyMap<string, string>,
  lib: { dir: string; files: ReadonlyMap<string, string> },
): ts.CompilerHost {
  // No parent pointers while parsing (the binder sets them on every file the checker reads) and no JSDoc parsed in
  // TypeScript files (types come from annotations there; JSDoc only types JavaScript): what tsc itself does, for
  // the same diagnostics at a fraction of the parse.
  const host = api.createCompilerHost(options, false);
  host.jsDocParsingMode = api.JSDocParsingMode.ParseForTypeErrors;
  const inMemory = (f: string) => memory.get(f) ?? lib.files.get(f);
  const memoryDirs = new Set([...memory.keys()].map((f) => path.dirname(f)));
  return {
    ...host,
    getDefaultLibLocation: () => lib.dir,
    getDefaultLibFileName: (o) => path.posix.join(lib.dir, api.getDefaultLibFileName(o)),
    fileExists: (f) => inMemory(f) !== undefined || host.fileExists(f),
    readFile: (f) => inMemory(f) ?? host.readFile(f),
    directoryExists: (d) => d === lib.dir || memoryDirs.has(d) || (host.directoryExists?.(d) ?? true),
    getSourceFile(file, version, onError, fresh) {
      const text = memory.get(file);
      if (text !== undefined) return api.createSourceFile(file, text, version);
      const v = typeof version === 'object' ? version : { languageVersion: version };
      const key = `${file}\0${v.languageVersion}\0${v.impliedNodeFormat ?? ''}\0${v.jsDocParsingMode ?? ''}`;
      if (!lib.files.has(file) && !file.includes('/node_modules/'))
        return host.getSourceFile(file, version, onError, fresh);
      const source = inMemory(file) ?? host.readFile(file);
      if (source === undefined) return host.getSourceFile(file, version, onError, fresh);
      const hit = declarations.get(key);
      if (hit?.text === source) return hit.file;
      const parsed = api.createSourceFile(file, source, v);
      declarations.set(key, { text: source, file: parsed });
      return parsed;
    },
  };
}

/** The project's compiler options (its tsconfig.json when it has one), held to strict, with no output. */
function compilerOptions(api: typeof ts, rootDir: string): ts.CompilerOptions {
  const tsconfig = path.join(rootDir, 'tsconfig.json');
  let base: ts.CompilerOptions = {
    target: api.ScriptTarget.ES2022,
    module: api.ModuleKind.NodeNext,
    moduleResolution: api.ModuleResolutionKind.NodeNext,
  };
  if (fs.existsSync(tsconfig)) {
    const read = api.readConfigFile(tsconfig, api.sys.readFile);
    // Only the options: the files the tsconfig includes are not the check's roots, so their folders are not listed.
    const host = { ...api.sys, readDirectory: () => [] };
    if (!read.error) base = api.parseJsonConfigFileContent(read.config, host, rootDir, undefined, tsconfig).options;
  }
  return { ...base, strict: true, noEmit: true, skipLibCheck: true, lib: ['lib.es2023.d.ts'] };
}

/**
 * The check's program. In memory: the contract as the spec says it is now (`files`), only the modules a handler's
 * types come from (parsing the validators or the manifest would cost more than all the checking); and a check file
 * in the generated folder, two lines per module, its import and its assignment to its contract, whose errors say how
 * a module misses: `export const c3: Handler<'tool'> = handler3;` for a tool's handler, `export const c4:
 * PromptModule<'name'> = m4;` for a prompt's or resource's module. Its roots are that file and the modules: the
 * contract's modules come in through their imports, and only those a module reaches; nothing else the tsconfig
 * includes can change whether one fits. Returns each module's errors in the check file, in order, and whether each
 * is in its assignment.
 */
async function checkProgram(
  subject: { rootDir: string; generatedDir: string },
  files: readonly OutputFile[],
  modules: readonly { module: string; contract: string; name: string; tool?: boolean }[],
) {
  const { ts: api, libFolderInMemoryPath: libDir, getLibFiles } = await import('@ts-morph/common');
  libFiles ??= new Map(getLibFiles().map((f) => [path.posix.join(libDir, f.fileName), f.text]));
  const memory = new Map<string, string>();
  for (const f of files) {
    if (f.kind === 'generated' && CONTRACT_MODULES.includes(path.posix.basename(f.path)))
      memory.set(path.resolve(subject.rootDir, f.path), f.contents);
  }
  const lines = modules.map((m, i) => {
    const rel = path.relative(subject.generatedDir, m.module).split(path.sep).join('/').replace(/\.ts$/, '.js');
    const [binding, value] = m.tool ? [`{ handler as handler${i} }`, `handler${i}`] : [`* as m${i}`, `m${i}`];
    const spec = JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`);
    return `import ${binding} from ${spec};\nexport const c${i}: ${m.contract}<${JSON.stringify(m.name)}> = ${value};`;
  });
  const head = `import type { ${[...new Set(modules.map((m) => m.contract))].join(', ')} } from './contract.js';`;
  const checkPath = path.join(subject.generatedDir, '__toolspec_check__.ts');
  memory.set(checkPath, `${head}\n${lines.join('\n')}\n`);
  const options = compilerOptions(api, subject.rootDir);
  const host = compilerHost(api, options, memory, { dir: libDir, files: libFiles });
  const program = api.createProgram({ rootNames: [checkPath, ...modules.map((m) => m.module)], options, host });
  const checkSf = program.getSourceFile(checkPath)!;
  const errors = modules.map((): { d: ts.Diagnostic; assignment: boolean }[] => []);
  for (const d of program.getSemanticDiagnostics(checkSf)) {
    if (d.category !== api.DiagnosticCategory.Error || d.start === undefined) continue;
    const line = checkSf.getLineAndCharacterOfPosition(d.start).line - 1;
    errors[Math.floor(line / 2)]?.push({ d, assignment: line % 2 === 1 });
  }
  return { ts: api, program, errors };
}

/** The errors in a file of the program itself (not in what it imports). */
const errorsIn = (api: typeof ts, program: ts.Program, sf: ts.SourceFile) =>
  [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].filter(
    (d) => d.category === api.DiagnosticCategory.Error && d.file === sf,
  );

const firstLine = (api: typeof ts, d: ts.Diagnostic) =>
  api.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]!;

/** A position as people count it, from 1. */
function lineAndColumn(sf: ts.SourceFile, pos: number): { line: number; column: number } {
  const p = sf.getLineAndCharacterOfPosition(pos);
  return { line: p.line + 1, column: p.character + 1 };
}

export async function checkContracts(
  subject: CheckSubject,
  { handlers, modules }: { handlers: readonly SubjectTool[]; modules: readonly PrimitiveHandler[] },
  cwd: string,
  files: readonly OutputFile[],
): Promise<Finding[]> {
  if (!handlers.length && !modules.length) return [];
  const order = [...handlers].sort((a, b) => (a.handler < b.handler ? -1 : a.handler > b.handler ? 1 : 0));
  const contractOf = (m: PrimitiveHandler) => (m.kind === 'prompt' ? 'PromptModule' : 'ResourceModule');
  const { ts, program, errors } = await checkProgram(subject, files, [
    ...order.map((t) => ({ module: t.handler, contract: 'Handler', name: t.name, tool: true })),
    ...modules.map((m) => ({ module: m.handler, contract: contractOf(m), name: m.name })),
  ]);
  const checker = program.getTypeChecker();
  const mismatches = new Map(order.map((t, i) => [t.handler, errors[i]!.filter((e) => e.assignment)]));
  const text = (t: ts.Type, at: ts.Node) =>
    checker.typeToString(t, at, ts.TypeFormatFlags.NoTruncation).replace(/import\("[^"]*"\)\./g, '');

  const findings: Finding[] = [];
  /** The handlers whose files' errors are reported with their tool: the other modules' go with none, below. */
  const withTool = new Set<ts.SourceFile>();
  for (const tool of handlers) {
    const sf = program.getSourceFile(tool.handler)!;
    const expected = `(args: ${tool.input}, ctx: ToolContext) => ${tool.output ? `StructuredResult<${tool.output}>` : 'TextResult'} (or a Promise of it)`;
    const file = displayPath(tool.handler, cwd);
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    let symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((e) => e.name === 'handler');
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = symbol?.declarations?.[0];
    if (!symbol || !decl) {
      findings.push({
        kind: 'handler-export',
        tool: tool.name,
        file,
        line: 1,
        column: 1,
        fix: 'handler',
        expected: `export const handler: Handler<'${tool.name}'> = …`,
        message: 'exports no `handler`; the registry imports { handler } from it',
      });
      continue;
    }
    const name = ts.getNameOfDeclaration(decl) ?? decl;
    const where = lineAndColumn(sf, name.getStart(sf));
    // A const's initializer is what must fit (its annotation would hide a mismatch); otherwise the declaration.
    const init = ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
    const actual = init ? checker.getTypeAtLocation(init) : checker.getTypeOfSymbolAtLocation(symbol, decl);
    const declared = checker.getTypeOfSymbolAtLocation(symbol, decl);
    const anyProblem = anyIn(ts, checker, declared, actual, decl);
    const about = { tool: tool.name, file, fix: 'handler', expected } as const;
    if (anyProblem) {
      findings.push({
        kind: 'handler-any',
        ...about,
        ...(anyProblem.at ? lineAndColumn(sf, anyProblem.at.getStart(sf)) : where),
        message: anyProblem.message,
        actual: text(actual, decl),
      });
      continue;
    }
    for (const { d } of mismatches.get(tool.handler) ?? [])
      findings.push({
        kind: 'handler-contract',
        ...about,
        ...where,
        message: explain(ts, d.messageText, tool),
        actual: text(actual, decl),
      });
    // The handler's own file: what the contract now gives may not support what its body does.
    withTool.add(sf);
    for (const d of errorsIn(ts, program, sf)) {
      const againstContract = againstHandler(ts, d.messageText);
      findings.push({
        kind: 'handler-contract',
        tool: tool.name,
        file,
        ...lineAndColumn(sf, d.start ?? 0),
        fix: 'handler',
        message: againstContract
          ? explain(ts, d.messageText, tool)
          : (fieldMismatch(ts, d, sf) ?? argumentUse(ts, d, sf, checker, init, tool) ?? firstLine(ts, d)),
        ...(againstContract ? { expected, actual: text(actual, decl) } : {}),
      });
    }
  }
  // The prompts' and resources' modules: the first error of each, said from its last lines.
  for (const [i, item] of modules.entries()) {
    const d = errors[order.length + i]![0]?.d;
    if (!d) continue;
    const sf = program.getSourceFile(item.handler);
    findings.push({
      kind: 'handler-contract',
      file: displayPath(item.handler, cwd),
      ...(sf ? handlerPosition(ts, sf) : { line: 1, column: 1 }),
      message: `the module of ${item.kind} "${item.name}" does not fit its contract: ${lastLines(ts.flattenDiagnosticMessageText(d.messageText, '\n'))}`,
      fix: 'handler',
      expected: `${contractOf(item)}<'${item.name}'>: export const handler: ${
        item.kind === 'prompt' ? 'PromptHandler' : 'ResourceHandler'
      }<'${item.name}'> (and complete, where the spec says complete: handler)`,
    });
  }
  // The first line of each error in the project's other modules, with no tool: the prompts' and resources', those
  // the modules import (shared code, directly or not), and a tool's handler whose contract could not be read (no
  // `handler`, or `any` in it). Each error once. Not the generated folder, the packages, the lib or declaration
  // files (the compiler's lib files, lib.*.d.ts, are declaration files too). Files the tsconfig includes that no
  // module reaches are not in the program at all.
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes('/node_modules/') || withTool.has(sf)) continue;
    if (path.resolve(sf.fileName).startsWith(subject.generatedDir + path.sep)) continue;
    for (const d of errorsIn(ts, program, sf))
      findings.push({
        kind: 'handler-contract',
        file: displayPath(sf.fileName, cwd),
        ...lineAndColumn(sf, d.start ?? 0),
        fix: 'handler',
        message: firstLine(ts, d),
      });
  }
  return findings;
}

/** The most specific lines of a compiler message chain (the last two), joined; module paths left out. */
function lastLines(text: string): string {
  return text
    .replace(/typeof import\("[^"]*"(?:, \{[^\n]*?\} \})?\)/g, 'the module')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-2)
    .join(' ');
}

/** Where a prompt's or resource's module declares its `handler` (else its first line). */
function handlerPosition(api: typeof ts, sf: ts.SourceFile): { line: number; column: number } {
  const d = sf.statements
    .filter(api.isVariableStatement)
    .flatMap((s) => [...s.declarationList.declarations])
    .find((d) => api.isIdentifier(d.name) && d.name.text === 'handler');
  return d ? lineAndColumn(sf, d.name.getStart(sf)) : { line: 1, column: 1 };
}

/**
 * `any` makes every assignment pass: the handler, or a parameter or result of it, typed `any` cannot be checked. A
 * result is `any` also as a Promise of it (an async handler returning `x as any`); then the problem is placed at the
 * first return that gives the `any`.
 */
function anyIn(
  api: typeof ts,
  checker: ts.TypeChecker,
  declared: ts.Type,
  type: ts.Type,
  decl: ts.Node,
): { message: string; at?: ts.Node } | undefined {
  const isAny = (t: ts.Type | undefined) => t !== undefined && (t.flags & api.TypeFlags.Any) !== 0;
  const anyResult = (t: ts.Type) => isAny(t) || isAny(checker.getAwaitedType(t));
  if (isAny(declared) || isAny(type))
    return { message: 'the handler is typed `any`, so its contract cannot be checked; declare it as Handler<…>' };
  for (const sig of checker.getSignaturesOfType(type, api.SignatureKind.Call)) {
    for (const param of sig.getParameters()) {
      if (isAny(checker.getTypeOfSymbolAtLocation(param, decl))) {
        return {
          message: `parameter \`${param.name}\` is typed \`any\`, so the contract cannot check it; type it from the contract (ToolInputs[…]) or drop the annotation`,
        };
      }
    }
    if (anyResult(checker.getReturnTypeOfSignature(sig))) {
      const fn = sig.getDeclaration() as ts.SignatureDeclaration | undefined;
      let at: ts.Node | undefined;
      const visit = (n: ts.Node): void => {
        if (at || (n !== fn && api.isFunctionLike(n))) return;
        if (api.isReturnStatement(n) && n.expression && anyResult(checker.getTypeAtLocation(n.expression))) at = n;
        else api.forEachChild(n, visit);
      };
      const body = fn && (fn as { body?: ts.Node }).body;
      if (body && !api.isBlock(body)) at = body;
      else if (body) visit(body);
      return {
        message:
          'the handler returns `any`, so its result cannot be checked against the contract; give the value its type (the output interface) instead of `any`',
        ...(at && { at }),
      };
    }
  }
  return undefined;
}

/** One message of a diagnostic's chain: the compiler's code and its text. */
interface ChainLink {
  code: number;
  text: string;
}

/** The chain depth first, as TypeScript prints it. */
function links(chain: string | ts.DiagnosticMessageChain, code = 0): ChainLink[] {
  if (typeof chain === 'string') return [{ code, text: chain }];
  return [{ code: chain.code, text: chain.messageText }, ...(chain.next ?? []).flatMap((n) => links(n))];
}

/** The compiler's messages that explain() reads, by code; their arguments are read with the compiler's own templates. */
const CODES = {
  notAssignable: 2322, // Type '{0}' is not assignable to type '{1}'.
  argumentNotAssignable: 2345, // Argument of type '{0}' is not assignable to parameter of type '{1}'.
  propertiesIncompatible: 2326, // Types of property '{0}' are incompatible.
  parametersIncompatible: 2328, // Types of parameters '{0}' and '{1}' are incompatible.
  returnTypesIncompatible: 2202, // Call signature return types '{0}' and '{1}' are incompatible.
  propertyMissing: 2741, // Property '{0}' is missing in type '{1}' but required in type '{2}'.
  tooFewArguments: 2849, // Target signature provides too few arguments. Expected {0} or more, but got {1}.
} as const;

const templates = new Map<number, RegExp | undefined>();

/** The arguments of a message, matched against the compiler's template for its code (ts.Diagnostics). */
function argumentsOf(api: typeof ts, link: ChainLink): string[] {
  if (!templates.has(link.code)) {
    const all = (api as unknown as { Diagnostics?: Record<string, { code: number; message: string }> }).Diagnostics;
    const message = Object.values(all ?? {}).find((d) => d.code === link.code)?.message;
    const source = message?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\d+\\\}/g, '(.+?)');
    templates.set(link.code, source === undefined ? undefined : new RegExp(`^${source}$`));
  }
  return templates.get(link.code)?.exec(link.text)?.slice(1) ?? [];
}

/** Whether a diagnostic says a handler does not fit `Handler<…>` (rather than something inside its body). */
function againstHandler(api: typeof ts, chain: string | ts.DiagnosticMessageChain): boolean {
  const [first] = links(chain);
  return first?.code === CODES.notAssignable && (argumentsOf(api, first)[1] ?? '').startsWith('Handler<');
}

/**
 * TypeScript's elaboration, in a person's words: which parameter or property, what the handler has, what the spec
 * says. The chain's links are told apart by their diagnostic codes; the compiler's own message is the fallback.
 */
function explain(api: typeof ts, chain: string | ts.DiagnosticMessageChain, tool: SubjectTool): string {
  const all = links(chain);
  const args = (l: ChainLink | undefined) => (l ? argumentsOf(api, l) : []);
  // The handler's name for the parameter, or the contract's where the handler destructures it (`({ id }) =>`,
  // which the compiler calls __0).
  const [own, theirs] = args(all.find((l) => l.code === CODES.parametersIncompatible));
  const param = own !== undefined && /^__\d+$/.test(own) ? theirs : own;
  const props = all
    .filter((l) => l.code === CODES.propertiesIncompatible)
    .map((l) => args(l)[0])
    .filter((p): p is string => Boolean(p));
  const assigns = all.filter((l) => l.code === CODES.notAssignable);
  const assign = args(assigns.at(-1));
  const missingProp = args(all.find((l) => l.code === CODES.propertyMissing));
  const returns = all.some((l) => l.code === CODES.returnTypesIncompatible);
  if (param) {
    const where = [param, ...props].join('.');
    if (missingProp.length)
      return `${[param, ...props, missingProp[0]].join('.')}: the handler requires it, the spec does not provide it`;
    if (assign.length === 2) {
      const spec = param === 'args' && props.length ? schemaTypeAt(tool.inputSchema, props) : undefined;
      return `${where}: ${assign[1]} in the handler, the spec says ${spec ?? assign[0]}`;
    }
    return `${where}: the handler's type does not accept what the spec sends`;
  }
  // A field of the result: the contract's types are shaped so the compiler explains against the output type.
  if (againstHandler(api, chain) && missingProp.length)
    return `result.${[...props, missingProp[0]].join('.')}: the contract requires it, the handler's result does not have it`;
  if (againstHandler(api, chain) && props.length && assign.length === 2)
    return `result.${props.join('.')}: ${assign[0]} in the handler, the contract says ${assign[1]}`;
  // "Type '(args) => R' is not assignable to type 'Handler<…>'" then "Type 'R' is not assignable to type 'Result'": the result.
  if (againstHandler(api, chain) && all[1]?.code === CODES.notAssignable) {
    const [got, wanted] = args(all[1]);
    if (got && wanted) return `returns ${got}, where the contract wants ${wanted}`;
  }
  if (returns && assign.length === 2) return `returns ${assign[0]}, where the contract wants ${assign[1]}`;
  if (all.some((l) => l.code === CODES.tooFewArguments)) return 'the handler takes more parameters than (args, ctx)';
  return all[0]?.text ?? '';
}

/**
 * A value written for a field of an object literal (a structured result returned as a literal): the compiler
 * reports it at the field with only the two types, `Type 'number' is not assignable to type 'string[]'`. Said with
 * the field's path, read from the source: `result.hits: number in the handler, the contract says string[]`.
 */
function fieldMismatch(api: typeof ts, d: ts.Diagnostic, sf: ts.SourceFile): string | undefined {
  const [first] = links(d.messageText, d.code);
  if (!first || first.code !== CODES.notAssignable || d.start === undefined) return undefined;
  const [got, wanted] = argumentsOf(api, first);
  // A returned literal that lacks a field of the output type: the compiler's second line names it.
  const missing = links(d.messageText, d.code).find((l) => l.code === CODES.propertyMissing);
  if (missing && wanted?.includes('StructuredResult<')) {
    const [field] = argumentsOf(api, missing);
    if (field) return `result.${field}: the contract requires it, the handler's result does not have it`;
  }
  // The compiler points at the field's name: start from the property it names.
  let node: ts.Node | undefined = tokenAt(api, sf, d.start)?.parent;
  const names: string[] = [];
  let literal: ts.Node | undefined;
  for (; node; node = node.parent) {
    if (api.isPropertyAssignment(node) || api.isShorthandPropertyAssignment(node)) names.unshift(node.name.getText(sf));
    else if (api.isObjectLiteralExpression(node)) literal = node;
    else if (!api.isParenthesizedExpression(node) && !api.isAsExpression(node)) break;
  }
  if (!got || !wanted || !names.length || !literal) return undefined;
  const parent =
    literal.parent && api.isParenthesizedExpression(literal.parent) ? literal.parent.parent : literal.parent;
  const returned = parent !== undefined && (api.isReturnStatement(parent) || api.isArrowFunction(parent));
  return `${returned ? 'result.' : ''}${names.join('.')}: ${got} in the handler, the contract says ${wanted}`;
}

/**
 * An argument the handler's body uses as a type the spec does not give it (a stub-style handler, whose parameter
 * takes the contract's type): the compiler reports it where the value is used, with only the two types
 * (`Argument of type 'string' is not assignable to parameter of type 'number'`). Said with the argument's path,
 * read from the source, and the type the spec gives: `args.id: the handler uses it as number, the spec says string`.
 */
function argumentUse(
  api: typeof ts,
  d: ts.Diagnostic,
  sf: ts.SourceFile,
  checker: ts.TypeChecker,
  handler: ts.Expression | undefined,
  tool: SubjectTool,
): string | undefined {
  const [first] = links(d.messageText, d.code);
  if (!first || d.start === undefined || !handler) return undefined;
  if (first.code !== CODES.notAssignable && first.code !== CODES.argumentNotAssignable) return undefined;
  const [, wanted] = argumentsOf(api, first);
  let node: ts.Node | undefined = tokenAt(api, sf, d.start);
  // `const n: number = args.id` is reported at `n`: the value is its initializer.
  if (node && api.isIdentifier(node) && node.parent && api.isVariableDeclaration(node.parent))
    node = node.parent.initializer;
  while (node?.parent && api.isPropertyAccessExpression(node.parent) && node.parent.expression === node)
    node = node.parent;
  const path: string[] = [];
  for (; node && api.isPropertyAccessExpression(node); node = node.expression) path.unshift(node.name.text);
  if (!node || !api.isIdentifier(node) || !path.length || !wanted) return undefined;
  // Rooted at the handler's first parameter: the arguments the spec describes.
  const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
  if (!declaration || !api.isParameter(declaration) || declaration.parent !== handler) return undefined;
  if ((handler as ts.FunctionLikeDeclaration).parameters?.[0] !== declaration) return undefined;
  const spec = schemaTypeAt(tool.inputSchema, path);
  return `${[node.text, ...path].join('.')}: the handler uses it as ${wanted}, the spec says ${spec ?? 'otherwise'}`;
}

/** The innermost node that starts at a position. */
function tokenAt(api: typeof ts, sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (n: ts.Node): void => {
    if (n.getStart(sf) <= pos && pos < n.getEnd()) {
      found = n;
      api.forEachChild(n, visit);
    }
  };
  api.forEachChild(sf, visit);
  return found;
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
