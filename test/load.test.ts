import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LINT_OPTIONS } from '../src/core/options.js';
import { loadModel } from '../src/compile.js';
import { tempProject } from './helpers/tmp.js';

const repo = path.resolve(import.meta.dirname, '..');
let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});

function project(files: Record<string, string>) {
  const p = tempProject(files);
  cleanups.push(p.cleanup);
  return p.dir;
}

const HEAD = 'toolspec: 1\nserver: { name: s, version: 1.0.0 }\n';

describe('loadModel', () => {
  it("keeps the author's tool order and chooses TypeScript names", () => {
    const { model, diagnostics } = loadModel('specs/todo/toolspec.yaml', { cwd: repo });
    expect(diagnostics).toEqual([]);
    expect(model!.tools.map((t) => [t.name, t.typeName])).toEqual([
      ['add_item', 'AddItem'],
      ['list_items', 'ListItems'],
      ['complete_item', 'CompleteItem'],
      ['remove_item', 'RemoveItem'],
    ]);
    expect(model!.options).toEqual({
      generatedDir: 'src/generated',
      handlersDir: 'src/handlers',
      refs: 'inline',
      pageSize: 0,
      timeoutMs: 0,
      contractTests: true,
      cache: { ttlMs: 300_000, scope: 'public' },
      subscriptions: false,
      toolTables: [],
      lint: DEFAULT_LINT_OPTIONS,
    });
    expect(model!.server).toMatchObject({ name: 'todo-server', version: '1.0.0', title: 'To-do list' });
  });

  it('gives the same model twice and does not mutate the spec', () => {
    const before = fs.readFileSync(path.join(repo, 'specs/todo/toolspec.yaml'), 'utf8');
    const a = loadModel('specs/todo/toolspec.yaml', { cwd: repo });
    const snapshot = structuredClone(a.model);
    // Mutating one model must not leak into the next load (no shared caches of spec data).
    (a.model!.tools[0]!.input.schema as Record<string, unknown>)['mutated'] = true;
    a.model!.tools[0]!.definition.name = 'changed';
    const b = loadModel('specs/todo/toolspec.yaml', { cwd: repo });
    expect(b.model).toEqual(snapshot);
    expect(fs.readFileSync(path.join(repo, 'specs/todo/toolspec.yaml'), 'utf8')).toBe(before);
  });

  it('builds the tools/list entry in MCP field order, with only the fields given', () => {
    const { model } = loadModel('specs/todo/toolspec.yaml', { cwd: repo });
    const def = model!.tools[1]!.definition;
    expect(Object.keys(def)).toEqual(['name', 'title', 'description', 'inputSchema', 'annotations']);
    expect(def.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it("sends alwaysLoad and searchHint as the _meta keys clients' tool search reads, beside the tool's own", () => {
    const tool = (extra: string) =>
      `${HEAD}tools:\n  - name: find\n    description: Find.\n    inputSchema: { type: object }\n${extra}`;
    const dir = project({
      'toolspec.yaml': tool('    alwaysLoad: true\n    searchHint: lookup search query\n    _meta: { team: docs }\n'),
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics).toEqual([]);
    expect(model!.tools[0]!.definition._meta).toEqual({
      team: 'docs',
      'anthropic/alwaysLoad': true,
      'anthropic/searchHint': 'lookup search query',
    });
    // The same key in _meta: agreeing is fine; disagreeing is TS009 at that key.
    const same = project({
      'toolspec.yaml': tool('    alwaysLoad: true\n    _meta: { anthropic/alwaysLoad: true }\n'),
    });
    expect(loadModel('toolspec.yaml', { cwd: same }).diagnostics).toEqual([]);
    const clash = project({
      'toolspec.yaml': tool('    alwaysLoad: true\n    _meta: { anthropic/alwaysLoad: false }\n'),
    });
    const clashed = loadModel('toolspec.yaml', { cwd: clash });
    expect(clashed.model).toBeUndefined();
    expect(clashed.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ['TS009', 8, '_meta["anthropic/alwaysLoad"] says false, but alwaysLoad says true'],
    ]);
    const wrong = project({ 'toolspec.yaml': tool('    searchHint: ""\n') });
    expect(loadModel('toolspec.yaml', { cwd: wrong }).diagnostics.map((d) => d.code)).toEqual(['TS009']);
  });

  it('says a deprecated tool is deprecated at the head of its description, and keeps the reason in the model', () => {
    const spec = (tool: string) => `${HEAD}tools:\n  - name: find\n${tool}    inputSchema: { type: object }\n`;
    const described = project({ 'toolspec.yaml': spec('    description: Find.\n    deprecated: use search.\n') });
    const { model } = loadModel('toolspec.yaml', { cwd: described });
    expect(model!.tools[0]!.deprecated).toBe('use search.');
    expect(model!.tools[0]!.definition.description).toBe('Deprecated: use search.\n\nFind.');
    const bare = project({ 'toolspec.yaml': spec('    deprecated: use search.\n') });
    expect(loadModel('toolspec.yaml', { cwd: bare }).model!.tools[0]!.definition.description).toBe(
      'Deprecated: use search.',
    );
    const empty = project({ 'toolspec.yaml': spec('    deprecated: ""\n') });
    expect(loadModel('toolspec.yaml', { cwd: empty }).diagnostics.map((d) => [d.code, d.line])).toEqual([['TS009', 5]]);
  });

  it('bundles the shared $defs a schema uses, transitively, and no others', () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}$defs:
  Hit: { type: object, properties: { page: { $ref: "#/$defs/Page" } } }
  Page: { type: object, properties: { url: { type: string, format: uri } } }
  Unused: { type: string }
tools:
  - name: search
    description: Search.
    inputSchema: { type: object, properties: { q: { type: string } } }
    outputSchema:
      type: object
      properties: { hits: { type: array, items: { $ref: "#/$defs/Hit" } } }
`,
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics).toEqual([]);
    const out = model!.tools[0]!.output!.schema;
    expect(Object.keys(out['$defs'] as object)).toEqual(['Hit', 'Page']);
    expect(model!.tools[0]!.input.schema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });

  it("keeps a tool's own $defs ahead of shared ones of the same name", () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}$defs:
  Id: { type: integer }
tools:
  - name: get
    description: Get.
    inputSchema:
      type: object
      properties: { id: { $ref: "#/$defs/Id" } }
      $defs: { Id: { type: string } }
`,
    });
    const { model } = loadModel('toolspec.yaml', { cwd: dir });
    expect(model!.tools[0]!.input.schema['$defs']).toEqual({ Id: { type: 'string' } });
  });

  it('reads draft-07 schemas by their dialect and 2020-12 by default', () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}tools:
  - name: old
    description: Draft-07.
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties: { pair: { type: array, items: [{ type: string }, { type: integer }], additionalItems: false } }
  - name: new
    description: 2020-12.
    inputSchema:
      type: object
      properties: { pair: { type: array, prefixItems: [{ type: string }, { type: integer }], items: false } }
`,
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics).toEqual([]);
    expect(model!.tools.map((t) => t.input.dialect)).toEqual(['draft-07', '2020-12']);
    expect(model!.tools[0]!.input.schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('accepts recursion below a property, x- keywords, and hostile property names as data', () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}$defs:
  Node: { type: object, properties: { children: { type: array, items: { $ref: "#/$defs/Node" } } } }
tools:
  - name: tree
    description: "Walks a tree. */ \${x} \`y\` \\u2028"
    inputSchema:
      type: object
      x-internal: true
      properties:
        root: { $ref: "#/$defs/Node" }
        __proto__: { type: string }
        constructor: { type: string }
`,
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics).toEqual([]);
    const props = model!.tools[0]!.input.schema['properties'] as Record<string, unknown>;
    expect(Object.getOwnPropertyNames(props)).toEqual(['root', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    expect(model!.tools[0]!.definition.description).toBe('Walks a tree. */ ${x} `y` \u2028');
  });

  it("reads tools from included files and folders, after the main file's, with exact positions", () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}include: [more/a.yaml, extra/]\ntools:\n  - name: first\n    description: First.\n    inputSchema: { type: object }\n`,
      'more/a.yaml': `$defs:\n  Q: { type: string }\ntools:\n  - name: second\n    description: Second.\n    inputSchema: { type: object, properties: { q: { $ref: "#/$defs/Q" } } }\n`,
      'extra/b.yaml': `tools:\n  - name: third\n    description: Third.\n    inputSchema: { type: object }\n`,
      'extra/a.yml': `tools:\n  - name: between\n    description: Between.\n    inputSchema: { type: object }\n`,
      'extra/notes.txt': 'not a spec',
    });
    const { model, diagnostics, files } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics).toEqual([]);
    expect(files).toEqual(['toolspec.yaml', 'more/a.yaml', 'extra/a.yml', 'extra/b.yaml']);
    expect(model!.tools.map((t) => t.name)).toEqual(['first', 'second', 'between', 'third']);
    expect(model!.tools[1]!.source).toEqual({ file: 'more/a.yaml', line: 4, column: 5 });
    expect(model!.tools[1]!.input.schema['$defs']).toEqual({ Q: { type: 'string' } });
  });

  it('reports every problem in every file at once, each at its own position', () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}include: [tools.yaml]\ntools:\n  - name: ok\n    descripton: typo\n    inputSchema: { type: object }\n`,
      'tools.yaml': `tools:\n  - name: bad name\n    description: x\n    inputSchema:\n      type: object\n      properties: { a: { type: strng } }\n`,
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(model).toBeUndefined();
    expect(diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual([
      'toolspec.yaml:6:5 error TS006',
      'tools.yaml:2:11 error TS011',
      'tools.yaml:6:32 error TS022',
    ]);
  });

  it('refuses option folders outside the project', () => {
    const dir = project({ 'toolspec.yaml': `${HEAD}options: { generatedDir: ../out }\ntools: []\n` });
    const { diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ['TS016', 3, 26],
      ['TS035', 4, 1], // and a warning: no tools
    ]);
  });

  it("refuses an include that is a link pointing outside the spec's folder", () => {
    const outside = project({ 'x.yaml': 'tools: []\n' });
    const dir = project({ 'toolspec.yaml': `${HEAD}include: [link.yaml]\n` });
    fs.symlinkSync(path.join(outside, 'x.yaml'), path.join(dir, 'link.yaml'));
    const { diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.message])).toEqual([
      ['TS016', 'include "link.yaml" is a link that points outside the spec\'s folder'],
    ]);
  });

  it('warns, at the name, when "required" lists a property that is not defined', () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}tools:\n  - name: find\n    description: Find.\n    inputSchema:\n      type: object\n      properties: { q: { type: string } }\n      required: [q, query]\n`,
    });
    const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: dir });
    expect(model).toBeDefined();
    expect(diagnostics.map((d) => [d.severity, d.code, d.line, d.column, d.message])).toEqual([
      ['warning', 'TS029', 9, 21, '"query" is listed in "required" but not defined under "properties"'],
    ]);
  });
});

describe('loadModel from a file source other than the disk', () => {
  it('reads a spec and its includes from memory, with the same include rules and positions', async () => {
    const { memorySource } = await import('../src/pipeline/load/files.js');
    const root = path.resolve('/virtual/project');
    const spec = 'toolspec: 1\nserver: { name: s, version: 1.0.0 }\ninclude: [tools/, ../outside.yaml]\n';
    const tool = (name: string) =>
      `tools:\n  - name: ${name}\n    description: Do ${name}.\n    inputSchema: { type: object }\n`;
    const files = (main: string) =>
      new Map([
        [path.join(root, 'toolspec.yaml'), main],
        [path.join(root, 'tools/b.yaml'), tool('b_tool')],
        [path.join(root, 'tools/a.yaml'), tool('a_tool')],
        [path.join(root, 'tools/notes.txt'), 'not yaml'],
      ]);
    const refused = loadModel('toolspec.yaml', { cwd: root, source: memorySource(files(spec)) });
    expect(refused.model).toBeUndefined();
    expect(refused.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
      'toolspec.yaml:3:19 TS016 include "../outside.yaml" points outside the spec\'s folder',
    ]);
    const ok = loadModel('toolspec.yaml', {
      cwd: root,
      source: memorySource(files(spec.replace(', ../outside.yaml', ''))),
    });
    expect(ok.model?.tools.map((t) => `${t.name} ${t.source.file}:${t.source.line}`)).toEqual([
      'a_tool tools/a.yaml:2',
      'b_tool tools/b.yaml:2',
    ]);
    expect(fs.existsSync(root)).toBe(false);
  });
});
