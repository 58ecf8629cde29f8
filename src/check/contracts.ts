/**
 * Contracts: each handler module read with the TypeScript type checker (ts-morph), against the contract generated
 * in memory from the spec (not the files on disk, which may be stale). A handler fits when its `handler` export is
 * assignable to `Handler<'tool'>`, its file type-checks, and nothing in its signature is `any`. ts-morph is loaded
 * only when there are handlers to read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Node, Project, SourceFile, Type } from 'ts-morph';
import type { OutputFile } from '../emit/generate.js';
import { toolTypeNames } from '../emit/types.js';
import type { ServerModel, ToolModel } from '../model.js';
import { displayPath } from '../paths.js';
import { isObject } from '../validate/keywords.js';
import type { HandlerModule } from './coverage.js';
import type { Finding } from './findings.js';

const CHECK_FILE = '__toolspec_check__.ts';

/** A type as a person reads it: without the `import("…").` qualifiers the checker adds for out-of-scope names. */
function typeText(type: Type, at: Node, flags?: number): string {
  return type.getText(at, flags).replace(/import\("[^"]*"\)\./g, '');
}

export async function checkContracts(
  model: ServerModel,
  files: readonly OutputFile[],
  handlers: readonly HandlerModule[],
  cwd: string,
): Promise<Finding[]> {
  if (!handlers.length) return [];
  const { Project, ts } = await import('ts-morph');
  const tsconfig = path.join(model.rootDir, 'tsconfig.json');
  const project: Project = new Project({
    ...(fs.existsSync(tsconfig) ? { tsConfigFilePath: tsconfig } : {}),
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      ...(fs.existsSync(tsconfig) ? {} : { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }),
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      lib: ['lib.es2023.d.ts'],
    },
  });
  // The contract as the spec says it is now.
  const genDir = path.resolve(model.rootDir, model.options.generatedDir);
  for (const f of files) {
    if (f.kind === 'generated' && f.path.endsWith('.ts')) project.createSourceFile(path.resolve(model.rootDir, f.path), f.contents, { overwrite: true });
  }
  const sources = handlers.map((h) => project.addSourceFileAtPath(h.abs));
  const byName = new Map(model.tools.map((t) => [t.name, t]));

  // One assignment per handler: `const c3: Handler<'tool'> = handler3;`. Its errors say how a handler misses.
  const lines = handlers.map((h, i) => {
    let spec = path.relative(genDir, h.abs).split(path.sep).join('/').replace(/\.ts$/, '.js');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    return `import { handler as handler${i} } from ${JSON.stringify(spec)};\nexport const c${i}: Handler<${JSON.stringify(h.tool)}> = handler${i};`;
  });
  const checkFile = project.createSourceFile(
    path.join(genDir, CHECK_FILE),
    `import type { Handler } from './contract.js';\n${lines.join('\n')}\n`,
    { overwrite: true },
  );

  const findings: Finding[] = [];
  const names = toolTypeNames(model);
  handlers.forEach((h, i) => {
    const sf = sources[i]!;
    const tool = byName.get(h.tool)!;
    const n = names.get(h.tool)!;
    const expected = `(args: ${n.input}, ctx: ToolContext) => ${tool.output ? `StructuredResult<${n.output}>` : 'TextResult'} (or a Promise of it)`;
    const file = displayPath(h.abs, cwd);
    const decl = sf.getExportedDeclarations().get('handler')?.[0];
    if (!decl) {
      findings.push({
        kind: 'handler-export',
        tool: h.tool,
        file,
        line: 1,
        column: 1,
        message: `exports no \`handler\`; the registry imports { handler } from it`,
        fix: 'handler',
        expected: `export const handler: Handler<'${h.tool}'> = …`,
      });
      return;
    }
    const at = position(sf, decl);
    const actual = handlerType(decl);
    const anyFinding = anyIn(decl, actual);
    if (anyFinding) {
      findings.push({ kind: 'handler-any', tool: h.tool, file, ...at, message: anyFinding, fix: 'handler', expected, actual: typeText(actual, decl) });
      return;
    }
    const mismatch = checkFile
      .getPreEmitDiagnostics()
      .filter((d) => d.getCategory() === ts.DiagnosticCategory.Error && d.getLineNumber() === 2 * i + 3);
    for (const d of mismatch) {
      const chain = ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n');
      findings.push({
        kind: 'handler-contract',
        tool: h.tool,
        file,
        ...at,
        message: explain(chain, tool),
        fix: 'handler',
        expected,
        actual: typeText(actual, decl, ts.TypeFormatFlags.NoTruncation),
      });
    }
    // The handler's own file: what the contract now gives may not support what its body does.
    for (const d of sf.getPreEmitDiagnostics()) {
      if (d.getCategory() !== ts.DiagnosticCategory.Error || d.getSourceFile() !== sf) continue;
      const pos = sf.getLineAndColumnAtPos(d.getStart() ?? 0);
      const chain = ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n');
      const againstContract = /is not assignable to type 'Handler</.test(chain);
      findings.push({
        kind: 'handler-contract',
        tool: h.tool,
        file,
        line: pos.line,
        column: pos.column,
        message: againstContract ? explain(chain, tool) : chain.split('\n')[0]!,
        fix: 'handler',
        ...(againstContract ? { expected, actual: typeText(actual, decl, ts.TypeFormatFlags.NoTruncation) } : {}),
      });
    }
  });
  return findings;
}

function position(sf: SourceFile, decl: Node): { line: number; column: number } {
  const name = 'getNameNode' in decl && typeof decl.getNameNode === 'function' ? (decl.getNameNode() as Node | undefined) : undefined;
  const p = sf.getLineAndColumnAtPos((name ?? decl).getStart());
  return { line: p.line, column: p.column };
}

/** The type to hold to the contract: a const's initializer (its annotation would hide a mismatch), else the declaration's. */
function handlerType(decl: Node): Type {
  const init = 'getInitializer' in decl && typeof decl.getInitializer === 'function' ? (decl.getInitializer() as Node | undefined) : undefined;
  return (init ?? decl).getType();
}

/** `any` makes every assignment pass: the handler, or a parameter of it, typed `any` cannot be checked. */
function anyIn(decl: Node, type: Type): string | undefined {
  const declared = decl.getType();
  if (declared.isAny() || type.isAny()) return 'the handler is typed `any`, so its contract cannot be checked; declare it as Handler<…>';
  for (const sig of type.getCallSignatures()) {
    for (const param of sig.getParameters()) {
      const pt = param.getTypeAtLocation(decl);
      if (pt.isAny()) return `parameter \`${param.getName()}\` is typed \`any\`, so the contract cannot check it; type it from the contract (ToolInputs[…]) or drop the annotation`;
    }
    if (sig.getReturnType().isAny()) return 'the handler returns `any`, so its result cannot be checked against the contract';
  }
  return undefined;
}

/**
 * TypeScript's elaboration, in a person's words: which parameter or property, what the handler has, what the spec
 * says. Falls back to the compiler's own message.
 */
export function explain(chain: string, tool: ToolModel): string {
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
      const spec = param === 'args' && props.length ? schemaTypeAt(tool.input.schema, props) : undefined;
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
