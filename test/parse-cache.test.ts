/**
 * A whole parse kept in generate's cache by the file's text (src/pipeline/load/source.ts, parsedFile) must be the parse: the
 * same data, the same diagnostics (it is kept only when there are none) and the same place for every JSON path,
 * key or value, present or not. Held on drawn YAML in block and flow styles, with comments, directives, CRLF, a
 * byte order mark, tags and anchors (the last two are never kept), and through a load: a spec loaded with a filled
 * cache gives the same model and diagnostics as one loaded without.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { keptAgain, parsedFile, SourceFile, startParsing, type JsonPath } from '../src/pipeline/load/source.js';
import { loadModel } from '../src/compile.js';
import { repoRoot } from './helpers/cli.js';
import { memoryStore } from './helpers/store.js';

/** What parsedFile keeps of a file in the cache (its "parse" entry). */
function keptJson(file: SourceFile): string {
  let json = '';
  forget();
  parsedFile(file.displayPath, file.text, file.absPath, { get: () => undefined, put: (_k, _i, v) => void (json = v) });
  return json;
}

/** Every JSON path into a value, and one past each leaf (a path that does not exist in full). */
function paths(value: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at, [...at, 'missing']];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a later stage can see of a file: its data, diagnostics and every place. */
function seen(file: SourceFile) {
  return {
    value: file.value,
    diagnostics: file.diagnostics,
    places: paths(file.value).map((p) => [file.locate(p), file.locate(p, { key: true })]),
    spans: [0, file.text.length >> 1, file.text.length].map((at) => file.spanOf(at, at + 1)),
    // The mappings of each top-level list (how lint finds a tool's mapping), and of a key that is not there.
    lists: [...Object.keys(isObject(file.value) ? file.value : {}), 'missing'].map((k) => file.listItems(k)),
  };
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('yes', 'no', 'y', 'on', '0755', '1e3', '~', 'null', '- x', 'a: b', '#c', '"q"', "it's", '権限', '\t'),
);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const data = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value;

const yamlText = fc
  .record({
    value: fc.dictionary(text, data, { minKeys: 1, maxKeys: 5 }),
    flow: fc.boolean(),
    comments: fc.boolean(),
    directive: fc.constantFrom('', '%YAML 1.1\n---\n', '%YAML 1.2\n---\n'),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    extra: fc.constantFrom('', 'tagged: !!str 12\n', 'anchored: &a [1]\nalias: *a\n'),
  })
  .map((d) => {
    let t = YAML.stringify(d.value, { collectionStyle: d.flow ? 'flow' : 'block', lineWidth: 0 });
    if (d.comments) t = t.replace(/\n/g, ' # note\n').replace(/: # note\n/g, ':\n');
    t = `${d.directive}${t}${d.extra}`;
    if (d.crlf) t = t.replace(/\n/g, '\r\n');
    return d.bom ? `\uFEFF${t}` : t;
  });

describe('a parse kept by its text', () => {
  it('is the whole parse: data, diagnostics and every place, or is not kept', () => {
    let kept = 0;
    let withLists = 0;
    fc.assert(
      fc.property(yamlText, (t) => {
        const whole = new SourceFile('spec.yaml', t, '/x/spec.yaml');
        const again = keptAgain(whole);
        if (!again) return;
        kept++;
        expect(whole.diagnostics).toEqual([]);
        const places = seen(again);
        expect(places).toEqual(seen(whole));
        if (places.lists.some((l) => l.length)) withLists++;
        expect(Object.is(again.value, whole.value) || typeof whole.value === 'object').toBe(true);
      }),
      { numRuns: 400, seed: 23 },
    );
    expect(kept).toBeGreaterThan(100);
    expect(withLists).toBeGreaterThan(20);
  });

  it('is the whole parse for keys without values, empty documents and nested lists', () => {
    let kept = 0;
    for (const t of ['a: { b }\n', 'a:\n', '? x\n', '', '# only a comment\n', 'tools:\n  - [1]\n  - a: 1\n  -\n']) {
      const whole = new SourceFile('spec.yaml', t, '/x/spec.yaml');
      const again = keptAgain(whole);
      if (!again) continue;
      kept++;
      expect(seen(again), JSON.stringify(t)).toEqual(seen(whole));
      expect(again.locate(['a', 'b'], { key: true }), JSON.stringify(t)).toEqual(
        whole.locate(['a', 'b'], { key: true }),
      );
      expect(again.locate(['a', 'b']), JSON.stringify(t)).toEqual(whole.locate(['a', 'b']));
    }
    expect(kept).toBeGreaterThan(3);
  });

  it('with a tree that is not what was kept, takes its places from the whole parse', () => {
    const t = 'tools:\n  - name: a\n    description: "x"\n';
    const whole = new SourceFile('spec.yaml', t, '/x/spec.yaml');
    const kept = JSON.parse(keptJson(whole)) as { tree: unknown[] };
    for (const tree of [['m', 0, 1, t.length + 5, []], ['q', 0, 1, 2, []], 'nonsense']) {
      forget();
      const store = { get: () => JSON.stringify({ ...kept, tree }), put: () => {} };
      const file = parsedFile('spec.yaml', t, '/x/spec.yaml', store);
      expect(seen(file)).toEqual(seen(whole));
    }
  });

  it('is never made of a file with an anchor, an alias, a tag, a diagnostic or data JSON cannot hold', () => {
    for (const t of [
      'a: &x [1]\nb: *x\n',
      'a: !!str 1\n',
      'a: 1\na: 2\n',
      'a: [1\n',
      'a: -0\n',
      '%YAML 1.1\n---\nd: 2001-12-14\n',
    ]) {
      expect(keptAgain(new SourceFile('s.yaml', t)), JSON.stringify(t)).toBeUndefined();
    }
  });
});

/** Empties this process's memo of the last loads' parses. */
const forget = () => {
  startParsing();
  startParsing();
};

describe('a load with whole parses kept', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-parse-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives the model and diagnostics of a load without, on every spec in the repository', () => {
    const store = memoryStore();
    const specs = ['specs/docs/toolspec.yaml', 'specs/todo/toolspec.yaml', 'specs/conformance/toolspec.yaml'];
    for (const f of fs.readdirSync(path.join(repoRoot, 'test/fixtures/invalid'))) {
      const spec = `test/fixtures/invalid/${f}/toolspec.yaml`;
      if (fs.existsSync(path.join(repoRoot, spec))) specs.push(spec);
    }
    expect(specs.length).toBeGreaterThan(40);
    for (const spec of specs) {
      const plain = loadModel(path.join(repoRoot, spec), { cwd: repoRoot });
      // Filled by the first load, used by the second as another process would: this one's own memo of parses
      // (the last load's files) emptied first.
      forget();
      loadModel(path.join(repoRoot, spec), { cwd: repoRoot, cache: store });
      forget();
      const cached = loadModel(path.join(repoRoot, spec), { cwd: repoRoot, cache: store });
      expect(cached.diagnostics, spec).toEqual(plain.diagnostics);
      expect(cached.model, spec).toEqual(plain.model);
    }
    expect(store.kept.size).toBeGreaterThan(3);
  });

  it('%YAML 1.1: an edit of one description gives what a fresh load gives', () => {
    const spec = (description: string) => `%YAML 1.1
---
toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: pick
    description: ${description}
    inputSchema:
      type: object
      properties:
        flag: { type: boolean, default: yes }
        mode: { type: integer, default: 0755 }
`;
    const cache = memoryStore();
    const file = path.join(dir, 'toolspec.yaml');
    fs.writeFileSync(file, spec('Pick one of the modes and return it.'));
    forget();
    const first = loadModel(file, { cwd: dir, cache });
    expect(first.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    fs.writeFileSync(file, spec('Pick one of the modes and return it, edited.'));
    forget();
    const edited = loadModel(file, { cwd: dir, cache });
    const fresh = loadModel(file, { cwd: dir });
    expect(edited.diagnostics).toEqual(fresh.diagnostics);
    expect(edited.model).toEqual(fresh.model);
    const schema = fresh.model!.tools[0]!.input.schema as { properties: Record<string, { default: unknown }> };
    expect(schema.properties['flag']!.default).toBe(true);
    expect(schema.properties['mode']!.default).toBe(493);
  });
});
