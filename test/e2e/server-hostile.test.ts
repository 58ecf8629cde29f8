/**
 * Hostile calls against a generated server, built from test/fixtures/hostile-server and driven over stdio with
 * the SDK's real client (and raw JSON-RPC lines where the client would refuse to send the request). Every attack
 * gets its documented answer, nothing leaks to the client, and the server keeps serving afterwards.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { compile, scratchCopy, tsFiles } from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/hostile-server'), 'hostile-server');
const main = path.join(project.dir, 'dist/generated/main.js');
let client: Client;
const stderr: string[] = [];

beforeAll(async () => {
  const gen = runCli(['generate'], project.dir);
  expect(gen.code).toBe(0);
  const src = path.join(project.dir, 'src');
  expect(compile(tsFiles(src), { outDir: path.join(project.dir, 'dist'), rootDir: src })).toEqual([]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main],
    cwd: project.dir,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  client = new Client({ name: 'hostile-test', version: '0.0.0' });
  await client.connect(transport);
}, 120_000);
afterAll(async () => {
  await client?.close();
  project.cleanup();
});

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const call = async (name: string, args?: Record<string, unknown>) =>
  (await client.callTool({ name, ...(args === undefined ? {} : { arguments: args }) })) as CallToolResult;

/** The server still answers an ordinary call. */
async function stillServing(): Promise<void> {
  expect(text(await call('numbered', { i: 7 }))).toBe('#7');
}

describe('arguments', () => {
  it('takes __proto__ and constructor keys as data: nothing reaches Object.prototype', async () => {
    // Raw, so that the client cannot drop the key first. The SDK's server drops a "__proto__" key while it reads
    // the request, before the dispatcher (README: "Arguments named like Object.prototype members").
    const session = rawSession();
    const [raw] = await session.send(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"inspect","arguments":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}',
    );
    session.close();
    expect(raw!.result!.isError).toBeUndefined();
    expect(JSON.parse(text(raw!.result!))).toMatchObject({
      polluted: null,
      prototypeIntact: true,
      keys: ['constructor'],
    });
    const args = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}',
    ) as Record<string, unknown>;
    const r = await call('inspect', args);
    expect(r.isError).toBeUndefined();
    expect(JSON.parse(text(r))).toMatchObject({ polluted: null, prototypeIntact: true });
    // A later call, with arguments of its own, sees a clean prototype too.
    expect(JSON.parse(text(await call('inspect', {})))).toMatchObject({ polluted: null, prototypeIntact: true });
  });

  it('does not take inherited properties for arguments (constructor, toString)', async () => {
    // `constructor` and `toString` exist on every object's prototype; they are arguments only when sent.
    expect(JSON.parse(text(await call('strict_args', { n: 1 })))).toEqual({ n: 1, constructor: null, toString: 7 });
    expect(JSON.parse(text(await call('strict_args', { n: 1, constructor: 'x', toString: 2 })))).toEqual({
      n: 1,
      constructor: 'x',
      toString: 2,
    });
    const wrong = await call('strict_args', { n: 1, constructor: 5 });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain('- constructor: must be string');
  });

  it('names every argument of the wrong JSON type, and every unknown one', async () => {
    const r = await call('strict_args', { n: 'one', s: 2, list: { 0: 1 }, flag: 'true', extra: 1, more: null });
    expect(r.isError).toBe(true);
    expect(text(r).split('\n')).toEqual([
      'Invalid arguments for tool "strict_args":',
      '- extra: is not an accepted argument',
      '- more: is not an accepted argument',
      '- n: must be integer',
      '- s: must be string',
      '- list: must be array',
      '- flag: must be boolean',
      'Fix these and call the tool again.',
    ]);
  });

  it('handles missing arguments as an empty object', async () => {
    expect(text(await call('strict_args'))).toContain('- n: is required');
    expect(JSON.parse(text(await call('inspect'))).keys).toEqual([]);
  });

  it('answers non-object arguments with -32602', async () => {
    // Sent as raw JSON: the SDK client refuses to send them.
    const session = rawSession();
    const bad = [[1, 2], 'text', 5, null, true];
    const answers = await session.send(
      ...bad.map((b, i) =>
        JSON.stringify({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'inspect', arguments: b } }),
      ),
    );
    session.close();
    for (const a of answers) expect(a.error?.code).toBe(-32602);
    await stillServing();
  });

  it('takes a 10 MB string and a million-element array', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    expect(JSON.parse(text(await call('inspect', { big }))).sizes).toEqual({ big: big.length });
    const list = Array.from({ length: 1_000_000 }, (_, i) => i) as unknown[];
    expect(JSON.parse(text(await call('strict_args', { n: 1, list })))).toMatchObject({ n: 1 });
    list.push('last');
    const r = await call('strict_args', { n: 1, list, s: big });
    expect(text(r)).toBe(
      'Invalid arguments for tool "strict_args":\n- list[1000000]: must be integer\nFix these and call the tool again.',
    );
  }, 60_000);

  it('names at most 20 problems, however many there are, in a message of bounded size', async () => {
    const list = Array.from({ length: 100_000 }, () => 'x'.repeat(8)) as unknown[];
    const r = await call('strict_args', { n: 1, list, s: 's'.repeat(2000), flag: 'no' });
    expect(r.isError).toBe(true);
    const lines = text(r).split('\n');
    expect(lines.filter((l) => l.startsWith('- '))).toHaveLength(21);
    expect(lines.at(-2)).toMatch(/^- … and \d+ more$/);
    expect(text(r).length).toBeLessThan(8000);
  }, 60_000);

  it('answers arguments nested 10,000 deep without falling over', async () => {
    // Sent as raw JSON: the SDK client itself cannot serialize a value this deep.
    const deep = (leaf: string) => `${'{"child":'.repeat(10_000)}${leaf}${'}'.repeat(10_000)}`;
    const session = rawSession();
    const [valid, invalid] = await session.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tree","arguments":{"root":${deep('{}')}}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tree","arguments":{"root":${deep('{"extra":1}')}}}}`,
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"numbered","arguments":{"i":4}}}',
    );
    // Either validated and handled, or refused as too deep: an answer, not a crash or a protocol error.
    const tooDeep = 'Invalid arguments for tool "tree": they are nested too deeply to check. Send a flatter value.';
    expect([tooDeep, 'depth 10000']).toContain(text(valid!.result!));
    expect(invalid!.result!.isError).toBe(true);
    expect([
      tooDeep,
      'Invalid arguments for tool "tree":\n- root' +
        '.child'.repeat(10_000) +
        '.extra: is not an accepted argument\nFix these and call the tool again.',
    ]).toContain(text(invalid!.result!));
    session.close();
  }, 60_000);
});

interface Response {
  id: number;
  result?: CallToolResult;
  error?: { code: number; message: string };
}

/** The built server on raw stdio, initialized; send() writes JSON-RPC lines and waits for their responses. */
function rawSession() {
  const child = spawn(process.execPath, [main], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const write = (line: string) => child.stdin.write(`${line}\n`);
  write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  );
  write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  const lines = () => out.split('\n').filter(Boolean);
  return {
    stderr: () => err,
    /** Every line stdout carried, parsed (each must be JSON). */
    messages: () => lines().map((l) => JSON.parse(l) as Response),
    async send(...requests: string[]): Promise<Response[]> {
      const ids = requests.map((r) => Number(/"id":(\d+)/.exec(r)![1]));
      for (const r of requests) write(r);
      await expect
        .poll(() => ids.every((id) => this.messages().some((m) => m.id === id)), { timeout: 30_000 })
        .toBe(true);
      return ids.map((id) => this.messages().find((m) => m.id === id)!);
    },
    close: () => child.kill(),
  };
}

describe('handlers that misbehave', () => {
  const cases: [mode: string, expected: string][] = [
    ['throw-string', 'Tool "misbehave" failed: a plain string'],
    ['throw-null', 'Tool "misbehave" failed: null'],
    ['throw-number', 'Tool "misbehave" failed: 42'],
    ['throw-object', 'Tool "misbehave" failed: {"code":"E_WEIRD","detail":"an object"}'],
    ['throw-path', 'Tool "misbehave" failed: ENOENT: no such file or directory, open \'<path>\''],
    ['throw-stack', 'Tool "misbehave" failed: Error: inner failure'],
    ['undefined', 'Tool "misbehave" failed: the handler returned nothing; return a string or a CallToolResult'],
    ['number', 'Tool "misbehave" failed: the handler returned a number; return a string or a CallToolResult'],
    [
      'cyclic',
      'Tool "misbehave" failed: its result cannot be serialized as JSON (Converting circular structure to JSON)',
    ],
    [
      'bigint',
      'Tool "misbehave" failed: its result cannot be serialized as JSON (Do not know how to serialize a BigInt)',
    ],
  ];
  it.each(cases)('%s → isError: %s', async (mode, expected) => {
    const r = await call('misbehave', { mode });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(expected);
  });

  it('turns invalid content blocks and bad base64 into isError, not a protocol error', async () => {
    for (const mode of ['bad-content', 'bad-base64']) {
      const r = await call('misbehave', { mode });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^Tool "misbehave" failed: its result is not a valid CallToolResult \(content\[0\]/);
    }
  });

  it('turns a cyclic structured value into isError', async () => {
    const r = await call('cyclic_output');
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('its result cannot be sent');
  });

  it('never sends stack traces or absolute paths; the cause goes to stderr', async () => {
    for (const mode of ['throw-path', 'throw-stack']) {
      const r = text(await call('misbehave', { mode }));
      expect(r).not.toMatch(/\n|\bat .*:\d+:\d+|\/home\/deploy|node_modules/);
    }
    await expect.poll(() => stderr.join('')).toContain('/home/deploy/secrets/db.json');
    expect(stderr.join('')).toMatch(/\n\s+at /); // the stack is there, on stderr
  });

  it('ends a call that never finishes when its timeout passes, and aborts the handler', async () => {
    const r = await call('sleepy');
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Tool "sleepy" failed: it did not finish within its timeout of 200 ms');
    const seen = JSON.parse(text(await call('probe'))) as { tool: string; reason: string }[];
    expect(seen).toContainEqual({
      tool: 'sleepy',
      aborted: true,
      reason: 'TimeoutError: it did not finish within its timeout of 200 ms',
    });
  });

  it('releases a call that never finishes when the client cancels it', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'misbehave', arguments: { mode: 'hang' } }, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 50);
    await expect(pending).rejects.toThrow();
    await expect.poll(async () => text(await call('probe'))).toContain('"tool":"misbehave"');
    await stillServing();
  });

  it('keeps serving when a handler leaves a rejection or a throwing timer behind, and logs it to stderr', async () => {
    expect(text(await call('misbehave', { mode: 'stray-rejection' }))).toBe('left a rejection behind');
    expect(text(await call('misbehave', { mode: 'stray-throw' }))).toBe('left a throwing timer behind');
    await expect.poll(() => stderr.join('')).toContain('a throw from a timer');
    expect(stderr.join('')).toContain('a rejection nobody handles');
    await stillServing();
  });

  it('answers 1,000 concurrent calls, each with its own result', async () => {
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => call('numbered', { i })));
    expect(results.map(text)).toEqual(Array.from({ length: 1000 }, (_, i) => `#${i}`));
  }, 60_000);
});

describe('stdin', () => {
  it('skips a line longer than maxMessageBytes, says so on stderr, and answers the next one', async () => {
    const entry = path.join(project.dir, 'dist/small-lines.mjs');
    fs.writeFileSync(
      entry,
      "import { handlers, serveStdio } from './generated/index.js';\nserveStdio(handlers, { maxMessageBytes: 1000 });\n",
    );
    const child = spawn(process.execPath, [entry], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    // The long line in pieces, as a pipe delivers it.
    const long = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'numbered', arguments: { i: 1, pad: 'x'.repeat(5000) } },
    });
    for (let i = 0; i < long.length; i += 700) child.stdin.write(long.slice(i, i + 700));
    child.stdin.write('\n');
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'numbered', arguments: { i: 3 } } })}\n`,
    );
    await expect.poll(() => out, { timeout: 20_000 }).toContain('"id":3');
    child.kill();
    expect(out).not.toContain('"id":2');
    expect(err).toContain('a message longer than 1000 bytes (maxMessageBytes) arrived: skipped unanswered');
  });
});

describe('stdout', () => {
  it('ends quietly when the client closes its end of stdout mid-call (EPIPE), without a stack', async () => {
    const child = spawn(process.execPath, [main], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
    );
    await new Promise((r) => child.stdout.once('data', r));
    child.stdout.destroy();
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // The answers to these have nowhere to go.
    for (let i = 0; i < 50; i++)
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'numbered', arguments: { i } } })}\n`,
      );
    expect(await exited).toBe(0);
    expect(err).not.toMatch(/\n\s+at /);
    expect(err).not.toContain('EPIPE');
  });

  it('stays the protocol channel: a handler writing to stdout cannot corrupt it', async () => {
    const session = rawSession();
    const [wrote, after] = await session.send(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"misbehave","arguments":{"mode":"stdout"}}}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"numbered","arguments":{"i":3}}}',
    );
    session.close();
    expect(session.messages().map((m) => m.id)).toEqual([1, 2, 3]); // every stdout line is a JSON-RPC message
    expect(wrote!.result!.content).toEqual([{ type: 'text', text: 'wrote to stdout' }]);
    expect(text(after!.result!)).toBe('#3');
    expect(session.stderr()).toContain('a stray console.log from a handler');
    expect(session.stderr()).toContain('raw bytes on stdout');
  });
});
