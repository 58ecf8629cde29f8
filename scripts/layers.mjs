#!/usr/bin/env node
/**
 * The import rules of ARCHITECTURE.md, enforced (`npm run layers`, in `npm run typecheck` and so in CI). Imports
 * are read with TypeScript's own pre-processor (static imports, re-exports and `import()` alike); printing and disk
 * writes are found as calls in the source. Prints each broken rule as file: what and why; exits 1 if any.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
// LAYERS_SRC: another tree to judge (the test of these rules).
const src = process.env.LAYERS_SRC ?? path.join(root, 'src');
const files = fs
  .readdirSync(src, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.split(path.sep).join('/'))
  .sort();

/** The folder (or top-level module) a file belongs to: "emit", "validate", "cli.ts", … */
const layerOf = (file) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

/** What each layer must not import (by layer), and why. */
const FORBIDDEN = {
  schema: { only: ['schema'], why: 'JSON Schema knowledge stands alone' },
  emit: {
    only: ['emit', 'schema', 'model.ts', 'options.ts', 'names.ts', 'paths.ts'],
    why: 'emitters see only the model (what validate computed is in it), never the loader, the checks or the disk',
  },
  load: {
    not: ['validate', 'emit', 'check', 'commands', 'lint', 'diff', 'import', 'cli.ts', 'write.ts', 'cache'],
    why: 'load is the first stage',
  },
  validate: {
    not: ['emit', 'check', 'commands', 'lint', 'diff', 'import', 'cli.ts', 'write.ts'],
    why: 'validate comes before emit and the checks',
  },
  'model.ts': { only: ['options.ts', 'schema'], why: 'the model is plain data' },
};

/** Runtime modules the generator imports (the rest of templates/runtime is copied into projects, never imported). */
const SHARED = ['templates/runtime/arguments.ts', 'templates/runtime/uri-template.ts'];

/** Who may call the commands: the CLI (and commands one another). */
const COMMAND_CALLERS = new Set(['cli.ts', 'commands']);

/** Where the disk may be written: the commands, the writer, the cache, the transpiled modules `call` runs. */
const WRITERS = new Set(['write.ts', 'cache', 'run/cache.ts', 'commands', 'import/write.ts']);
const WRITE_CALL =
  /\bfs(?:\.promises)?\.(?:writeFileSync|writeFile|appendFileSync|renameSync|mkdirSync|mkdtempSync|rmSync|rmdirSync|unlinkSync|linkSync|symlinkSync|copyFileSync|truncateSync|writeSync|cpSync)\b/;
const PRINT_CALL = /\bconsole\.\w+\(|\bprocess\.(?:stdout|stderr)\b/;

const problems = [];
for (const file of files) {
  const text = fs.readFileSync(path.join(src, file), 'utf8');
  const layer = layerOf(file);
  const rule = FORBIDDEN[layer];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = path.posix
      .relative('.', path.posix.join(path.posix.dirname(file), fileName))
      .replace(/\.js$/, '.ts');
    if (target.startsWith('..')) {
      const shared = path.posix.relative('.', path.posix.join('src', target));
      if (!SHARED.includes(shared))
        problems.push(
          `src/${file}: imports ${fileName}, outside src/; of the runtime templates only ${SHARED.join(', ')} are shared`,
        );
      continue;
    }
    const to = layerOf(target);
    if (to === layer) continue;
    if (rule?.only && !rule.only.includes(to))
      problems.push(
        `src/${file}: imports src/${target}; ${layer} may import only ${rule.only.join(', ')} (${rule.why})`,
      );
    if (rule?.not?.includes(to)) problems.push(`src/${file}: imports src/${target}; ${rule.why}`);
    if (to === 'commands' && !COMMAND_CALLERS.has(layer))
      problems.push(`src/${file}: imports src/${target}; only the CLI calls commands`);
  }
  const lines = text.split('\n');
  const inComment = (line) => /^\s*(\/\/|\*|\/\*)/.test(line);
  lines.forEach((line, i) => {
    if (inComment(line)) return;
    if (PRINT_CALL.test(line) && file !== 'cli.ts')
      problems.push(`src/${file}:${i + 1}: prints; only the CLI prints (commands return what to print)`);
    if (WRITE_CALL.test(line) && !WRITERS.has(file) && !WRITERS.has(layer)) {
      problems.push(`src/${file}:${i + 1}: writes to the disk; only the commands, the writer and the caches do`);
    }
  });
}

// A shared module runs in generated servers and in toolspec alike: it imports nothing.
for (const shared of SHARED) {
  const imports = ts.preProcessFile(fs.readFileSync(path.join(root, shared), 'utf8'), true, true).importedFiles;
  if (imports.length)
    problems.push(
      `${shared}: imports ${imports.map((i) => i.fileName).join(', ')}; a module shared with generated servers imports nothing`,
    );
}

if (problems.length) {
  console.error(
    `${problems.join('\n')}\n\n${problems.length} broken import rule${problems.length === 1 ? '' : 's'} (see ARCHITECTURE.md)`,
  );
  process.exit(1);
}
console.log(`layers: ${files.length} modules keep the import rules of ARCHITECTURE.md`);
