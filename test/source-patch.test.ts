/**
 * Watch and dev re-parse, after an edit inside one tool, only that tool (SourceFile.patched). A patched file must be
 * indistinguishable from a whole parse of the same text: the same data, the same diagnostics, and the same place
 * for every key and value of it. Held over a series of edits, block and flow (JSON) YAML alike, including edits a
 * patch must refuse (syntax errors, anchors, edits across tools, indentation that reads otherwise in the file).
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  keptFile,
  parsedFile,
  SourceFile,
  startParsing,
  type JsonPath,
  type KeptParse,
  type ParseStore,
} from '../src/load/source.js';

const spec = {
  toolspec: 1,
  server: { name: 'notes', version: '1.0.0' },
  tools: Array.from({ length: 6 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i}: does one thing well.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 10 + i, description: 'What to look for.' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['query'],
    },
  })),
  options: { generatedDir: 'src/generated' },
};

/** Every JSON path of a value, keys and values. */
function paths(value: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

/** What a load can see of a file: data, diagnostics, the place of every path (as a value and as a key). */
function seen(file: SourceFile) {
  return {
    value: file.value,
    diagnostics: file.diagnostics,
    places: paths(file.value).map((p) => [file.locate(p), file.locate(p, { key: true })]),
  };
}

type Edit = (text: string) => string;

/** Applies the edits one after another; after each, the file as watch parses it must be the whole parse's. */
function follow(text: string, edits: Edit[]): { patched: number } {
  const name = `spec-${Math.random()}.yaml`;
  startParsing();
  let file = parsedFile(name, text, `/x/${name}`);
  let patched = 0;
  for (const edit of edits) {
    text = edit(text);
    startParsing();
    const next = parsedFile(name, text, `/x/${name}`);
    if (next.generation > file.generation) patched++;
    expect(seen(next)).toEqual(seen(new SourceFile(name, text, `/x/${name}`)));
    file = next;
  }
  return { patched };
}

const nth = (text: string, find: string, n: number) => {
  let at = -1;
  for (let i = 0; i <= n; i++) at = text.indexOf(find, at + 1);
  return at;
};
const replaceNth =
  (find: string, n: number, by: string): Edit =>
  (t) => {
    const at = nth(t, find, n);
    return at < 0 ? t : t.slice(0, at) + by + t.slice(at + find.length);
  };

const EDITS: Edit[] = [
  replaceNth('does one thing well', 2, 'does two things well'), // a description
  replaceNth('maxLength: 12', 0, 'maxLength: 120'), // a bound, longer
  replaceNth('maxLength: 11', 0, 'maxLength: 9'), // shorter
  replaceNth('What to look for.', 4, 'What to look for, in full.'),
  replaceNth('does one thing well', 5, 'does one thing'), // the last tool
  replaceNth('does one thing well', 0, 'first'), // the first tool
  replaceNth('What to look for.', 1, 'What: to look for.'), // a syntax error in block YAML
  replaceNth('What: to look for.', 0, 'What to look for.'), // fixed again
  replaceNth('tool_3', 0, 'tool_3x'), // a name
  replaceNth('notes', 0, 'notes2'), // outside the tools: parsed whole
  replaceNth('Tool number 1', 0, 'Tool number 1 &anchor'), // text that looks like an anchor
  replaceNth('tool_2', 0, 'tool_two'),
];

describe('a file patched after an edit inside one tool', () => {
  it('is the whole parse, in block YAML', () => {
    const { patched } = follow(stringify(spec), EDITS);
    expect(patched).toBeGreaterThanOrEqual(6);
  });

  it('is the whole parse, in flow YAML (JSON)', () => {
    const { patched } = follow(JSON.stringify(spec, null, 1), EDITS);
    expect(patched).toBeGreaterThanOrEqual(6);
  });

  it('is refused where a whole parse must judge: edits across tools, a new tool, less indentation, anchors', () => {
    const text = stringify(spec);
    const refused: Edit[] = [
      (t) => t.replace('      description: What to look for.\n', '      description: What to\n  look for.\n'),
      (t) =>
        t.replace(
          '  - name: tool_4',
          '  - name: tool_4b\n    description: new\n    inputSchema: { type: object }\n  - name: tool_4',
        ),
      (t) => t.replace(/does one thing well\.\n(\s+)inputSchema:/, 'x.\n$1inputSchema: &shared'),
      (t) => t.replace('Tool number 3', 'Three').replace('Tool number 4', 'Four'),
    ];
    for (const edit of refused) {
      const name = `spec-${Math.random()}.yaml`;
      startParsing();
      parsedFile(name, text, name);
      startParsing();
      const next = parsedFile(name, edit(text), name);
      expect(next.generation, String(refused.indexOf(edit))).toBe(0);
      expect(seen(next)).toEqual(seen(new SourceFile(name, edit(text), name)));
    }
  });

  it('is kept between processes: restored, it is the whole parse, and an edit since patches it', () => {
    for (const text of [stringify(spec), JSON.stringify(spec, null, 1)]) {
      const kept = new Map<string, unknown>();
      const store: ParseStore = { get: (p) => kept.get(p), put: (p, k) => void kept.set(p, k) };
      const abs = `/x/kept-${Math.random()}.yaml`;
      startParsing();
      parsedFile('spec.yaml', text, abs, store);
      const restored = keptFile('spec.yaml', abs, JSON.parse(JSON.stringify(kept.get(abs))));
      expect(seen(restored!)).toEqual(seen(new SourceFile('spec.yaml', text, abs)));
      // A later process, after an edit inside one tool: the kept parse, patched.
      for (const edit of EDITS.slice(0, 6)) {
        const after = edit(restored!.text);
        if (after === restored!.text) continue; // an edit written for the other style
        const patched = restored!.patched(after);
        expect(patched?.generation).toBe(1);
        expect(seen(patched!)).toEqual(seen(new SourceFile('spec.yaml', after, abs)));
      }
    }
  });

  it('is taken from the store as it is when the text is the same, and kept again after an edit', () => {
    const text = stringify(spec);
    const abs = `/x/store-${Math.random()}.yaml`;
    const kept = new Map<string, unknown>();
    const store: ParseStore = { get: (p) => kept.get(p), put: (p, k) => void kept.set(p, k) };
    startParsing();
    parsedFile('a.yaml', text, abs, store);
    // Another display path: not this process's parse, so the store's (here altered, to tell it apart) is used.
    (kept.get(abs) as KeptParse & { value: { server: { name: string } } }).value.server.name = 'from the store';
    startParsing();
    const again = parsedFile('b.yaml', text, abs, store);
    expect((again.value as { server: { name: string } }).server.name).toBe('from the store');
    // After an edit, what is kept is the new text's parse.
    (kept.get(abs) as KeptParse & { value: { server: { name: string } } }).value.server.name = 'notes';
    const edited = EDITS[0]!(text);
    startParsing();
    parsedFile('c.yaml', edited, abs, store);
    expect((kept.get(abs) as KeptParse).text).toBe(edited);
    expect(seen(keptFile('c.yaml', abs, kept.get(abs))!)).toEqual(seen(new SourceFile('c.yaml', edited, abs)));
  });
});
