/**
 * `toolspec call`: the reading of key=value arguments by the tool's input schema, `--list`, and calls through the CLI
 * in this process on a small project inside the repository (its bare imports resolve from the repository's
 * node_modules, where the transpiled modules are cached).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArgumentError, argumentRows, parseArguments } from '../src/run/arguments.js';
import { repoRoot, runMain } from './helpers/cli.js';

const SCHEMA = {
  type: 'object',
  $defs: { Count: { type: 'integer', minimum: 1 } },
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for' },
    limit: { $ref: '#/$defs/Count', default: 10 },
    ratio: { type: 'number' },
    exact: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
    filter: { type: 'object', properties: { tag: { type: 'string' } } },
    mode: { enum: ['fast', 'slow'] },
    note: { type: ['string', 'null'] },
    anything: {},
  },
  required: ['query'],
};

describe('call arguments (key=value, key:=json, --json)', () => {
  const parse = (pairs: string[], json?: string) => parseArguments(pairs, json, SCHEMA);

  it('reads each value by the type its property has', () => {
    expect(
      parse([
        'query=007',
        'limit=5',
        'ratio=0.5',
        'exact=true',
        'tags=a,b',
        'ids=1,2,3',
        'filter={"tag":"x"}',
        'mode=fast',
        'note=null',
        'anything=12',
      ]),
    ).toEqual({
      query: '007',
      limit: 5,
      ratio: 0.5,
      exact: true,
      tags: ['a', 'b'],
      ids: [1, 2, 3],
      filter: { tag: 'x' },
      mode: 'fast',
      note: null,
      anything: 12,
    });
  });

  it('keeps text where the schema allows it, and passes a value of the wrong type on for the validator', () => {
    expect(parse(['query=true', 'note=hello', 'anything=not json', 'limit=abc', 'exact=yes'])).toEqual({
      query: 'true',
      note: 'hello',
      anything: 'not json',
      limit: 'abc',
      exact: 'yes',
    });
  });

  it('takes JSON arrays, repeated keys and empty values for arrays', () => {
    expect(parse(['tags=["a,b","c"]'])).toEqual({ tags: ['a,b', 'c'] });
    expect(parse(['tags=a', 'tags=b,c'])).toEqual({ tags: ['a', 'b', 'c'] });
    expect(parse(['ids='])).toEqual({ ids: [] });
  });

  it('reads key:=json as JSON whatever the schema says', () => {
    expect(parse(['query:="quoted"', 'limit:=null', 'tags:=[1]'])).toEqual({ query: 'quoted', limit: null, tags: [1] });
  });

  it('starts from --json and lets pairs set its keys', () => {
    expect(parse(['limit=3'], '{"query":"x","limit":1,"extra":[true]}')).toEqual({
      query: 'x',
      limit: 3,
      extra: [true],
    });
  });

  it('refuses what it cannot read, saying what to write instead', () => {
    const fails = (pairs: string[], json?: string) => {
      try {
        parse(pairs, json);
      } catch (e) {
        expect(e).toBeInstanceOf(ArgumentError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(fails(['query'])).toMatch(/^expected key=value \(or key:=json\), not "query"/);
    expect(fails(['=x'])).toMatch(/^expected key=value/);
    expect(fails(['query=a', 'query=b'])).toBe('query is given twice');
    expect(fails(['filter=tag'])).toMatch(/^filter is an object: give it as JSON/);
    expect(fails(['tags=[a'])).toMatch(/^tags: "\[a" starts like a JSON array but is not valid JSON/);
    expect(fails(['limit:=five'])).toMatch(/^limit:= takes JSON, and "five" is not/);
    expect(fails([], '{oops')).toMatch(/^--json is not valid JSON/);
    expect(fails([], '[1]')).toBe("--json must be a JSON object (the tool's arguments), not array");
  });

  it('describes each argument for --list: type, required, default, description', () => {
    expect(argumentRows(SCHEMA).slice(0, 6)).toEqual([
      { name: 'query', type: 'string', required: true, description: 'What to look for' },
      { name: 'limit', type: 'integer', required: false, default: 10 },
      { name: 'ratio', type: 'number', required: false },
      { name: 'exact', type: 'boolean', required: false, default: false },
      { name: 'tags', type: 'string[]', required: false },
      { name: 'ids', type: 'integer[]', required: false },
    ]);
    expect(
      argumentRows(SCHEMA)
        .slice(7)
        .map((r) => r.type),
    ).toEqual(['"fast" | "slow"', 'string | null', 'any']);
  });
});

const SPEC = `toolspec: 1
server: { name: calls, version: 1.0.0 }
tools:
  - name: search
    description: Search the notes for a query.
    inputSchema:
      type: object
      properties:
        query: { type: string, minLength: 1, description: What to look for }
        limit: { type: integer, minimum: 1, maximum: 50, default: 10 }
        tags: { type: array, items: { type: string } }
      required: [query]
      additionalProperties: false
    outputSchema:
      type: object
      properties: { args: { type: object } }
      required: [args]
  - name: shout
    description: Say the text louder.
    inputSchema:
      type: object
      properties: { text: { type: string } }
      required: [text]
      additionalProperties: false
  - name: broken
    description: Fails every time.
    inputSchema: { type: object, additionalProperties: false }
`;

const HANDLERS: Record<string, string> = {
  'src/handlers/search.ts': `import type { Handler } from '../generated/contract.js';
export const handler: Handler<'search'> = (args) => ({ args });
`,
  'src/handlers/shout.ts': `import type { Handler } from '../generated/contract.js';
import { louder } from '../lib/louder.js';
export const handler: Handler<'shout'> = async (args, ctx) => {
  await ctx.progress(1, { total: 1, message: 'shouting' });
  await ctx.log('info', { heard: args.text });
  return louder(args.text);
};
`,
  'src/lib/louder.ts': `export const louder = (s: string): string => s.toUpperCase();
`,
  'src/handlers/broken.ts': `import type { Handler } from '../generated/contract.js';
export const handler: Handler<'broken'> = () => {
  throw new Error('out of ink');
};
`,
};

describe('toolspec call (in process, on a project in the repository)', () => {
  let dir: string;
  beforeAll(() => {
    const base = path.join(repoRoot, 'test', '.tmp');
    fs.mkdirSync(base, { recursive: true });
    dir = fs.mkdtempSync(path.join(base, 'call-'));
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
    for (const [file, text] of Object.entries(HANDLERS)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    // The transpiled copies of its modules, in the repository's cache folder.
    fs.rmSync(path.join(repoRoot, 'node_modules/.cache/toolspec/run/fs', dir), { recursive: true, force: true });
  });

  it('lists the tools and their arguments', async () => {
    const r = await runMain(['call', '--list'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'search — Search the notes for a query.',
        '  query  string    required    What to look for',
        '  limit  integer   default 10',
        '  tags   string[]  optional',
        'shout — Say the text louder.',
        '  text  string  required',
        'broken — Fails every time.',
        '  (no arguments)',
        '',
      ].join('\n'),
    );
    const one = await runMain(['call', 'shout', '--list', '--format', 'json'], dir);
    expect(JSON.parse(one.stdout)).toEqual([
      {
        name: 'shout',
        description: 'Say the text louder.',
        arguments: [{ name: 'text', type: 'string', required: true }],
      },
    ]);
  });

  it('validates, fills defaults and prints structured output as JSON (without generated files on disk)', async () => {
    const r = await runMain(['call', 'search', 'query=notes', 'tags=a,b'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ args: { query: 'notes', tags: ['a', 'b'], limit: 10 } });
    expect(fs.existsSync(path.join(dir, 'src/generated'))).toBe(false);
  });

  it('makes a copy again when it was edited since, and writes none through a folder of the copies that is a link', async () => {
    expect((await runMain(['call', 'shout', 'text=a'], dir)).code).toBe(0);
    const copies = path.join(repoRoot, 'node_modules/.cache/toolspec/run/fs', dir, 'src/lib');
    const copy = path.join(copies, 'louder.js');
    const made = fs.readFileSync(copy, 'utf8');
    const [first, ...rest] = made.split('\n');
    fs.writeFileSync(copy, [first, 'globalThis.__edited = true;', ...rest].join('\n'));
    expect((await runMain(['call', 'shout', 'text=a'], dir)).code).toBe(0);
    expect(fs.readFileSync(copy, 'utf8')).toBe(made);
    // A first line whose hashes hold but whose import list is not a list of strings, or a copy made from another
    // source or by another build (its first hash): made again, not trusted.
    const foreign = first!.replace(/^(\/\/ toolspec-run )[0-9a-f]{64}/, `$1${'0'.repeat(64)}`);
    expect(foreign).not.toBe(first);
    for (const head of [first!.replace(/\[.*\]$/, '[oops]'), first!.replace(/\[.*\]$/, '[1]'), foreign]) {
      fs.writeFileSync(copy, [head, ...rest].join('\n'));
      const r = await runMain(['call', 'shout', 'text=a'], dir);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('Error');
      expect(fs.readFileSync(copy, 'utf8')).toBe(made);
    }

    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-elsewhere-'));
    fs.rmSync(copies, { recursive: true });
    fs.symlinkSync(elsewhere, copies);
    try {
      const r = await runMain(['call', 'shout', 'text=a'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("leads out of toolspec's cache folder (a link)");
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(copies);
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('prints text, with the handler’s progress and log messages on stderr', async () => {
    const r = await runMain(['call', 'shout', 'text=hey there'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('HEY THERE\n');
    expect(r.stderr).toBe('progress 1/1 shouting\nlog info: {"heard":"hey there"}\n');
  });

  it('rejects arguments with the server’s own message and exit 1', async () => {
    const r = await runMain(['call', 'search', '--json', '{"query":"x"}', 'limit=abc', 'extra=1'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Invalid arguments for tool "search":');
    expect(r.stderr).toContain('- limit: must be integer');
  });

  // Its source-mapped location (src/handlers/broken.ts:3:9) is checked through the built CLI in test/e2e/call.test.ts:
  // vitest installs a stack formatter of its own, which Node's source maps do not reach.
  it('reports a failing handler with its cause and exit 1', async () => {
    const r = await runMain(['call', 'broken'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Tool "broken" failed: out of ink');
    expect(r.stderr).toMatch(
      /\[toolspec\] tool "broken" failed: Error: out of ink\n\s+at .*src\/handlers\/broken\.[jt]s:3:/,
    );
    const json = await runMain(['call', 'broken', '--format', 'json'], dir);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true, content: [{ type: 'text' }] });
  });

  it('is a usage error (exit 2) for an unknown tool, with a suggestion, and for unreadable arguments', async () => {
    const unknown = await runMain(['call', 'serch', 'query=x'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'toolspec call: unknown tool "serch"; did you mean "search"? (tools: search, shout, broken; `toolspec call --list` shows their arguments)\n',
    );
    const bad = await runMain(['call', 'search', 'query'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^toolspec call: expected key=value/);
    const none = await runMain(['call'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^toolspec call: name the tool to call/);
  });

  it('is a usage error when the handler does not parse or its spec is invalid', async () => {
    const file = path.join(dir, 'src/lib/louder.ts');
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, 'export const louder = (s: string) => {\n');
    try {
      const r = await runMain(['call', 'shout', 'text=x'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^src\/lib\/louder\.ts:2:1 '}' expected\./m);
      expect(r.stderr).toContain("the project's code cannot be loaded; nothing was called");
    } finally {
      fs.writeFileSync(file, good);
    }
    const r = await runMain(['call', 'shout', '--spec', 'missing.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was called');
  });
});

describe('toolspec call --prompt and --read (in process, on test/fixtures/e2e-primitives)', () => {
  let dir: string;
  beforeAll(() => {
    const base = path.join(repoRoot, 'test', '.tmp');
    fs.mkdirSync(base, { recursive: true });
    dir = fs.mkdtempSync(path.join(base, 'call-primitives-'));
    fs.cpSync(path.join(repoRoot, 'test/fixtures/e2e-primitives'), dir, { recursive: true });
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(repoRoot, 'node_modules/.cache/toolspec/run/fs', dir), { recursive: true, force: true });
  });

  it('gets a prompt with its arguments, and refuses a missing one or an unknown prompt as usage', async () => {
    const r = await runMain(['call', '--prompt', 'summarise_notes', 'topic=cooking', 'style=short'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('user: Summarise my notes on cooking, short.\n');
    const missing = await runMain(['call', '--prompt', 'summarise_notes'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('toolspec call: Missing required argument "topic" for prompt "summarise_notes"\n');
    const unknown = await runMain(['call', '--prompt', 'summarise_note', 'topic=x'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown prompt "summarise_note"; did you mean "summarise_notes"?');
    const asks = await runMain(['call', '--prompt', 'ask_first'], dir);
    expect(asks.code).toBe(1);
    expect(asks.stderr).toContain('asked the client for input');
  });

  it('reads a fixed resource and a template resource; a URI nothing answers to is exit 1', async () => {
    const index = await runMain(['call', '--read', 'notes://index'], dir);
    expect(index.code).toBe(0);
    expect(index.stdout).toBe('1\n42\n');
    const note = await runMain(['call', '--read', 'notes://42?version=2', '--format', 'json'], dir);
    expect(note.code).toBe(0);
    expect(JSON.parse(note.stdout)).toEqual({
      contents: [{ uri: 'notes://42?version=2', mimeType: 'text/markdown', text: '# The answer (version 2)' }],
    });
    for (const uri of ['notes://99', 'notes://a%2Fb', 'other://x']) {
      const r = await runMain(['call', '--read', uri], dir);
      expect(r.code, uri).toBe(1);
      expect(r.stderr, uri).toBe(`toolspec call: Resource not found: ${uri}\n`);
    }
  });
});
