/**
 * The spec's JSON Schema as editors read it (schema/toolspec.schema.json, toolspec-include.schema.json and the layer
 * inside the tools' schemas, json-schema.schema.json), checked here with ajv: it compiles in strict mode, its
 * keywords, types and formats are toolspec's own, it rejects what the official meta-schemas reject, it accepts every
 * spec toolspec accepts, and it flags every schema mistake `toolspec validate` reports, on the same line. The e2e
 * tier (test/e2e/editor.test.ts) runs the same schema in a real editor's language server.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../src/core/diagnostics.js';
import { loadSpec } from '../src/pipeline/load/load.js';
import type { SourceFile } from '../src/pipeline/load/source.js';
import { pointerToPath, withoutSchemaLayer } from '../src/pipeline/load/structure.js';
import { FORMATS, KEYWORDS, TYPES } from '../src/pipeline/schema/keywords.js';
import { loadModel } from '../src/compile.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const schemaDir = path.join(repoRoot, 'schema');
const read = (name: string) => JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const layer = read('json-schema.schema.json');

/** The three files in one strict ajv instance, as an editor resolves them: by their sibling file names. */
const ajv = new Ajv.default({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats.default(ajv);
// Editors' own keywords (yaml-language-server, VS Code): a message of toolspec's words where the generic one is poor.
ajv.addVocabulary(['errorMessage', 'patternErrorMessage']);
for (const name of ['json-schema.schema.json', 'toolspec.schema.json', 'toolspec-include.schema.json']) {
  ajv.addSchema(read(name));
}
const at = (name: string) => ajv.getSchema(`https://toolspec.dev/schema/${name}`)!;
const editor = { main: at('toolspec.schema.json'), include: at('toolspec-include.schema.json') };
const inner = {
  input: at('json-schema.schema.json#/definitions/inputSchema'),
  output: at('json-schema.schema.json#/definitions/outputSchema'),
  shared: at('json-schema.schema.json#/definitions/sharedSchema'),
};

/** The official meta-schemas, as ajv bundles them. */
const official2020 = new Ajv2020.default({ allErrors: true, strict: false });
const official07 = new Ajv.default({ allErrors: true, strict: false });
addFormats.default(official2020);
addFormats.default(official07);

function spec(tool: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { toolspec: 1, server: { name: 's', version: '1.0.0' }, ...extra, tools: [{ name: 't', ...tool }] };
}

function errorsOf(v: ValidateFunction, data: unknown): ErrorObject[] {
  return v(data) ? [] : [...(v.errors ?? [])];
}

/** Where ajv's errors point (the offending key for an unknown one), as JSON pointers. */
function places(errors: ErrorObject[]): string[] {
  return errors
    .filter((e) => !['if', 'anyOf', 'allOf'].includes(e.keyword))
    .map((e) =>
      e.keyword === 'additionalProperties'
        ? `${e.instancePath}/${String(e.params['additionalProperty'])}`
        : e.instancePath,
    );
}

describe('the shipped schema compiles, and its JSON Schema layer is toolspec\u2019s own', () => {
  it('has the keywords of each dialect that toolspec reads, and no others (x-mcp-header aside)', () => {
    for (const [def, dialect] of [
      ['draft2020', '2020-12'],
      ['draft07', 'draft-07'],
    ] as const) {
      const keys = Object.keys(layer['definitions'][def]['properties']).filter((k) => k !== 'x-mcp-header');
      const why = `${def}: keep schema/json-schema.schema.json in step with KEYWORDS in src/schema/keywords.ts`;
      expect(keys.sort(), why).toEqual([...KEYWORDS[dialect]].sort());
      expect(layer['definitions'][def]['additionalProperties'], def).toBe(false);
      expect(Object.keys(layer['definitions'][def]['patternProperties']), def).toEqual(['^x-']);
    }
  });

  it('has the seven types and the formats toolspec validates', () => {
    const why = 'keep schema/json-schema.schema.json in step with src/schema/keywords.ts';
    expect(layer['definitions']['simpleTypes']['enum'], why).toEqual([...TYPES]);
    expect(layer['definitions']['keyword.format']['enum'], why).toEqual(FORMATS);
  });

  it('describes every keyword, for completion and hover', () => {
    const described = (name: string) => {
      const p =
        layer['definitions']['draft2020']['properties'][name] ?? layer['definitions']['draft07']['properties'][name];
      // A leaf keyword points at its shared definition, which carries the text; the others carry it themselves.
      const target = typeof p.$ref === 'string' ? layer['definitions'][p.$ref.split('/').pop()] : p;
      return typeof target.description === 'string' && target.description.length > 10;
    };
    for (const k of [...KEYWORDS['2020-12'], ...KEYWORDS['draft-07'], 'x-mcp-header'])
      expect(described(k), k).toBe(true);
  });

  it('is left out of the structure check, which reads the rest unchanged', () => {
    const main = read('toolspec.schema.json');
    const refs = JSON.stringify(main).match(/"json-schema\.schema\.json#[^"]*"/g) ?? [];
    expect(refs.sort()).toEqual([
      '"json-schema.schema.json#/definitions/inputSchema"',
      '"json-schema.schema.json#/definitions/outputSchema"',
      '"json-schema.schema.json#/definitions/sharedSchema"',
    ]);
    const stripped = JSON.stringify(withoutSchemaLayer(main));
    expect(stripped).not.toContain('json-schema.schema.json');
    expect(stripped.length).toBeLessThan(JSON.stringify(main).length);
  });
});

describe('inner schemas: what the editor flags', () => {
  const bad: { name: string; data: object; where: string }[] = [
    {
      name: 'type: strng in inputSchema',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'strng' } } } }),
      where: '/tools/0/inputSchema/properties/q/type',
    },
    {
      name: 'type: strng in outputSchema',
      data: spec({ inputSchema: { type: 'object' }, outputSchema: { type: 'strng' } }),
      where: '/tools/0/outputSchema/type',
    },
    {
      name: 'a type in a list',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: ['string', 'nul'] } } } }),
      where: '/tools/0/inputSchema/properties/q/type',
    },
    {
      name: 'minLenght (an unknown keyword)',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'string', minLenght: 1 } } } }),
      where: '/tools/0/inputSchema/properties/q/minLenght',
    },
    {
      name: 'an unknown keyword deep inside items and anyOf',
      data: spec({
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'array', items: { anyOf: [{ type: 'string' }, { typ: 'null' }] } } },
        },
      }),
      where: '/tools/0/inputSchema/properties/q/items/anyOf/1/typ',
    },
    {
      name: 'OpenAPI\u2019s nullable',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'string', nullable: true } } } }),
      where: '/tools/0/inputSchema/properties/q/nullable',
    },
    {
      name: 'an unknown format',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'string', format: 'emial' } } } }),
      where: '/tools/0/inputSchema/properties/q/format',
    },
    {
      name: 'a negative minLength',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: -1 } } } }),
      where: '/tools/0/inputSchema/properties/q/minLength',
    },
    {
      name: 'an empty enum',
      data: spec({ inputSchema: { type: 'object', properties: { q: { enum: [] } } } }),
      where: '/tools/0/inputSchema/properties/q/enum',
    },
    {
      name: 'required: true on a property',
      data: spec({ inputSchema: { type: 'object', properties: { q: { type: 'string', required: true } } } }),
      where: '/tools/0/inputSchema/properties/q/required',
    },
    {
      name: 'an inputSchema whose root is not an object',
      data: spec({ inputSchema: { type: 'array' } }),
      where: '/tools/0/inputSchema/type',
    },
    {
      name: 'an inputSchema without a type',
      data: spec({ inputSchema: { properties: {} } }),
      where: '/tools/0/inputSchema',
    },
    {
      name: 'a 2020-12 keyword in a draft-07 schema',
      data: spec({
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { q: { type: 'array', prefixItems: [{ type: 'string' }] } },
        },
      }),
      where: '/tools/0/inputSchema/properties/q/prefixItems',
    },
    {
      name: 'a draft-07 keyword in a 2020-12 schema',
      data: spec({
        inputSchema: { type: 'object', properties: { q: { type: 'object', dependencies: { a: ['b'] } } } },
      }),
      where: '/tools/0/inputSchema/properties/q/dependencies',
    },
    {
      name: 'an unsupported dialect',
      data: spec({ inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }),
      where: '/tools/0/inputSchema/$schema',
    },
    {
      name: 'a mistake in a tool\u2019s own $defs',
      data: spec({ inputSchema: { type: 'object', $defs: { Q: { type: 'strng' } } } }),
      where: '/tools/0/inputSchema/$defs/Q/type',
    },
    {
      name: 'a mistake in a shared $def',
      data: spec(
        { inputSchema: { type: 'object', properties: { hit: { $ref: '#/$defs/Hit' } } } },
        { $defs: { Hit: { type: 'object', maxLenght: 3 } } },
      ),
      where: '/$defs/Hit/maxLenght',
    },
  ];

  for (const c of bad) {
    it(`flags ${c.name}, where it is, and toolspec validate rejects it too`, async () => {
      const errors = errorsOf(editor.main, c.data);
      expect(places(errors)).toContain(c.where);
      // Every place flagged is inside the mistake's schema: one mistake, not a cascade over the spec.
      for (const p of places(errors)) expect(c.where.startsWith(p) || p.startsWith(c.where), p).toBe(true);
      const p = tempProject({ 'toolspec.yaml': JSON.stringify(c.data) });
      try {
        const r = await runMain(['validate'], p.dir);
        expect(r.code, r.stderr).toBe(2);
      } finally {
        p.cleanup();
      }
    });
  }

  const good: { name: string; data: object }[] = [
    {
      name: 'draft-07 keywords under a draft-07 $schema (http, with or without #)',
      data: spec({
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema',
          type: 'object',
          properties: {
            a: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
            b: { type: 'object', dependencies: { x: ['y'], z: { required: ['w'] } } },
          },
        },
      }),
    },
    {
      name: '2020-12 keywords, with the $schema written out',
      data: spec({
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { a: { type: 'array', prefixItems: [{ type: 'string' }], items: false, minContains: 0 } },
          dependentRequired: { a: ['b'] },
          unevaluatedProperties: false,
        },
      }),
    },
    {
      name: 'extension keywords and x-mcp-header',
      data: spec({
        inputSchema: {
          type: 'object',
          'x-internal': { any: 'thing' },
          properties: { region: { type: 'string', 'x-mcp-header': 'Region', 'x-note': 1 } },
        },
      }),
    },
    {
      name: 'boolean subschemas, a type list, property names that are keywords',
      data: spec({
        inputSchema: {
          type: ['object'],
          properties: { type: { type: ['string', 'null'] }, properties: true, items: false },
          additionalProperties: false,
        },
        outputSchema: { type: 'array', items: { $ref: '#/$defs/Hit' } },
      }),
    },
    {
      name: 'a shared $def that uses a draft-07 keyword (its dialect is that of the tools using it)',
      data: spec(
        {
          inputSchema: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { d: { $ref: '#/$defs/D' } },
          },
        },
        { $defs: { D: { type: 'object', dependencies: { a: ['b'] } }, B: true } },
      ),
    },
  ];
  for (const c of good) {
    it(`accepts ${c.name}`, () => {
      expect(errorsOf(editor.main, c.data)).toEqual([]);
    });
  }

  it('while toolspec validate reports each of them once, with its own code (the structure check leaves them out)', () => {
    const data = spec(
      {
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'strng', minLenght: 1 }, e: { type: 'string', format: 'emial' } },
        },
        outputSchema: { type: 'object', $defs: { L: { type: 'intger' } } },
      },
      { $defs: { Hit: { type: 'object', maxLenght: 3 } } },
    );
    const p = tempProject({ 'toolspec.yaml': JSON.stringify(data, null, 1) });
    try {
      const r = loadModel('toolspec.yaml', { cwd: p.dir });
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      expect(errors.map((d) => `${d.code} ${d.line}`).sort()).toEqual(
        [
          ['TS022', '"strng"'],
          ['TS021', '"minLenght"'],
          ['TS032', '"emial"'],
          ['TS022', '"intger"'],
        ]
          .map(
            ([code, needle]) =>
              `${code} ${
                JSON.stringify(data, null, 1)
                  .split('\n')
                  .findIndex((l) => l.includes(needle!)) + 1
              }`,
          )
          .sort(),
      );
    } finally {
      p.cleanup();
    }
  });

  it('leaves required naming an undefined property to toolspec validate (JSON Schema cannot compare the two)', async () => {
    const data = spec({ inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['txt'] } });
    expect(errorsOf(editor.main, data)).toEqual([]);
    const p = tempProject({ 'toolspec.yaml': JSON.stringify(data) });
    try {
      const r = await runMain(['validate'], p.dir);
      expect(r.stderr + r.stdout).toContain('"txt" is listed in "required" but not defined under "properties"');
    } finally {
      p.cleanup();
    }
  });
});

describe('the editor layer is as strict as the official meta-schemas, keyword by keyword', () => {
  // One keyword at a time, with values the official meta-schemas reject and values they accept. (The format of
  // $ref and $id is not checked by the layer: toolspec validate resolves every $ref itself, with better words.)
  const samples: Record<string, unknown[]> = {
    type: ['strng', [], ['string', 'string'], 1, ['string', 'null'], 'integer'],
    minLength: [-1, 1.5, '1', 0, 3],
    maxItems: [-2, 'x', 4],
    multipleOf: [0, -1, 'x', 0.5],
    minimum: ['0', 0, -3.5],
    required: ['a', ['a', 'a'], [1], [], ['a']],
    enum: [3, [1, 'a']],
    pattern: [5, '(', '^a+$'],
    format: [3],
    uniqueItems: ['yes', true],
    readOnly: [1, false],
    examples: [1, [1, 2]],
    title: [1, 'x'],
    $ref: [1, '#/$defs/A'],
    $id: [1],
    $comment: [1, 'c'],
    items: [[], 1, { type: 'strng' }, true, { type: 'string' }],
    properties: [1, [], { a: 1 }, { a: { type: 'x' } }, { a: true, b: { type: 'string' } }],
    patternProperties: [{ '(': {} }, { '^a': { minLength: -1 } }, { '^a': {} }],
    additionalProperties: [1, { type: 'x' }, false, { type: 'string' }],
    allOf: [[], {}, [{ type: 'x' }], [true, { type: 'string' }]],
    anyOf: [[], [1]],
    oneOf: [[{ minLength: -1 }]],
    not: [1, { type: 'x' }, {}],
    if: [1, true],
    contains: ['x', { minimum: 1 }],
    propertyNames: [1, { maxLength: 3 }],
    $defs: [1, { A: 1 }, { A: { type: 'x' } }, { A: {} }],
    definitions: [{ A: 1 }, { A: {} }],
  };
  const only2020: Record<string, unknown[]> = {
    prefixItems: [[], 1, [{ type: 'x' }], [{}]],
    $anchor: ['1a', 1, 'a1'],
    $dynamicAnchor: ['#x', 'meta'],
    $vocabulary: [{ 'https://x.y/z': 1 }, { 'https://x.y/z': true }],
    dependentRequired: [{ a: [1] }, { a: 'b' }, { a: ['b'] }],
    dependentSchemas: [{ a: 1 }, { a: { type: 'x' } }, { a: {} }],
    minContains: [-1, 0],
    unevaluatedProperties: [1, { type: 'x' }, false],
    contentSchema: [1, {}],
    deprecated: ['no', true],
  };
  const only07: Record<string, unknown[]> = {
    items: [[{ type: 'string' }], [1]],
    additionalItems: [1, false],
    dependencies: [{ a: 1 }, { a: ['b', 'b'] }, { a: ['b'] }, { a: { required: ['b'] } }],
  };

  const check = (dialect: '2020-12' | 'draft-07', table: Record<string, unknown[]>) => {
    const official = dialect === '2020-12' ? official2020 : official07;
    const $schema =
      dialect === '2020-12'
        ? 'https://json-schema.org/draft/2020-12/schema'
        : 'http://json-schema.org/draft-07/schema#';
    for (const [keyword, values] of Object.entries(table)) {
      for (const value of values) {
        const schema = { $schema, type: 'object', properties: { p: { [keyword]: value } } };
        const officialOk = official.validateSchema(schema) as boolean;
        const editorOk = errorsOf(inner.input, schema).length === 0;
        // The editor is as strict as the official meta-schema, and stricter only where toolspec is too.
        if (!officialOk) expect(editorOk, `${dialect} ${keyword}: ${JSON.stringify(value)}`).toBe(false);
      }
    }
  };
  it('2020-12', () => check('2020-12', { ...samples, ...only2020 }));
  it('draft-07', () => check('draft-07', { ...samples, ...only07 }));

  it('and rejects a keyword of the other dialect', () => {
    const s2020 = { type: 'object', properties: { p: { dependencies: { a: ['b'] } } } };
    const s07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { p: { prefixItems: [{}] } },
    };
    expect(errorsOf(inner.input, s2020)).not.toEqual([]);
    expect(errorsOf(inner.input, s07)).not.toEqual([]);
    expect(errorsOf(inner.output, { type: 'string', minLenght: 1 })).not.toEqual([]);
    expect(errorsOf(inner.shared, { type: 'strng' })).not.toEqual([]);
  });
});

/** The spec files under a folder: every .yaml whose top level has `toolspec:` (includes are reached from them). */
function specsUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml') && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.join(dir, f))
    .filter((f) => {
      try {
        const v = parse(fs.readFileSync(f, 'utf8')) as unknown;
        return typeof v === 'object' && v !== null && 'toolspec' in v;
      } catch {
        return false;
      }
    })
    .sort();
}

/** Each file of a spec (main first) with the lines the editor schema flags in it. */
function editorFindings(specPath: string): { file: SourceFile; lines: number[] }[] {
  const raw = loadSpec(path.basename(specPath), new Diagnostics(), { cwd: path.dirname(specPath) });
  if (!raw) return [];
  return raw.files.map((file, i) => {
    const errors = errorsOf(i === 0 ? editor.main : editor.include, file.value);
    const lines = errors
      .filter((e) => !['if', 'anyOf', 'allOf'].includes(e.keyword))
      .map((e) => {
        const p = pointerToPath(e.instancePath, file.value);
        if (e.keyword === 'additionalProperties')
          return file.locate([...p, String(e.params['additionalProperty'])], { key: true }).line;
        return file.locate(p, { key: e.keyword === 'required' }).line;
      });
    return { file, lines };
  });
}

/** Codes of the mistakes inside a schema, which the editor layer exists to show. */
const SCHEMA_CODES = new Set(['TS020', 'TS021', 'TS022', 'TS023', 'TS024', 'TS032']);

describe('the editor and toolspec validate agree on every spec in the repository', () => {
  const valid = [...specsUnder(path.join(repoRoot, 'specs')), ...specsUnder(path.join(repoRoot, 'test', 'fixtures'))]
    .filter((f) => !f.includes(`${path.sep}invalid${path.sep}`))
    .filter((f) => loadModel(path.basename(f), { cwd: path.dirname(f) }).model);

  it('has a corpus of valid specs', () => {
    expect(valid.length).toBeGreaterThanOrEqual(40);
  });

  it('flags nothing in a spec toolspec accepts', () => {
    for (const f of valid) {
      for (const { file, lines } of editorFindings(f))
        expect(lines, path.relative(repoRoot, path.join(path.dirname(f), file.displayPath))).toEqual([]);
    }
  });

  const invalidRoot = path.join(repoRoot, 'test', 'fixtures', 'invalid');
  const invalid = fs
    .readdirSync(invalidRoot)
    .map((d) => path.join(invalidRoot, d, 'toolspec.yaml'))
    .filter((f) => fs.existsSync(f));

  it('flags, on the same line, every schema mistake toolspec validate reports (golden corpus)', () => {
    let compared = 0;
    for (const f of invalid) {
      const result = loadModel('toolspec.yaml', { cwd: path.dirname(f) });
      const mistakes = result.diagnostics.filter((d) => d.severity === 'error' && SCHEMA_CODES.has(d.code));
      if (!mistakes.length) continue;
      const findings = editorFindings(f);
      for (const d of mistakes) {
        const flagged = findings.find((x) => x.file.displayPath === d.file)?.lines ?? [];
        expect(flagged, `${path.basename(path.dirname(f))}: ${d.code} at ${d.file}:${d.line}`).toContain(d.line);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(20);
  });
});
