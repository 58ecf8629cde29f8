/**
 * `toolspec dev` through the built CLI, in a scratch project inside the repository (so the type check, the build and
 * the server resolve the SDK from the repository's node_modules), with the SDK's real clients connected over HTTP on
 * 127.0.0.1 for the whole session: one on protocol 2026-07-28, one on the 2025 handshake. Edits are made as a user
 * makes them; every wait polls for the line dev prints, no timing thresholds.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { Running, sleep, until } from '../helpers/process.js';

const SPEC = `toolspec: 1
server: { name: dev-loop, version: 1.0.0 }
tools:
  - name: echo
    description: Echo the text back.
    inputSchema:
      type: object
      properties: { text: { type: string, description: What to echo. } }
      required: [text]
      additionalProperties: false
`;
const COUNT = `  - name: count
    description: Count the characters of a text.
    inputSchema:
      type: object
      properties: { text: { type: string, description: What to count. } }
      required: [text]
      additionalProperties: false
`;
const handler = (body: string) =>
  `import type { Handler } from '../generated/contract.js';\n\nexport const handler: Handler<'echo'> = ${body};\n`;
/** The tsconfig.json `toolspec init` writes (and `toolspec dev` falls back on without one). */
const TSCONFIG = JSON.parse(fs.readFileSync(path.join(repoRoot, 'templates/init/tsconfig.json'), 'utf8')) as object;

const LINE = /^\d\d:\d\d:\d\d (.+) → (.+) \(\d+ ms\)$/;

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function project(): string {
  const base = path.join(repoRoot, 'test', '.tmp');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, 'dev-'));
  fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  fs.mkdirSync(path.join(dir, 'src/handlers'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/handlers/echo.ts'), handler('(args) => args.text'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The cycle lines so far, as [what changed, what dev did]. */
function cycles(dev: Running): [string, string][] {
  return dev.lines().map((l) => {
    const m = LINE.exec(l);
    if (!m) throw new Error(`not a cycle line: ${JSON.stringify(l)}\nstderr:\n${dev.stderr}`);
    return [m[1]!, m[2]!];
  });
}

/** What dev printed, for the message of a failed expectation. */
const output = (dev: Running) => `stdout:\n${dev.stdout}\nstderr:\n${dev.stderr}`;

async function cycle(dev: Running, n: number): Promise<[string, string]> {
  await until(() => cycles(dev).length >= n, `cycle line ${n}`, dev, 120_000);
  return cycles(dev)[n - 1]!;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/** The processes a process started (Linux ps). */
const childrenOf = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** After a failed test: dev and the server it runs, killed (SIGKILL would leave dev's server behind). */
function stopHard(dev: Running): void {
  if (dev.exit) return;
  for (const pid of childrenOf(dev.child.pid!)) process.kill(pid, 'SIGKILL');
  dev.child.kill('SIGKILL');
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('toolspec dev (built CLI, real clients over HTTP)', () => {
  it(
    'regenerates, type-checks and restarts on each edit while the same clients stay connected; Ctrl-C stops everything',
    { timeout: 300_000 },
    async () => {
      const dir = project();
      const dev = new Running(dir, ['dev', '--port', '0']);
      cleanups.push(() => stopHard(dev));
      const first = await cycle(dev, 1);
      expect(first).toEqual([
        'start',
        expect.stringMatching(/^regenerated \d+ files, type-checked, serving on http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      ]);
      const url = /(http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(first[1])!;
      const port = Number(url[2]);

      const modern = new Client(
        { name: 'dev-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      const legacy = new Client({ name: 'dev-e2e', version: '1.0.0' });
      await modern.connect(new StreamableHTTPClientTransport(new URL(url[1]!)));
      const legacyTransport = new StreamableHTTPClientTransport(new URL(url[1]!));
      await legacy.connect(legacyTransport);
      // Stateless by default: the 2025 client holds no session that a restart would end.
      expect(legacyTransport.sessionId).toBeUndefined();
      cleanups.push(async () => {
        await modern.close();
        await legacy.close();
      });
      const echo = async (client: Client) =>
        text((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult);
      expect(await echo(modern)).toBe('hi');
      expect(await echo(legacy)).toBe('hi');

      // A handler edit: one cycle, the server restarted on the same address, the same clients see the new code.
      // Calls made all through the restart are answered, none dropped: dev holds them while the server changes.
      let going = true;
      const answered: string[] = [];
      const failed: unknown[] = [];
      const load = (async () => {
        while (going) {
          for (const client of [modern, legacy]) {
            await echo(client).then(
              (t) => answered.push(t),
              (e: unknown) => failed.push(e),
            );
          }
        }
      })();
      const file = path.join(dir, 'src/handlers/echo.ts');
      fs.writeFileSync(file, handler('(args) => args.text.toUpperCase()'));
      expect(await cycle(dev, 2), output(dev)).toEqual([
        'src/handlers/echo.ts changed',
        `generated files unchanged, type-checked, restarted on ${url[1]}`,
      ]);
      await until(() => answered.includes('HI'), 'a call answered by the new server', dev);
      going = false;
      await load;
      expect(failed).toEqual([]);
      expect(answered).toContain('hi');
      expect(await echo(modern)).toBe('HI');
      expect(await echo(legacy)).toBe('HI');

      // A type error: printed at file:line:col, nothing restarted, the last good build still answers.
      fs.writeFileSync(file, handler('(args) => { const n: number = args.text; return `${args.text}!${n}`; }'));
      expect(await cycle(dev, 3), output(dev)).toEqual([
        'src/handlers/echo.ts changed',
        'generated files unchanged, 1 type error; the server still runs the last good build',
      ]);
      expect(dev.stderr).toMatch(
        /^src\/handlers\/echo\.ts:3:\d+ error TS2322 Type 'string' is not assignable to type 'number'\.$/m,
      );
      expect(await echo(modern)).toBe('HI');
      expect(await echo(legacy)).toBe('HI');

      // Fixed: the new behaviour goes live.
      fs.writeFileSync(file, handler('(args) => `${args.text}!`'));
      expect(await cycle(dev, 4), output(dev)).toEqual([
        'src/handlers/echo.ts changed',
        `generated files unchanged, type-checked, restarted on ${url[1]}`,
      ]);
      expect(await echo(modern)).toBe('hi!');

      // A spec edit: regenerated, a stub for the new tool, and the clients list it.
      fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC + COUNT);
      expect(await cycle(dev, 5), output(dev)).toEqual([
        'toolspec.yaml changed',
        expect.stringMatching(
          new RegExp(
            `^regenerated \\d+ files, created src/handlers/count\\.ts, type-checked, restarted on ${url[1]!.replace(/\./g, '\\.')}$`,
          ),
        ),
      ]);
      expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'count']);
      expect((await legacy.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'count']);

      // Ctrl-C: dev ends, and so does the server it started; the port is free.
      const children = childrenOf(dev.child.pid!);
      expect(children).toHaveLength(1);
      expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
      expect(() => process.kill(children[0]!, 0)).toThrow();
      expect(await accepts(port)).toBe(false);
      expect(dev.stderr).not.toContain('internal error');
    },
  );

  it(
    'starts with a spec error, serves once it is fixed (with --sessions), and refuses a port in use (exit 2)',
    { timeout: 300_000 },
    async () => {
      const dir = project();
      fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC.replace('type: string', 'type: strng'));
      const dev = new Running(dir, ['dev', '--port', '0', '--sessions']);
      cleanups.push(() => stopHard(dev));
      expect(await cycle(dev, 1), output(dev)).toEqual(['start', '1 error; no server running']);
      expect(dev.stderr).toMatch(/^toolspec\.yaml:\d+:\d+ error TS022 unknown type "strng"$/m);

      fs.writeFileSync(path.join(dir, 'toolspec.yaml'), SPEC);
      expect(await cycle(dev, 2), output(dev)).toEqual([
        'toolspec.yaml changed',
        expect.stringMatching(/^regenerated \d+ files, type-checked, serving on http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      ]);
      const port = Number(/:(\d+)\/mcp/.exec(cycles(dev)[1]![1])![1]);
      expect(await accepts(port)).toBe(true);
      // --sessions: 2025 clients get a session (and can be asked for input mid-call).
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
      const legacy = new Client({ name: 'dev-e2e', version: '1.0.0' });
      await legacy.connect(transport);
      expect(transport.sessionId).toEqual(expect.any(String));
      await legacy.close();

      // The port is taken (by the server this dev runs): a second dev on it stops at once with a usage error.
      const busy = runCli(['dev', '--port', String(port)], dir);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toBe(
        `toolspec dev: port ${port} on 127.0.0.1 is in use: stop what uses it, or pick another with --port (0 picks a free one)\n`,
      );

      // A server that ends on its own is reported, and the next good change starts it again.
      const [server] = childrenOf(dev.child.pid!);
      process.kill(server!, 'SIGKILL');
      await until(() => dev.stderr.includes('toolspec dev: the server was ended by SIGKILL'), 'the exit report', dev);
      // Meanwhile dev still holds the address: a request is told no server runs, and an oversized one is refused.
      const none = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
      expect(none.status).toBe(503);
      expect(await none.text()).toContain('toolspec dev: no server is running');
      const big = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: 'x'.repeat(9 * 1024 * 1024) });
      expect(big.status).toBe(413);
      fs.writeFileSync(path.join(dir, 'src/handlers/echo.ts'), handler('(args) => args.text.repeat(2)'));
      expect(await cycle(dev, 3), output(dev)).toEqual([
        'src/handlers/echo.ts changed',
        `generated files unchanged, type-checked, serving on http://127.0.0.1:${port}/mcp`,
      ]);
      expect(await accepts(port)).toBe(true);

      expect(await dev.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await accepts(port)).toBe(false);
    },
  );

  it('leaves no server behind even when dev itself is killed', { timeout: 300_000 }, async () => {
    const dir = project();
    const dev = new Running(dir, ['dev', '--port', '0']);
    cleanups.push(() => stopHard(dev));
    const first = await cycle(dev, 1);
    const port = Number(/:(\d+)\/mcp/.exec(first[1])![1]);
    const [server] = childrenOf(dev.child.pid!);
    expect(await accepts(port)).toBe(true);
    expect(await dev.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    // No signal reaches the server: it ends because dev's end of its stdin closed.
    for (const end = Date.now() + 60_000; alive(server!) && Date.now() < end;) await sleep(50);
    expect(alive(server!)).toBe(false);
    expect(await accepts(port)).toBe(false);
  });
});
