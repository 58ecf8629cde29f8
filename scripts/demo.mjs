// npm run demo: the main job on the bundled example. Generates a server from specs/todo into a scratch folder
// (.demo/), type-checks it with the TypeScript compiler, starts it with node over stdio, and talks to it with the
// MCP SDK's client on protocol 2026-07-28: lists the tools, makes valid calls, one with bad arguments, and one
// whose handler asks the user to confirm; then reads an item as a resource, completes its id, and gets a prompt.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, '.demo', 'todo');
const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (s) => `\u001b[1m${s}\u001b[22m` : (s) => s;
const step = (s) => console.log(`\n${bold(`▸ ${s}`)}`);
const show = (v) => console.log(typeof v === 'string' ? v : JSON.stringify(v, null, 2));

fs.rmSync(work, { recursive: true, force: true });
fs.cpSync(path.join(root, 'specs/todo'), work, { recursive: true });

step('toolspec generate   (specs/todo: spec and handlers, copied to .demo/todo)');
const gen = spawnSync(process.execPath, [path.join(root, 'bin/toolspec.js'), 'generate'], {
  cwd: work,
  stdio: 'inherit',
});
if (gen.status !== 0) process.exit(gen.status ?? 1);

step('type-check and compile with the TypeScript compiler (strict)');
const files = fs
  .readdirSync(path.join(work, 'src'), { recursive: true })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => path.join(work, 'src', f));
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  outDir: path.join(work, 'dist'),
  rootDir: path.join(work, 'src'),
});
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
console.log(`${files.length} files, ${diagnostics.length} errors`);
if (diagnostics.length) {
  console.log(
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => work,
      getNewLine: () => '\n',
    }),
  );
  process.exit(1);
}

step('start it (node dist/generated/main.js) and connect the MCP SDK client over stdio');
const client = new Client(
  { name: 'toolspec-demo', version: '1.0.0' },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
// The user of this demo says yes to every question the server asks.
client.setRequestHandler('elicitation/create', async (request) => {
  console.log(`the server asks: ${request.params.message}  → the user answers yes`);
  return { action: 'accept', content: { sure: true } };
});
// The server's stderr: its ready line is part of the demo (it comes before the server answers anything); the rest
// is passed on as stderr.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [path.join(work, 'dist/generated/main.js')],
  stderr: 'pipe',
});
const ready = new Promise((resolve) =>
  transport.stderr?.setEncoding('utf8').on('data', (text) => {
    for (const line of text.split('\n').filter(Boolean)) {
      if (/ ready on stdio$/.test(line)) resolve(line);
      else console.error(line);
    }
  }),
);
await client.connect(transport);
console.log(`the server says on stderr: ${await ready}`);
console.log(
  `connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version} on protocol 2026-07-28`,
);

step('tools/list');
for (const t of (await client.listTools()).tools) {
  const hints = Object.entries(t.annotations ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(`  ${t.name.padEnd(14)} ${t.description}\n  ${''.padEnd(14)} ${hints}`);
}

const call = async (name, args) => {
  step(`tools/call ${name} ${JSON.stringify(args)}`);
  const r = await client.callTool({ name, arguments: args });
  if (r.structuredContent) {
    console.log('structuredContent:');
    show(r.structuredContent);
  } else show(`${r.isError ? 'isError: ' : ''}${r.content.map((c) => c.text).join('\n')}`);
};
await call('add_item', { text: 'Buy milk', due: '2026-12-01' });
await call('add_item', { text: 'Write the report', priority: 'high' });
await call('add_item', { text: '', priority: 'urgent', colour: 'red' });
await call('complete_item', { id: 1 });
await call('complete_item', { id: 42 });
await call('remove_item', { id: 2 });
await call('list_items', { include_done: true });
await call('add_item', { text: 'Call the plumber', due: '2026-12-02' });

step('resources/templates/list');
for (const t of (await client.listResourceTemplates()).resourceTemplates)
  console.log(`  ${t.uriTemplate}  ${t.description}`);
step('completion/complete  the id of todo://items/{id}, starting with "2"');
const ids = await client.complete({
  ref: { type: 'ref/resource', uri: 'todo://items/{id}' },
  argument: { name: 'id', value: '2' },
});
show(ids.completion);
step('resources/read todo://items/2');
show((await client.readResource({ uri: 'todo://items/2' })).contents);
step('prompts/get plan_day {"focus":"urgent"}');
const prompt = await client.getPrompt({ name: 'plan_day', arguments: { focus: 'urgent' } });
for (const m of prompt.messages)
  console.log(`${m.role}: ${m.content.type === 'text' ? m.content.text : m.content.type}`);
await client.close();
console.log('\ndone. The generated server is in .demo/todo/src/generated; its handlers in .demo/todo/src/handlers.');
