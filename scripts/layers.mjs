#!/usr/bin/env node
/**
 * The import rules of ARCHITECTURE.md, enforced on TypeScript's syntax tree (in `npm run typecheck`, so in CI;
 * test/layers.test.ts breaks each rule once): which folder may import which, that no module imports itself back
 * through others (no loops), that the pure stages (pipeline/emit, pipeline/schema, pipeline/model.ts) touch
 * neither the disk, threads, other processes nor `process`, that only cli.ts prints, and that only the writers
 * write to the disk. Every way of reaching a thing counts: `import { writeFileSync } from 'node:fs'`, `import * as
 * fs`, `fs['writeFileSync']`, `fs.promises.writeFile`, `import('node:fs/promises')`, `process['stdout']`,
 * `globalThis.console`. Prints each broken rule as file:line: what and why; exits 1 if any.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

/** The room a module is in: "pipeline/emit", "check", "cli.ts", "pipeline/model.ts", … */
const roomOf = (file) => {
  const parts = file.split('/');
  if (parts[0] === 'pipeline') return parts.length > 2 ? `pipeline/${parts[1]}` : file;
  return parts.length > 1 ? parts[0] : file;
};

/** What each room may import (`only`) or must not (`not`), and why. */
const RULES = {
  'pipeline/schema': { only: ['pipeline/schema'], why: 'JSON Schema knowledge stands alone' },
  'pipeline/emit': {
    only: ['pipeline/emit', 'pipeline/schema', 'pipeline/model.ts', 'core'],
    why: 'emitters see only the model (what validate computed is in it), never the loader, the checks or the disk',
  },
  'pipeline/model.ts': { only: ['pipeline/schema', 'core'], why: 'the model is plain data' },
  'pipeline/load': {
    only: ['pipeline/load', 'pipeline/schema', 'core'],
    why: 'load is the first stage',
  },
  'pipeline/validate': {
    only: ['pipeline/validate', 'pipeline/load', 'pipeline/schema', 'pipeline/model.ts', 'core', 'cache'],
    why: 'validate comes after load and before emit, the checks and the commands',
  },
  core: { only: ['core'], why: 'core is what every stage builds on' },
  cache: { only: ['cache', 'core'], why: 'the cache holds what others compute, without knowing how' },
};
/** Rooms whose code is pure: no disk, no threads, no processes, no `process`. */
const PURE = new Set(['pipeline/emit', 'pipeline/schema', 'pipeline/model.ts']);
const IMPURE_MODULES = /^(node:)?(fs|fs\/promises|worker_threads|child_process|cluster)$/;
/** Who may call the commands: the CLI (and commands one another). */
const COMMAND_CALLERS = new Set(['cli.ts', 'commands']);
/** Where the disk may be written: the commands, the writer, the cache, init's scaffold, import's writer. */
const WRITERS = new Set(['write', 'cache', 'commands', 'init', 'import/write.ts']);
/** Runtime modules the generator imports (the rest of templates/runtime is copied into projects, never imported). */
const SHARED = ['templates/runtime/arguments.ts', 'templates/runtime/uri-template.ts'];
const FS_MODULES = /^(node:)?fs(\/promises)?$/;
const WRITE_CALLS = new Set(
  'writeFile writeFileSync appendFile appendFileSync rename renameSync mkdir mkdirSync mkdtemp mkdtempSync rm rmSync rmdir rmdirSync unlink unlinkSync link linkSync symlink symlinkSync copyFile copyFileSync cp cpSync truncate truncateSync write writeSync writev writevSync open openSync createWriteStream utimes utimesSync futimes futimesSync chmod chmodSync chown chownSync'.split(
    ' ',
  ),
);
const PRINTS = new Set(['stdout', 'stderr']);

/** The member read off `node` (`node.x` or `node['x']`), if any. */
function memberName(parent, node) {
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return parent.name.text;
  if (
    ts.isElementAccessExpression(parent) &&
    parent.expression === node &&
    ts.isStringLiteralLike(parent.argumentExpression)
  )
    return parent.argumentExpression.text;
  return undefined;
}

/** `fs.promises.writeFile` (and `fs.promises['rm']`): a write through the promises namespace. */
function writesThroughPromises(parent) {
  const next = memberName(parent.parent, parent);
  return next !== undefined && WRITE_CALLS.has(next);
}

/** The identifier is the name in `x.name`, `{ name: … }` or a declaration: not a use of a variable. */
function isPropertyNameOf(parent, node) {
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isPropertyAssignment(parent) && parent.name === node) ||
    (ts.isPropertySignature(parent) && parent.name === node) ||
    (ts.isMethodDeclaration(parent) && parent.name === node) ||
    (ts.isPropertyDeclaration(parent) && parent.name === node) ||
    ts.isImportSpecifier(parent) ||
    ts.isExportSpecifier(parent) ||
    ts.isQualifiedName(parent)
  );
}

function isDeclarationName(node) {
  const p = node.parent;
  return (
    (ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isBindingElement(p)) &&
    p.name === node
  );
}

/** Every broken rule in the tree at `src` (default: this repository's src/), as "src/file:line: what and why". */
export function judge(src = path.join(root, 'src')) {
  const files = fs
    .readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  const problems = [];
  const graph = new Map();

  for (const file of files) {
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const room = roomOf(file);
    const rule = RULES[room];
    const say = (node, what) =>
      problems.push(`src/${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${what}`);
    const edges = new Set();
    graph.set(file, edges);
    /** Local names bound to the fs module (`fs`, `promises`), and to its write functions (`writeFileSync`, aliases). */
    const fsNames = new Set();
    const writeNames = new Set();

    const importOf = (node, spec) => {
      if (IMPURE_MODULES.test(spec) && PURE.has(room))
        say(node, `imports ${spec}; ${room} is pure (no disk, threads or processes)`);
      if (!spec.startsWith('.')) return;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) {
        const shared = path.posix.normalize(path.posix.join('src', target));
        if (!SHARED.includes(shared))
          say(node, `imports ${spec}, outside src/; of the runtime templates only ${SHARED.join(', ')} are shared`);
        return;
      }
      edges.add(target);
      const to = roomOf(target);
      if (to === room) return;
      if (rule?.only && !rule.only.includes(to))
        say(node, `imports src/${target}; ${room} may import only ${rule.only.join(', ')} (${rule.why})`);
      if (to === 'commands' && !COMMAND_CALLERS.has(room))
        say(node, `imports src/${target}; only the CLI calls commands`);
    };

    const visit = (node) => {
      // import … from 'x', export … from 'x'
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const spec = node.moduleSpecifier.text;
        importOf(node, spec);
        const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
        if (clause && FS_MODULES.test(spec) && !clause.isTypeOnly) {
          if (clause.name) fsNames.add(clause.name.text);
          const bindings = clause.namedBindings;
          if (bindings && ts.isNamespaceImport(bindings)) fsNames.add(bindings.name.text);
          if (bindings && ts.isNamedImports(bindings)) {
            for (const el of bindings.elements) {
              const imported = (el.propertyName ?? el.name).text;
              if (imported === 'promises' || imported === 'default') fsNames.add(el.name.text);
              else if (WRITE_CALLS.has(imported)) writeNames.add(el.name.text);
            }
          }
        }
      }
      // import('x'), require('x')
      if (
        ts.isCallExpression(node) &&
        (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
          (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        importOf(node, node.arguments[0].text);
        if (FS_MODULES.test(node.arguments[0].text) && !WRITERS.has(room) && !WRITERS.has(file))
          say(node, 'loads the fs module dynamically; only the commands, the writer and the cache write to the disk');
      }
      if (ts.isIdentifier(node) && !isDeclarationName(node)) {
        const name = node.text;
        const parent = node.parent;
        const member = memberName(parent, node);
        if (name === 'process' && PURE.has(room) && !isPropertyNameOf(parent, node))
          say(node, `touches process; ${room} is pure (its inputs come as arguments)`);
        if (name === 'console' && file !== 'cli.ts' && !isPropertyNameOf(parent, node))
          say(node, 'prints; only the CLI prints (commands return what to print)');
        if (name === 'process' && member !== undefined && PRINTS.has(member) && file !== 'cli.ts')
          say(node, 'prints; only the CLI prints (commands return what to print)');
        if (name === 'globalThis' && member === 'console' && file !== 'cli.ts')
          say(node, 'prints; only the CLI prints (commands return what to print)');
        if (!WRITERS.has(room) && !WRITERS.has(file)) {
          const writes =
            (fsNames.has(name) && member !== undefined && (WRITE_CALLS.has(member) || member === 'promises')) ||
            (writeNames.has(name) && !isPropertyNameOf(parent, node));
          if (writes && (member !== 'promises' || writesThroughPromises(parent)))
            say(node, 'writes to the disk; only the commands, the writer and the cache do');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  // No loops: a module never reaches itself through its imports (type-only ones included: a loop of types is a
  // loop of concepts).
  const state = new Map();
  const stack = [];
  const loops = new Set();
  const walk = (file) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]);
        loops.add([...loop.slice(start), ...loop.slice(0, start)].map((f) => `src/${f}`).join(' → '));
      } else if (!state.has(next)) walk(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) walk(file);
  for (const loop of [...loops].sort()) problems.push(`import loop: ${loop} → back to the first`);

  // A shared module runs in generated servers and in toolspec alike: it imports nothing.
  for (const shared of SHARED) {
    const imports = ts.preProcessFile(fs.readFileSync(path.join(root, shared), 'utf8'), true, true).importedFiles;
    if (imports.length)
      problems.push(
        `${shared}: imports ${imports.map((i) => i.fileName).join(', ')}; a module shared with generated servers imports nothing`,
      );
  }
  return { problems, modules: files.length };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const { problems, modules } = judge();
  if (problems.length) {
    console.error(
      `${problems.join('\n')}\n\n${problems.length} broken import rule${problems.length === 1 ? '' : 's'} (see ARCHITECTURE.md)`,
    );
    process.exit(1);
  }
  console.log(`layers: ${modules} modules keep the import rules of ARCHITECTURE.md, with no import loop`);
}
