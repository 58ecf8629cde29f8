/**
 * Editor support, as a user's editor gives it: yaml-language-server (the YAML engine of VS Code's YAML extension
 * and of most editors' LSP set-ups) started as a child process over stdio, reading the spec's modeline
 * (`# yaml-language-server: $schema=…`), with the schema files resolved from disk as an installed toolspec ships
 * them. It must flag the mistakes inside inputSchema, outputSchema and $defs, stay silent on the specs the
 * repository ships, and complete JSON Schema keywords inside a schema, per dialect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { LspClient, type LspDiagnostic, type Position } from '../helpers/lsp.js';
import { tempProject } from '../helpers/tmp.js';

const server = path.join(repoRoot, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');

/** A project as `toolspec init` leaves it: the schema where the modeline of its spec points, node_modules/toolspec. */
const project = tempProject({});
fs.cpSync(path.join(repoRoot, 'schema'), path.join(project.dir, 'node_modules', 'toolspec', 'schema'), {
  recursive: true,
});
const MODELINE = '# yaml-language-server: $schema=./node_modules/toolspec/schema/toolspec.schema.json';

let lsp: LspClient;
beforeAll(async () => {
  lsp = await LspClient.start(server, project.dir, {
    // No schema catalogue from the network: the modeline alone decides.
    yaml: { validate: true, completion: true, hover: true, schemaStore: { enable: false } },
    http: {},
  });
});
afterAll(async () => {
  await lsp?.stop();
  project.cleanup();
});

/** Where the `nth` occurrence of `needle` starts in `text`, as an LSP position. */
function find(text: string, needle: string, nth = 0): Position {
  let i = -1;
  for (let n = 0; n <= nth; n++) {
    i = text.indexOf(needle, i + 1);
    if (i === -1) throw new Error(`"${needle}" #${nth} is not in the document`);
  }
  const before = text.slice(0, i).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

const key = (p: Position) => `${p.line + 1}:${p.character + 1}`;
const summary = (ds: LspDiagnostic[]) => ds.map((d) => `${key(d.range.start)} ${d.message}`).sort();

describe('the specs the repository ships get no diagnostics', () => {
  const shipped = [
    'specs/docs/toolspec.yaml',
    ...fs
      .readdirSync(path.join(repoRoot, 'specs', 'docs', 'tools'))
      .sort()
      .map((f) => `specs/docs/tools/${f}`),
    'specs/conformance/toolspec.yaml',
    'specs/todo/toolspec.yaml',
  ];
  for (const rel of shipped) {
    it(rel, async () => {
      const file = path.join(repoRoot, rel);
      const text = fs.readFileSync(file, 'utf8');
      expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=/);
      expect(await lsp.diagnosticsFor(lsp.open(file, text))).toEqual([]);
    });
  }

  it("the spec `toolspec init` writes, with the schema where its modeline points (the project's node_modules)", async () => {
    const text = fs.readFileSync(path.join(repoRoot, 'templates', 'init', 'toolspec.yaml'), 'utf8');
    expect(text.split('\n')[0]).toBe(MODELINE);
    expect(await lsp.diagnosticsFor(lsp.open(path.join(project.dir, 'toolspec.yaml'), text))).toEqual([]);
  });
});

describe('mistakes inside schemas are flagged where they are', () => {
  const text = `${MODELINE}
toolspec: 1
server: { name: editor-check, version: 1.0.0 }
$defs:
  Hit: { type: object, maxLenght: 3 }
  Legacy: { type: object, dependencies: { a: [b] } }
tools:
  - name: search
    inputSchema:
      type: object
      $defs:
        Local: { type: strng }
      properties:
        query: { type: strng, minLenght: 1 }
        email: { type: string, format: emial }
        region: { type: string, x-mcp-header: Region, x-note: fine }
        tags: { type: array, items: { type: string }, dependencies: { a: [b] } }
        hit: { $ref: "#/$defs/Hit" }
      required: [query]
    outputSchema:
      type: strng
  - name: old_style
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        pair: { type: array, items: [{ type: string }], additionalItems: false, prefixItems: [{ type: string }] }
        legacy: { type: object, dependencies: { a: [b] } }
  - name: ancient
    inputSchema:
      $schema: http://json-schema.org/draft-04/schema#
      type: object
  - name: listing
    inputSchema:
      type: array
`;
  const TYPES = 'Valid values: "array", "boolean", "integer", "null", "number", "object", "string"';
  const expected: [Position, string][] = [
    // A shared $def: 2020-12 or draft-07 keywords (its dialect is its tools'), no others.
    [find(text, 'maxLenght'), 'Property maxLenght is not allowed.'],
    // A tool's own $defs, its properties, its format, its outputSchema.
    [find(text, 'strng', 0), TYPES],
    [find(text, 'strng', 1), TYPES],
    [find(text, 'minLenght'), 'Property minLenght is not allowed.'],
    [find(text, 'emial'), 'Valid values: "date", "time", "date-time"'],
    [find(text, 'strng', 2), TYPES],
    // A draft-07 keyword in a 2020-12 schema, and the other way round.
    [find(text, 'dependencies', 1), 'Property dependencies is not allowed.'],
    [find(text, 'prefixItems'), 'Property prefixItems is not allowed.'],
    // A dialect toolspec does not read; a root that MCP cannot pass arguments as.
    [find(text, 'http://json-schema.org/draft-04'), 'toolspec reads JSON Schema 2020-12'],
    [find(text, 'array\n'), 'MCP passes arguments as an object'],
  ];

  it('each once, at its own position, and nothing else (draft-07 keywords under draft-07, x- keywords)', async () => {
    const got = await lsp.diagnosticsFor(lsp.open(path.join(project.dir, 'mistakes.yaml'), text));
    expect(got.map((d) => key(d.range.start)).sort(), summary(got).join('\n')).toEqual(
      expected.map(([p]) => key(p)).sort(),
    );
    for (const [p, message] of expected) {
      const d = got.find((x) => key(x.range.start) === key(p))!;
      expect(d.message, key(p)).toContain(message);
      expect(d.severity, key(p)).toBe(1); // error
    }
  });

  it('in an included file too (its schema reaches the layer through the main one)', async () => {
    const included = `# yaml-language-server: $schema=./node_modules/toolspec/schema/toolspec-include.schema.json
tools:
  - name: more
    inputSchema:
      type: object
      properties:
        n: { type: intger, minimun: 0 }
`;
    const got = await lsp.diagnosticsFor(lsp.open(path.join(project.dir, 'included.yaml'), included));
    expect(summary(got)).toEqual([
      `${key(find(included, 'intger'))} Value is not accepted. ${TYPES}.`,
      `${key(find(included, 'minimun'))} Property minimun is not allowed.`,
    ]);
  });

  it('and the same spec without them has none', async () => {
    const fixed = text
      .replaceAll('strng', 'string')
      .replace('maxLenght', 'maxLength')
      .replace('minLenght', 'minLength')
      .replace('emial', 'email')
      .replace(', dependencies: { a: [b] } }\n        hit', ' }\n        hit')
      .replace(', prefixItems: [{ type: string }]', '')
      .replace('draft-04', 'draft-07')
      .replace(/type: array\n$/, 'type: object\n');
    expect(await lsp.diagnosticsFor(lsp.open(path.join(project.dir, 'fixed.yaml'), fixed))).toEqual([]);
  });
});

describe('completion inside a schema offers JSON Schema keywords', () => {
  const text = `${MODELINE}
toolspec: 1
server: { name: editor-check, version: 1.0.0 }
tools:
  - name: search
    inputSchema:
      type: object
      properties:
        query:
          type: string
          
        limit:
          type: 
  - name: old_style
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        query:
          type: string
          
`;
  let uri: string;
  beforeAll(async () => {
    uri = lsp.open(path.join(project.dir, 'completion.yaml'), text);
    await lsp.diagnosticsFor(uri);
  });
  const lineOf = (needle: string, nth = 0) => find(text, needle, nth).line;

  it('2020-12 keywords, described, inside an inputSchema property', async () => {
    const items = await lsp.completion(uri, { line: lineOf('type: string', 0) + 1, character: 10 });
    const labels = items.map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(['minLength', 'maxLength', 'pattern', 'format', 'enum']));
    expect(labels).toEqual(expect.arrayContaining(['description', 'default', 'prefixItems', 'x-mcp-header']));
    expect(labels).not.toContain('dependencies'); // draft-07 only
    expect(labels).not.toContain('type'); // already there
    const minLength = items.find((i) => i.label === 'minLength')!;
    const doc = typeof minLength.documentation === 'string' ? minLength.documentation : minLength.documentation?.value;
    expect(doc).toContain('at least this many characters');
  });

  it('the seven types as the value of type', async () => {
    const items = await lsp.completion(uri, { line: lineOf('type: \n'), character: 16 });
    expect(items.map((i) => i.label.replace(/"/g, '')).sort()).toEqual([
      'array',
      'boolean',
      'integer',
      'null',
      'number',
      'object',
      'string',
    ]);
  });

  it('draft-07 keywords where the schema says draft-07', async () => {
    const items = await lsp.completion(uri, { line: lineOf('type: string', 1) + 1, character: 10 });
    const labels = items.map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(['minLength', 'dependencies', 'additionalItems']));
    expect(labels).not.toContain('prefixItems');
    expect(labels).not.toContain('unevaluatedProperties');
  });
});
