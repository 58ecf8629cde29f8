/**
 * Injection corpus: a spec whose every text field, property name, enum value, default, const, example and $defs
 * name holds something that would break out of a comment, a string or a template if it were pasted into code
 * (test/fixtures/injection/toolspec.yaml). What must hold:
 * - validate accepts it, generate writes it, and everything compiles under strict TypeScript in one program;
 * - manifest.json is the tools exactly as written, byte for byte (U+2028, NUL, 10,000-character lines included);
 * - no text becomes code: every marker sits in a string literal, a template literal's text or a comment, and
 *   importing, listing and calling the generated server leaves globalThis.__pwned undefined;
 * - the contract types odd argument names (`__proto__`, `constructor`, `""`, …) as declared, and the dispatcher
 *   validates them: valid values accepted, invalid ones rejected naming the argument.
 * Names toolspec refuses get a diagnostic (refused/), and specs that once crashed generate are kept as cases.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import ts from 'typescript';
import { parse } from 'yaml';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/cli.js';
import { compile, scratchCopy, specFiles, tsFiles } from './helpers/project.js';
import { runMain, type InProcessRun } from './fuzz/damage-cli.js';

const FIXTURES = path.join(repoRoot, 'test/fixtures/injection');
const MARKER = /__pwned/g;

type Json = Record<string, unknown>;
interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}
interface Dispatcher {
  listTools(cursor?: string): { tools: Json[] };
  callTool(name: string, args: unknown, sdk: never, connection: never): Promise<CallResult>;
}

const pwned = () => (globalThis as { __pwned?: unknown }).__pwned;
const textOf = (r: CallResult) => r.content.map((c) => c.text ?? '').join('');
/** An object with `name` as an own property, whatever the name (also `__proto__`), as JSON.parse makes it. */
const withArg = (base: Json, name: string, value: unknown): Json => {
  const copy = JSON.parse(JSON.stringify(base)) as Json;
  Object.defineProperty(copy, name, { value, enumerable: true, writable: true, configurable: true });
  return copy;
};
const without = (base: Json, name: string): Json => {
  const copy = JSON.parse(JSON.stringify(base)) as Json;
  delete copy[name];
  return copy;
};

const project = scratchCopy(FIXTURES, 'injection');
const src = path.join(project.dir, 'src');
const dist = path.join(project.dir, 'dist');
const load = async <T>(rel: string) => (await import(pathToFileURL(path.join(dist, rel)).href)) as T;
let validateRun: InProcessRun;
let generateRun: InProcessRun;
let compileErrors: string[];
/** A copy of the odd_props handler with three `checks` entries changed and bound to another tool: must not compile. */
const WRONG = 'handlers/odd_props_wrong.ts';
let wrongText: string;

beforeAll(async () => {
  delete (globalThis as { __pwned?: unknown }).__pwned;
  validateRun = await runMain(['validate', 'toolspec.yaml'], project.dir);
  generateRun = await runMain(['generate', 'toolspec.yaml'], project.dir);
  wrongText = fs
    .readFileSync(path.join(src, 'handlers/odd_props.ts'), 'utf8')
    .replace("Equal<Args['__proto__'], string>", "Equal<Args['__proto__'], number>")
    .replace("Equal<Args[''], boolean>", "Equal<Args[''], string>")
    .replace("Equal<Args['toString'], boolean | undefined>", "Equal<Args['toString'], () => string>")
    .replace("Handler<'odd_props'>", "Handler<'constructor'>");
  fs.writeFileSync(path.join(src, WRONG), wrongText);
  // The generated folder, the generated stubs, the typed handlers of the fixture and the wrong copy, in one strict
  // program (the SDK's declarations checked once): the wrong copy's errors are its test's.
  compileErrors = fs.existsSync(path.join(src, 'generated'))
    ? compile(tsFiles(src), { outDir: dist, rootDir: src })
    : ['nothing generated'];
}, 180_000);
afterAll(() => project.cleanup());

describe('injection corpus: validate, generate, compile', () => {
  it('validate accepts the corpus with no error', () => {
    expect(validateRun.stderr).not.toMatch(/ error /);
    expect(validateRun.stdout).toMatch(/is valid: 7 tools in 1 file/);
    expect(validateRun.code).toBe(0);
  });

  it('generate writes it and everything compiles under strict TypeScript in one program', () => {
    expect(generateRun.stderr).not.toMatch(/ error /);
    expect(generateRun.code).toBe(0);
    expect(compileErrors.filter((e) => !e.includes('odd_props_wrong.ts:'))).toEqual([]);
  });
});

describe('injection corpus: text stays data', () => {
  it('manifest.json holds the tools exactly as written in the spec', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(src, 'generated/manifest.json'), 'utf8')) as {
      tools: Json[];
    };
    const expected = expectedTools(fs.readFileSync(path.join(FIXTURES, 'toolspec.yaml'), 'utf8'));
    expect(manifest.tools).toEqual(expected);
    // The sharpest bytes, spelled out: toEqual compares strings exactly, these make the intent readable.
    const [odd, payloads] = manifest.tools as [Json, Json];
    expect(payloads['description']).toContain('\u2028globalThis.__pwned = 1; \u2029');
    expect(payloads['description']).toContain(' \0 #! ');
    expect(payloads['description']).toContain('\r\nglobalThis');
    const props = (odd['inputSchema'] as Json)['properties'] as Json;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining(['__proto__', 'constructor', '', '\0', '\u2028globalThis.__pwned = 1;//']),
    );
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    const long = manifest.tools.find((t) => t['name'] === 'long_lines')!;
    expect(long['description']).toHaveLength(9980 + ' */ __pwned_long'.length);
    expect(manifest.tools.map((t) => t['name'])).toEqual([
      'odd_props',
      'payloads',
      'constructor',
      '__proto__',
      'toString',
      '.hidden',
      'long_lines',
    ]);
  });

  it("every marker in generated code sits in a string literal, a template literal's text or a comment", () => {
    const files = [...tsFiles(src), ...jsFiles(dist)];
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((f) => markersOutsideData(f));
    expect(offenders).toEqual([]);
  });

  it('the marker check itself finds a marker that escaped into code', () => {
    const probe = path.join(project.dir, 'probe.ts');
    fs.writeFileSync(
      probe,
      "const a = '__pwned */';\n// a line comment\u2028globalThis.__pwned = 1;\n/* __pwned */ `${globalThis.__pwned}` + a;\n",
    );
    try {
      expect(markersOutsideData(probe).map((o) => o.split(' ')[0])).toEqual(['probe.ts:3:12', 'probe.ts:4:29']);
    } finally {
      fs.rmSync(probe);
    }
  });

  it('generated files hold no raw control characters (they stay text for git, diff and terminals)', () => {
    const generated = [...tsFiles(path.join(src, 'generated')), path.join(src, 'generated/manifest.json')];
    const stubs = ['constructor', 'toString', '.hidden', 'long_lines'].map((t) =>
      path.join(src, 'handlers', `${t}.ts`),
    );
    const found = [...generated, ...stubs].flatMap((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return [...text.matchAll(/[\0-\x08\x0b-\x1f\x7f]/g)].map(
        (m) =>
          `${path.relative(project.dir, f)}:${lineOf(text, m.index)} U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    });
    expect(found).toEqual([]);
  });

  it('importing every generated module, listing and calling every tool runs none of the text', async () => {
    // main.js serves stdio on import; examples.test.js registers vitest suites on import (test/e2e/examples.test.ts runs
    // such files, hostile example text included, in a vitest of their own).
    const modules = jsFiles(path.join(dist, 'generated')).filter(
      (f) => !['main.js', 'examples.test.js'].includes(path.basename(f)),
    );
    expect(modules.length).toBeGreaterThan(8);
    const handlerModules = jsFiles(path.join(dist, 'handlers')).filter((f) => !f.endsWith('odd_props_wrong.js'));
    for (const m of [...modules, ...handlerModules]) await import(pathToFileURL(m).href);

    type Factory = (ctx: { era: 'legacy' }) => { connect(t: unknown): Promise<void>; close(): Promise<void> };
    const { createServerFactory } = await load<{ createServerFactory: (h: unknown, o?: unknown) => Factory }>(
      'generated/server.js',
    );
    const { handlers } = await load<{ handlers: unknown }>('generated/registry.js');
    const { tools } = await load<{ tools: Json[] }>('generated/manifest.js');
    const failures: unknown[] = [];
    const server = createServerFactory(handlers, { onError: (e: unknown) => failures.push(e) })({ era: 'legacy' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'injection-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const spec = parse(fs.readFileSync(path.join(FIXTURES, 'toolspec.yaml'), 'utf8')) as { server: Json };
      expect(client.getInstructions()).toBe(spec.server['instructions']);
      expect(client.getServerVersion()).toMatchObject({ name: spec.server['name'], title: spec.server['title'] });
      // A raw request: the SDK client's own result schema would re-parse the tools; this is the server's answer.
      const listed = (await client.request({ method: 'tools/list' }, z.any())) as { tools: Json[] };
      expect(listed.tools).toEqual(tools);
      // Each call reaches the tool's own handler module: the stubs say so (a tool named constructor or toString
      // must not resolve to Object.prototype's member).
      const stubs = new Set(['constructor', 'toString', '.hidden', 'long_lines']);
      for (const t of tools) {
        const name = t['name'] as string;
        const r = (await client.request(
          { method: 'tools/call', params: { name, arguments: {} } },
          z.any(),
        )) as CallResult;
        expect(r.content.length, name).toBeGreaterThan(0);
        if (stubs.has(name))
          expect(textOf(r)).toBe(`${name} is not implemented yet: write it in src/handlers/${name}.ts`);
      }
      const payload = (await client.request(
        {
          method: 'tools/call',
          params: { name: 'payloads', arguments: { mode: '`', text: '${globalThis.__pwned = 1}' } },
        },
        z.any(),
      )) as CallResult;
      expect(payload.isError).toBeUndefined();
      expect(JSON.parse(payload.structuredContent!['echo'] as string)).toMatchObject({
        mode: '`',
        text: '${globalThis.__pwned = 1}',
      });
    } finally {
      await client.close();
      await server.close();
    }
    expect(failures, 'handlers that failed other than by ToolError').toEqual([]);
    expect(pwned()).toBeUndefined();
  });

  it('schema defaults that hold payloads reach the handler as plain text', async () => {
    const r = await call('payloads', {});
    expect(r.isError).toBeUndefined();
    const fixture = parse(fs.readFileSync(path.join(FIXTURES, 'toolspec.yaml'), 'utf8')) as { tools: Json[] };
    const props = (fixture.tools[1]!['inputSchema'] as Json)['properties'] as Record<string, Json>;
    expect(JSON.parse(r.structuredContent!['echo'] as string)).toEqual({
      mode: props['mode']!['default'],
      text: props['text']!['default'],
    });
    expect(pwned()).toBeUndefined();
  });
});

describe('injection corpus: odd argument names', () => {
  /** Valid values of the required arguments: the smallest valid call. */
  const BASE: Json = JSON.parse('{"__proto__":"ok","constructor":1,"":true,"default":1.5,"class":["a"]}') as Json;

  it('the contract types each odd name as the spec declares it (a wrong type does not compile)', () => {
    // The fixture handler compiled in the corpus's program with `checks` all true; the wrong copy beside it must not.
    expect(compileErrors.filter((e) => e.includes('odd_props.ts:'))).toEqual([]);
    const lines = compileErrors
      .filter((e) => e.includes('odd_props_wrong.ts:'))
      .map((e) => Number(/odd_props_wrong\.ts:(\d+):/.exec(e)![1]));
    const lineWith = (s: string) => wrongText.split('\n').findIndex((l) => l.includes(s)) + 1;
    // The three changed entries of `checks` are false, so its `true` values no longer fit; and a handler of
    // another tool cannot read these arguments.
    const tuple = lines.filter((l) => l > lineWith('export const checks') && l < lineWith('export const handler'));
    expect(tuple.length).toBeGreaterThanOrEqual(3);
    expect(lines).toContain(lineWith("args['__proto__'];"));
  });

  it('the dispatcher accepts valid values of every odd argument, as own properties, and fills in defaults', async () => {
    let args = BASE;
    const valid: [string, unknown][] = [
      ['function', { x: 1 }],
      ['delete', 'soft'],
      ['toString', true],
      ['valueOf', 'v'],
      ['0', 0],
      ['1e3', 'e'],
      ['🚀', '🚀 lift-off'],
      ['שלום', 3],
      ['é', 'acute'],
      ['a-b', 1],
      ['a_b', 'u'],
      ['a.b', false],
      ['aB', 2.5],
      ['ab', [1]],
      ['*/ globalThis.__pwned = 1; /*', 's'],
      ['${globalThis.__pwned = 1}', 's'],
      ["'); globalThis.__pwned = 1; ('", 's'],
      ['"); globalThis.__pwned = 1; ("', 's'],
      ['\\', 's'],
      ['\u2028globalThis.__pwned = 1;//', 's'],
      ['\0', 's'],
    ];
    for (const [name, value] of valid) args = withArg(args, name, value);
    const r = await call('odd_props', args);
    expect(textOf(r), 'a valid call').not.toMatch(/^Invalid arguments/);
    expect(r.isError).toBeUndefined();
    const seen = JSON.parse(textOf(r)) as { args: Json; read: Json };
    expect(seen.args).toEqual({ ...args, prototype: 'proto-default */' });
    expect(Object.getPrototypeOf(seen.args)).toBe(Object.prototype);
    expect(seen.read).toEqual({ proto: 'ok', ctor: 1, empty: true, toString: true, prototype: 'proto-default */' });
    expect(r.structuredContent).toEqual(JSON.parse('{"__proto__":"ok","constructor":1,"":true}'));
    expect(pwned()).toBeUndefined();
  });

  it('arguments left out are not read from Object.prototype (toString, valueOf are optional)', async () => {
    // BASE leaves out toString, valueOf and hasOwnProperty-like names; no line may be about them.
    const r = await call('odd_props', BASE);
    expect(textOf(r)).not.toMatch(/toString|valueOf/);
  });

  it('a required __proto__ argument that is missing is rejected, naming it', async () => {
    const r = await call('odd_props', without(BASE, '__proto__'));
    expect(r.isError).toBe(true);
    expect(namesArgument(textOf(r), '__proto__')).toBe(true);
  });

  const INVALID: [string, unknown][] = [
    ['__proto__', 5],
    ['__proto__', 'x'],
    ['constructor', 'one'],
    ['', 'yes'],
    ['default', '1.5'],
    ['class', [1]],
    ['prototype', 7],
    ['function', {}],
    ['delete', 'maybe'],
    ['toString', 'true'],
    ['valueOf', 1],
    ['0', 1.5],
    ['1e3', 1],
    ['🚀', 'wrong'],
    ['שלום', -1],
    ['é', 1],
    ['a-b', 'x'],
    ['a_b', 1],
    ['a.b', 1],
    ['aB', 'x'],
    ['ab', ['x']],
    ['*/ globalThis.__pwned = 1; /*', 1],
    ['${globalThis.__pwned = 1}', 1],
    ["'); globalThis.__pwned = 1; ('", 1],
    ['"); globalThis.__pwned = 1; ("', 1],
    ['\\', 1],
    ['\u2028globalThis.__pwned = 1;//', 1],
    ['\0', 1],
  ];
  it.each(INVALID)('the dispatcher rejects argument %j = %j, naming it', async (name, value) => {
    // toString and valueOf are given valid values so that only the argument under test is wrong.
    const base = withArg(withArg(BASE, 'toString', false), 'valueOf', 'v');
    const r = await call('odd_props', withArg(base, name, value));
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^Invalid arguments for tool "odd_props":/);
    expect(namesArgument(textOf(r), name), textOf(r)).toBe(true);
    expect(pwned()).toBeUndefined();
  });

  it('a tool named __proto__ with an argument named __proto__ works like any other', async () => {
    const listed = (await dispatcher()).listTools().tools.map((t) => t['name']);
    expect(listed).toContain('__proto__');
    const ok = await call('__proto__', JSON.parse('{"__proto__":"p"}'));
    expect(ok.isError, textOf(ok)).toBeUndefined();
    expect(ok.structuredContent).toEqual(JSON.parse('{"__proto__":"got p"}'));
    const bad = await call('__proto__', JSON.parse('{"__proto__":5}'));
    expect(bad.isError).toBe(true);
    expect(namesArgument(textOf(bad), '__proto__')).toBe(true);
  });

  it('the dispatcher lists exactly manifest.json', async () => {
    const d = await dispatcher();
    const manifest = JSON.parse(fs.readFileSync(path.join(src, 'generated/manifest.json'), 'utf8')) as {
      tools: Json[];
    };
    expect(d.listTools().tools).toEqual(manifest.tools);
  });
});

describe('options that reach generated code', () => {
  it('folder names with comment closers, quotes and code stay data in every generated file, and run nothing', async () => {
    fs.mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
    const tmp = fs.mkdtempSync(path.join(repoRoot, 'test/.tmp', 'injection-options-'));
    const dir = { dir: tmp, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
    try {
      const handlers = 'src/h*/ globalThis.__pwned = 1; /*x\'"`${globalThis.__pwned = 2}`';
      const generated = 'src/g*/ globalThis.__pwned = 3; //';
      fs.writeFileSync(
        path.join(dir.dir, 'toolspec.yaml'),
        [
          'toolspec: 1',
          'server: { name: opts, version: 1.0.0 }',
          `options: { handlersDir: ${JSON.stringify(handlers)}, generatedDir: ${JSON.stringify(generated)} }`,
          'tools:',
          '  - name: echo',
          '    description: Echo the text back to the caller.',
          '    inputSchema: { type: object, properties: { text: { type: string, description: What to echo } }, additionalProperties: false }',
          '',
        ].join('\n'),
      );
      const run = await runMain(['generate'], dir.dir);
      expect(run.stderr).not.toMatch(/ error /);
      expect(run.code).toBe(0);
      const genDir = path.join(dir.dir, generated);
      const offenders = tsFiles(genDir).flatMap((f) => markersOutsideData(f));
      expect(offenders).toEqual([]);
      const out = path.join(dir.dir, 'out');
      expect(
        compile(specFiles(path.join(dir.dir, 'src')), { outDir: out, rootDir: path.join(dir.dir, 'src') }),
      ).toEqual([]);
      delete (globalThis as { __pwned?: unknown }).__pwned;
      const emitted = path.join(out, generated.slice('src/'.length));
      const { handlers: bound } = (await import(pathToFileURL(path.join(emitted, 'registry.js')).href)) as {
        handlers: Record<string, unknown>;
      };
      expect(Object.keys(bound)).toContain('echo');
      expect(pwned()).toBeUndefined();
    } finally {
      dir.cleanup();
    }
  });
});

describe('tool names toolspec refuses, with a diagnostic', () => {
  it('a name with no letter or digit (.., -), and names that share one TypeScript name (a-b, a_b, a.b, aB)', async () => {
    const r = await runMain(['validate', 'refused/toolspec.yaml'], FIXTURES);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => / error TS\d{3} /.test(l));
    expect(lines).toEqual([
      'refused/toolspec.yaml:7:11 error TS013 tool name ".." has no letter or digit to name its TypeScript types after',
      'refused/toolspec.yaml:10:11 error TS013 tool name "-" has no letter or digit to name its TypeScript types after',
      'refused/toolspec.yaml:16:11 error TS013 tools "a-b" and "a_b" both become the TypeScript name AB',
      'refused/toolspec.yaml:19:11 error TS013 tools "a-b" and "a.b" both become the TypeScript name AB',
      'refused/toolspec.yaml:22:11 error TS013 tools "a-b" and "aB" both become the TypeScript name AB',
    ]);
  });

  it('a raw U+2028 in a $ref (not a URI reference): refused at the $ref, with the character escaped', async () => {
    const r = await runMain(['validate', 'refused/raw-ref.yaml'], FIXTURES);
    expect(r.code).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => / error TS\d{3} /.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^refused\/raw-ref\.yaml:12:\d+ error TS0\d\d .*\$ref/);
    expect(errors[0]).not.toContain('\u2028');
  });
});

/**
 * Specs that validate but once made generate fail with an internal error (exit 3), and one that validate wrongly
 * refused. Each must validate and generate, and its odd names must reach the manifest.
 */
describe('odd names beyond the corpus', () => {
  const CASES: [string, string, (manifest: { tools: Json[] }) => void][] = [
    [
      'tool-local $defs names that a $ref escapes: / and ~ (JSON Pointer), % and space (percent-encoding)',
      'pointer-defs',
      (m) =>
        expect(Object.keys((m.tools[0]!['inputSchema'] as Json)['$defs'] as Json)).toEqual([
          '*/ globalThis.__pwned = 1; /*',
          'a/b~c',
          '50% off',
        ]),
    ],
    [
      'a property named hasOwnProperty',
      'has-own-property',
      (m) =>
        expect(Object.keys((m.tools[0]!['inputSchema'] as Json)['properties'] as Json)).toEqual([
          'hasOwnProperty',
          'isPrototypeOf',
        ]),
    ],
    [
      'an optional property named like an Object.prototype member, left out of an example',
      'inherited',
      (m) =>
        expect(Object.keys((m.tools[0]!['inputSchema'] as Json)['properties'] as Json)).toEqual([
          'toString',
          'valueOf',
          'constructor',
        ]),
    ],
  ];
  // Each case validated and generated in a copy of its own; all of them type-checked in one program (the SDK's
  // declarations checked once, not once a case).
  const runs = new Map<string, { dir: string; validate: InProcessRun; generate: InProcessRun }>();
  let compileErrors: string[] = [];
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    for (const [, folder] of CASES) {
      const copy = scratchCopy(path.join(FIXTURES, folder), folder);
      cleanups.push(copy.cleanup);
      const validate = await runMain(['validate'], copy.dir);
      const generate = await runMain(['generate'], copy.dir);
      runs.set(folder, { dir: copy.dir, validate, generate });
    }
    compileErrors = compile([...runs.values()].flatMap((r) => specFiles(path.join(r.dir, 'src'))));
  }, 180_000);
  afterAll(() => cleanups.forEach((c) => c()));
  it.each(CASES)('%s', (_title, folder, check) => {
    const { dir, validate, generate } = runs.get(folder)!;
    expect(validate.stderr).not.toMatch(/ error /);
    expect(validate.code).toBe(0);
    expect(generate.stderr).not.toMatch(/ error |\n\s+at /);
    expect(generate.code).toBe(0);
    check(JSON.parse(fs.readFileSync(path.join(dir, 'src/generated/manifest.json'), 'utf8')) as { tools: Json[] });
    // Its own files' errors, and any that no file carries.
    const own = path.relative(repoRoot, dir) + path.sep;
    expect(compileErrors.filter((e) => e.startsWith(own) || !e.startsWith('test/'))).toEqual([]);
  });
});

let dispatcherPromise: Promise<Dispatcher> | undefined;
/** The generated dispatcher, built from the generated manifest, validators and registry, as server.ts builds it. */
function dispatcher(): Promise<Dispatcher> {
  dispatcherPromise ??= (async () => {
    const { createDispatcher } = await load<{ createDispatcher: (o: unknown) => Dispatcher }>(
      'generated/dispatcher.js',
    );
    const { tools, loadBindings, timeouts } = await load<{ tools: unknown; loadBindings: unknown; timeouts?: unknown }>(
      'generated/tools.js',
    );
    const { handlers } = await load<{ handlers: unknown }>('generated/registry.js');
    return createDispatcher({
      tools,
      bindings: loadBindings,
      handlers,
      onError: () => undefined,
      ...(timeouts ? { timeouts } : {}),
    });
  })();
  return dispatcherPromise;
}

/** Calls a tool through the generated dispatcher, as the server does for one request (in-process, no client). */
async function call(tool: string, args: unknown): Promise<CallResult> {
  const { localRequest } = await load<{ localRequest: () => { sdk: never; connection: never } }>(
    'generated/context.js',
  );
  const { sdk, connection } = localRequest();
  return (await dispatcher()).callTool(tool, args, sdk, connection);
}

/**
 * Whether an "Invalid arguments" text has a line for the argument `name` that a model can act on: a plain
 * identifier as is (`- constructor: …`, or `- class[0]: …` below it); any other name JSON-quoted, or as is when
 * that cannot be mistaken for something else (not empty, not all digits, which read as an array index).
 */
function namesArgument(text: string, name: string): boolean {
  // Every argument tested is declared: "is not an accepted argument" is not a line about its value.
  const lines = text.split('\n').filter((l) => l.startsWith('- ') && !l.endsWith(': is not an accepted argument'));
  const plain = name !== '' && !/^\d+$/.test(name);
  return lines.some(
    (l) =>
      l.includes(JSON.stringify(name)) || (plain && [':', '[', '.'].some((next) => l.startsWith(`- ${name}${next}`))),
  );
}

/** The tools as written in the spec, as clients must see them: toolspec's `examples` left out, used shared $defs bundled. */
function expectedTools(specText: string): Json[] {
  const spec = parse(specText) as { $defs?: Json; tools: Json[] };
  const shared = spec.$defs ?? {};
  return spec.tools.map(({ examples: _examples, ...tool }) => ({
    ...tool,
    inputSchema: bundle(tool['inputSchema'] as Json, shared),
    ...(tool['outputSchema'] ? { outputSchema: bundle(tool['outputSchema'] as Json, shared) } : {}),
  }));
}

function bundle(schema: Json, shared: Json): Json {
  const local = (schema['$defs'] ?? {}) as Json;
  const used = new Map<string, unknown>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const ref = (v as Json)['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
      const name = ref.slice('#/$defs/'.length).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!Object.hasOwn(local, name) && Object.hasOwn(shared, name) && !used.has(name)) {
        used.set(name, shared[name]);
        walk(shared[name]);
      }
    }
    Object.values(v).forEach(walk);
  };
  walk(schema);
  if (!used.size) return schema;
  const defs: Json = { ...local };
  for (const [name, def] of used)
    Object.defineProperty(defs, name, { value: def, enumerable: true, writable: true, configurable: true });
  return { ...schema, $defs: defs };
}

function jsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, f))
    .sort();
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/**
 * Every occurrence of the marker that is not inside a string literal, a template literal's text part or a
 * comment, as `file:line:col …context…`. The file is parsed by the TypeScript compiler, so a marker that a line
 * terminator (U+2028, CR) or a quote moved out of its literal or comment shows up here.
 */
function markersOutsideData(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes('__pwned')) return [];
  const kind = file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const inert: [number, number][] = [];
  const comments = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((c) => inert.push([c.pos, c.end]));
  const visit = (node: ts.Node): void => {
    comments(ts.getLeadingCommentRanges(text, node.pos));
    comments(ts.getTrailingCommentRanges(text, node.end));
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      node.kind === ts.SyntaxKind.TemplateHead ||
      node.kind === ts.SyntaxKind.TemplateMiddle ||
      node.kind === ts.SyntaxKind.TemplateTail
    ) {
      inert.push([node.getStart(sf), node.end]);
    }
    node.getChildren(sf).forEach(visit);
  };
  visit(sf);
  const out: string[] = [];
  for (const m of text.matchAll(MARKER)) {
    const at = m.index;
    if (inert.some(([a, b]) => a <= at && at + m[0].length <= b)) continue;
    const { line, character } = sf.getLineAndCharacterOfPosition(at);
    out.push(
      `${path.relative(project.dir, file)}:${line + 1}:${character + 1} ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 20))}`,
    );
  }
  return out;
}
