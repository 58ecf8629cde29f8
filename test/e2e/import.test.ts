/**
 * `toolspec import`, end to end with the built CLI: a real SDK server (test/fixtures/import/server.mjs: raw JSON
 * Schemas in draft-07 and 2020-12, annotations, icons, execution, _meta, dotted and dashed names, three pages of
 * tools/list) read over stdio, over Streamable HTTP and from a saved file; the round trip import → generate →
 * compile → start → tools/list, compared with the server's own list; and every way an import can fail.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type Tool, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INSTRUCTIONS, PAGE_SIZE, REFUSED_TOOLS, SERVER_INFO, TOOLS, startHttp } from '../fixtures/import/server.mjs';
import { hoist } from '../../src/import/hoist.js';
import { splitCommand } from '../../src/import/stdio.js';
import { specYaml } from '../../src/import/yaml.js';
import { bin, repoRoot, runCli, type Run } from '../helpers/cli.js';
import { compile, tsFiles } from '../helpers/project.js';

const serverScript = path.join(repoRoot, 'test/fixtures/import/server.mjs');
const serverCommand = (mode = 'tools', era = 'legacy') => `node ${JSON.stringify(serverScript)} ${mode} ${era}`;
const scratchRoot = path.join(repoRoot, 'test/.tmp');
const scratches: string[] = [];

/** A fresh folder inside the repository, so a generated project there resolves the repository's node_modules. */
function scratch(name: string): string {
  fs.mkdirSync(scratchRoot, { recursive: true });
  const dir = fs.mkdtempSync(path.join(scratchRoot, `import-${name}-`));
  scratches.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratches) fs.rmSync(dir, { recursive: true, force: true });
});

/** The built CLI, without blocking this process (an HTTP server in this process must keep answering). */
function runCliAsync(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Everything a client sees: the tools over all pages, the server's identity and instructions. */
async function listAll(
  transport: Transport,
): Promise<{ tools: Tool[]; pages: number; info: unknown; instructions: string | undefined }> {
  const client = new Client({ name: 'import-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    // Page by page, as sent (the client's listTools() would fetch every page itself).
    const asSent = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) } };
    do {
      const page = (await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        asSent,
      )) as { tools: Tool[]; nextCursor?: string };
      tools.push(...page.tools);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    return { tools, pages, info: client.getServerVersion(), instructions: client.getInstructions() };
  } finally {
    await client.close();
  }
}

const stdioServer = (mode = 'tools') =>
  new StdioClientTransport({ command: process.execPath, args: [serverScript, mode], stderr: 'pipe' });

/** Generates the project of `spec` with the built CLI, compiles it, and lists its tools through the SDK client. */
async function generateAndList(dir: string, spec: string): Promise<Awaited<ReturnType<typeof listAll>>> {
  const gen = runCli(['generate', spec], dir);
  expect(gen.stderr).not.toMatch(/ error /);
  expect(gen.code).toBe(0);
  const src = path.join(dir, 'src');
  expect(compile(tsFiles(src), { outDir: path.join(dir, 'dist'), rootDir: src })).toEqual([]);
  return listAll(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(dir, 'dist/generated/main.js')],
      cwd: dir,
      stderr: 'pipe',
    }),
  );
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const readSpec = (file: string) =>
  parse(fs.readFileSync(file, 'utf8')) as {
    server: Record<string, unknown>;
    options?: Record<string, unknown>;
    $defs?: Record<string, unknown>;
    tools: Record<string, unknown>[];
  };

let original: Awaited<ReturnType<typeof listAll>>;
/** The spec imported over stdio, for the other sources to compare with. */
let stdioSpec: string;
beforeAll(async () => {
  original = await listAll(stdioServer());
});

describe('import --from-command (stdio)', () => {
  let dir: string;
  let specFile: string;
  let pidFile: string;
  let run: Run;
  beforeAll(async () => {
    dir = scratch('stdio');
    specFile = path.join(dir, 'toolspec.yaml');
    pidFile = path.join(dir, 'server.pid');
    run = await runCliAsync(['import', '--from-command', serverCommand()], dir, { IMPORT_FIXTURE_PID_FILE: pidFile });
  });

  it('writes the spec, says what it read, and stops the server', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'toolspec.yaml: imported 9 tools from the server legacy-docs 2.3.1 (3 pages of tools/list; options.pageSize: 4 keeps the paging)',
    );
    expect(run.stdout).toContain('checked: generate sends exactly this tools/list');
    expect(processGone(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['server.pid', 'toolspec.yaml']);
  });

  it('is the YAML a person would keep (golden file)', async () => {
    stdioSpec = fs.readFileSync(specFile, 'utf8');
    await expect(stdioSpec).toMatchFileSnapshot('../fixtures/import/expected/toolspec.yaml');
  });

  it('keeps every tool in order, every field as sent, and the server identity', () => {
    const spec = readSpec(specFile);
    expect(original.pages).toBe(3);
    expect(spec.tools).toEqual(TOOLS);
    expect(spec.tools.map((t) => t['name'])).toEqual(original.tools.map((t) => t.name));
    expect(spec.server).toEqual({ ...SERVER_INFO, instructions: INSTRUCTIONS });
    // The server's own $refs are kept as sent: bundled, not inlined.
    expect(spec.options).toEqual({ pageSize: PAGE_SIZE, refs: 'bundle' });
    const text = fs.readFileSync(specFile, 'utf8');
    expect(text).toMatch(/\n {4}description: >-\n {6}Search the documentation/);
    expect(text).toMatch(/\n {4}description: \|\n {6}Open one page by id\.\n\n/);
    expect(text).toContain('  instructions: |-\n');
    expect(text).toContain('required: [query]');
    expect(text).toContain('\\u2028 stays inert."');
    expect(text).not.toMatch(/: \{ /);
  });

  it('passes toolspec validate', () => {
    const r = runCli(['validate', 'toolspec.yaml'], dir);
    expect(r.stdout).toContain('toolspec.yaml is valid: 9 tools');
    expect(r.code).toBe(0);
  });

  it('round trip: the generated server lists exactly what the original listed, paged the same way', async () => {
    const generated = await generateAndList(dir, 'toolspec.yaml');
    expect(generated.tools).toEqual(original.tools);
    expect(generated.pages).toBe(original.pages);
    expect(generated.info).toEqual(original.info);
    expect(generated.instructions).toBe(original.instructions);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'src/generated/manifest.json'), 'utf8')) as {
      tools: unknown[];
    };
    expect(manifest.tools).toEqual(TOOLS);
  });
});

describe('import --hoist', () => {
  let dir: string;
  let run: Run;
  beforeAll(async () => {
    dir = scratch('hoist');
    run = await runCliAsync(['import', '--from-command', serverCommand(), '--hoist'], dir);
  });

  it('moves sub-schemas that several tools repeat into $defs, named after their title or property', async () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'hoisted into $defs: PostalAddress (create_contact, update_contact); Limit (search.docs, create_contact)',
    );
    const spec = readSpec(path.join(dir, 'toolspec.yaml'));
    expect(Object.keys(spec.$defs ?? {})).toEqual(['PostalAddress', 'Limit']);
    const update = spec.tools.find((t) => t['name'] === 'update_contact')!;
    expect(update['inputSchema']).toMatchObject({
      properties: {
        address: { $ref: '#/$defs/PostalAddress' },
        others: { type: 'array', items: { $ref: '#/$defs/PostalAddress' } },
      },
    });
    // Schemas that resolve against their own root stay where they are.
    expect(spec.tools[0]!['inputSchema']).toMatchObject({ properties: { filter: { $ref: '#/$defs/Filter' } } });
    await expect(fs.readFileSync(path.join(dir, 'toolspec.yaml'), 'utf8')).toMatchFileSnapshot(
      '../fixtures/import/expected/hoisted.yaml',
    );
  });

  it('validates, and the generated server sends schemas that mean the same (the hoisted parts bundled as $defs)', async () => {
    expect(runCli(['validate', 'toolspec.yaml'], dir).code).toBe(0);
    const spec = readSpec(path.join(dir, 'toolspec.yaml'));
    const generated = await generateAndList(dir, 'toolspec.yaml');
    // Not byte-equal: a tool with a hoisted part carries a $ref and a $defs entry for it.
    expect(generated.tools).not.toEqual(original.tools);
    expect(generated.tools.map((t) => inlineShared(t, spec.$defs ?? {}))).toEqual(original.tools);
  });
});

/** The tool with every `$ref` to one of `shared` replaced by its target, and those entries dropped from `$defs`. */
function inlineShared(tool: Tool, shared: Record<string, unknown>): Tool {
  const inline = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(inline);
    if (typeof v !== 'object' || v === null) return v;
    const ref = (v as Record<string, unknown>)['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/$defs/') && ref.slice(8) in shared)
      return inline(shared[ref.slice(8)]);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$defs') {
        const kept = Object.entries(x as Record<string, unknown>).filter(([name]) => !(name in shared));
        if (kept.length) out[k] = inline(Object.fromEntries(kept));
      } else out[k] = inline(x);
    }
    return out;
  };
  return inline(tool) as Tool;
}

describe('import --from-url (Streamable HTTP)', () => {
  it('reads the same server over HTTP and writes the same spec as over stdio', async () => {
    const http = await startHttp();
    const dir = scratch('http');
    try {
      const run = await runCliAsync(['import', '--from-url', http.url, '--out', 'spec/imported.yaml'], dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('spec/imported.yaml: imported 9 tools from the server legacy-docs 2.3.1 (3 pages');
      expect(fs.readFileSync(path.join(dir, 'spec/imported.yaml'), 'utf8')).toBe(stdioSpec);
    } finally {
      await http.close();
    }
  });

  it('says so when nothing listens at the URL', async () => {
    const http = await startHttp();
    const url = http.url;
    await http.close();
    const dir = scratch('http-refused');
    const run = await runCliAsync(['import', '--from-url', url, '--timeout', '5s'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot connect to ${url}: connection refused`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('import from servers of the 2026-07-28 era', () => {
  /** What a 2026-07-28 client reads of the same server: everything but execution, which that revision removed. */
  const modernSpec = () => stdioSpec.replace(/^( {4})execution:.*\n(?:\1 +.*\n)*/gm, '');

  it('reads a 2026-only server over stdio and over HTTP, and one that speaks both eras', async () => {
    expect(modernSpec()).not.toBe(stdioSpec);
    for (const era of ['modern', 'both'] as const) {
      const dir = scratch(`stdio-${era}`);
      const run = await runCliAsync(['import', '--from-command', serverCommand('tools', era)], dir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('imported 9 tools from the server legacy-docs 2.3.1 (3 pages');
      expect(fs.readFileSync(path.join(dir, 'toolspec.yaml'), 'utf8')).toBe(modernSpec());
      const http = await startHttp('tools', era);
      try {
        const httpDir = scratch(`http-${era}`);
        const viaHttp = await runCliAsync(['import', '--from-url', http.url], httpDir);
        expect(viaHttp.stderr).toBe('');
        expect(fs.readFileSync(path.join(httpDir, 'toolspec.yaml'), 'utf8')).toBe(modernSpec());
      } finally {
        await http.close();
      }
    }
  });
});

describe('import --from-file', () => {
  let dir: string;
  beforeAll(() => {
    dir = scratch('file');
    fs.writeFileSync(path.join(dir, 'tools.json'), JSON.stringify({ tools: TOOLS }, null, 2));
    fs.writeFileSync(path.join(dir, 'array.json'), JSON.stringify(TOOLS));
    fs.writeFileSync(
      path.join(dir, 'response.json'),
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: TOOLS } }),
    );
  });

  it('reads a saved tools/list result, a JSON-RPC response or an array of tools: the same tools as from the server', () => {
    for (const file of ['tools.json', 'array.json', 'response.json']) {
      const out = file.replace('.json', '.yaml');
      const r = runCli(
        ['import', '--from-file', file, '--out', out, '--name', 'legacy-docs', '--server-version', '2.3.1'],
        dir,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${out}: imported 9 tools from ${file}\n`);
      const spec = readSpec(path.join(dir, out));
      expect(spec.tools).toEqual(TOOLS);
      expect(spec.server).toEqual({ name: 'legacy-docs', version: '2.3.1' });
      expect(spec.options).toEqual({ refs: 'bundle' });
    }
    expect(runCli(['validate', 'tools.yaml'], dir).code).toBe(0);
  });

  it('names the server after the file when it is not told a name', () => {
    const r = runCli(['import', '--from-file', 'tools.json', '--out', 'named.yaml'], dir);
    expect(r.code).toBe(0);
    expect(readSpec(path.join(dir, 'named.yaml')).server).toEqual({ name: 'tools', version: '0.0.0' });
  });

  it('keeps a tool that lint would stop, with a suppression that says why', () => {
    const tool = {
      name: 'wipe',
      description: 'Wipe the cache and report how much was freed.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, destructiveHint: true },
    };
    fs.writeFileSync(path.join(dir, 'hints.json'), JSON.stringify([tool]));
    const r = runCli(['import', '--from-file', 'hints.json', '--out', 'hints.yaml'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kept as the server has it, with options.lint.ignore: conflicting-hints for wipe');
    const spec = readSpec(path.join(dir, 'hints.yaml'));
    expect(spec.tools).toEqual([tool]);
    expect(spec.options).toEqual({
      lint: {
        ignore: [
          {
            rule: 'conflicting-hints',
            tools: ['wipe'],
            reason: 'imported as the server defines it; review, then remove this entry',
          },
        ],
      },
    });
    expect(runCli(['validate', 'hints.yaml'], dir).code).toBe(0);
  });

  it('leaves out fields MCP does not define, and says which', () => {
    fs.writeFileSync(
      path.join(dir, 'extra.json'),
      JSON.stringify([{ ...TOOLS[2], vendorField: 1, annotations: { readOnlyHint: true, costHint: 'low' } }]),
    );
    const r = runCli(['import', '--from-file', 'extra.json', '--out', 'extra.yaml'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: tool "list-sections": field "vendorField" is not part of MCP\'s Tool object and was left out',
    );
    expect(r.stderr).toContain(
      'warning: tool "list-sections": annotations.costHint is not part of MCP\'s Tool object and was left out',
    );
    expect(readSpec(path.join(dir, 'extra.yaml')).tools).toEqual([
      { ...TOOLS[2], annotations: { readOnlyHint: true } },
    ]);
  });

  it('refuses a file that is not a tools/list result', () => {
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ "tools": [');
    fs.writeFileSync(path.join(dir, 'other.json'), '{ "resources": [] }');
    const broken = runCli(['import', '--from-file', 'broken.json', '--out', 'broken.yaml'], dir);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^toolspec: broken\.json is not JSON: /);
    const other = runCli(['import', '--from-file', 'other.json', '--out', 'other.yaml'], dir);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('other.json holds no tools: expected a tools/list result');
    const missing = runCli(['import', '--from-file', 'nope.json', '--out', 'nope.yaml'], dir);
    expect(missing.stderr).toBe('toolspec: cannot find nope.json\n');
    expect(['broken.yaml', 'other.yaml', 'nope.yaml'].filter((f) => fs.existsSync(path.join(dir, f)))).toEqual([]);
  });
});

describe('import failures: clear messages, exit 2, nothing written, no process left behind', () => {
  it('a command that does not exist', async () => {
    const dir = scratch('enoent');
    const r = await runCliAsync(['import', '--from-command', 'no-such-mcp-server --stdio'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('toolspec: cannot start "no-such-mcp-server": no such command or file');
    expect(r.stderr).toContain('hint: check the command and PATH');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a command that exits at once: its exit code and the end of its stderr', async () => {
    const dir = scratch('exit');
    const r = await runCliAsync(['import', '--from-command', serverCommand('exit')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `the server ${JSON.stringify(serverCommand('exit'))} exited with code 3 before answering initialize`,
    );
    expect(r.stderr).toContain('its stderr ends with:\n    legacy-docs: DOCS_TOKEN is not set');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a 2025 server that ignores the era probe (server/discover): imported after a short probe, not the whole --timeout', async () => {
    const dir = scratch('deaf');
    const started = Date.now();
    const r = await runCliAsync(['import', '--from-command', serverCommand('deaf'), '--timeout', '30s'], dir);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('imported 9 tools from the server legacy-docs 2.3.1');
    // The probe waits 3 s; the whole import took 30 s and more before.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('a server that never answers initialize: stopped after --timeout', async () => {
    const dir = scratch('silent');
    const pidFile = path.join(dir, 'server.pid');
    const r = await runCliAsync(['import', '--from-command', serverCommand('silent'), '--timeout', '1s'], dir, {
      IMPORT_FIXTURE_PID_FILE: pidFile,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did not answer initialize within 1s; it was stopped');
    expect(processGone(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['server.pid']);
  });

  it('a server that pages without end: stopped past the tool limit, with a message', async () => {
    const dir = scratch('endless');
    const started = Date.now();
    const r = await runCliAsync(['import', '--from-command', serverCommand('endless')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('listed more than 2000 tools by tools/list (page 21)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('stops what the server started too', async () => {
    const dir = scratch('grandchild');
    const grandchild = path.join(dir, 'grandchild.pid');
    const r = await runCliAsync(['import', '--from-command', serverCommand('grandchild'), '--out', '-'], dir, {
      IMPORT_FIXTURE_GRANDCHILD_FILE: grandchild,
    });
    expect(r.code).toBe(0);
    const pid = Number(fs.readFileSync(grandchild, 'utf8'));
    await expect.poll(() => processGone(pid), { timeout: 10_000 }).toBe(true);
  });

  it('a tool nested deeper than a spec may be: refused with a message, or left out with --skip-invalid', async () => {
    const dir = scratch('deep');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 500; i++) deep = { type: 'object', properties: { a: deep } };
    const ok = {
      name: 'ok',
      description: 'A tool that is fine as it is.',
      inputSchema: { type: 'object', additionalProperties: false },
    };
    fs.writeFileSync(
      path.join(dir, 'tools.json'),
      JSON.stringify({ tools: [{ name: 'deep', description: 'A deep one.', inputSchema: deep }, ok] }),
    );
    const refused = await runCliAsync(['import', '--from-file', 'tools.json'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('tool "deep" nests more than 97 levels deep');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const skipped = await runCliAsync(['import', '--from-file', 'tools.json', '--skip-invalid'], dir);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('tool "deep": left out (--skip-invalid): nests more than 97 levels deep');
    expect(readSpec(path.join(dir, 'toolspec.yaml')).tools.map((t) => t['name'])).toEqual(['ok']);
  });

  it('a server without tools', async () => {
    const dir = scratch('empty');
    const none = await runCliAsync(['import', '--from-command', serverCommand('no-tools')], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'the server legacy-docs 2.3.1 offers no tools (its initialize result declares no tools capability); there is nothing to import and nothing was written',
    );
    const empty = await runCliAsync(['import', '--from-command', serverCommand('empty')], dir);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      'the server legacy-docs 2.3.1 lists no tools; there is nothing to import and nothing was written',
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('tools toolspec refuses: each named with the reason; --skip-invalid imports the others', async () => {
    const dir = scratch('refused');
    const r = await runCliAsync(['import', '--from-command', serverCommand('refused')], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: tool "bad name!": name: invalid tool name "bad name!" (TS011)');
    expect(r.stderr).toContain(
      'error: tool "scalar_root": inputSchema.type: inputSchema must have type "object" at its root, not "string" (TS023)',
    );
    expect(r.stderr).toContain('toolspec: 2 of 4 tools cannot be imported as they are; nothing was written');
    expect(r.stderr).toContain('pass --skip-invalid to import the other 2');
    expect(r.stderr).not.toContain('list-sections');
    expect(fs.readdirSync(dir)).toEqual([]);

    const skip = await runCliAsync(['import', '--from-command', serverCommand('refused'), '--skip-invalid'], dir);
    expect(skip.code).toBe(0);
    expect(skip.stderr).toContain('warning: tool "bad name!": left out (--skip-invalid)');
    expect(skip.stderr).toContain('warning: tool "scalar_root": left out (--skip-invalid)');
    expect(skip.stdout).toContain('imported 2 tools');
    expect(readSpec(path.join(dir, 'toolspec.yaml')).tools).toEqual([REFUSED_TOOLS[0], REFUSED_TOOLS[3]]);
    expect(runCli(['validate'], dir).code).toBe(0);
  });

  it('--out that exists: refused before the server starts, replaced atomically with --force', async () => {
    const dir = scratch('exists');
    const pidFile = path.join(dir, 'server.pid');
    const target = path.join(dir, 'toolspec.yaml');
    fs.writeFileSync(target, 'my own spec\n');
    const r = await runCliAsync(['import', '--from-command', serverCommand()], dir, {
      IMPORT_FIXTURE_PID_FILE: pidFile,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'toolspec: toolspec.yaml exists already; nothing was imported\n  hint: pass --force to replace it',
    );
    expect(fs.readFileSync(target, 'utf8')).toBe('my own spec\n');
    expect(fs.existsSync(pidFile)).toBe(false);

    const forced = await runCliAsync(['import', '--from-command', serverCommand(), '--force'], dir);
    expect(forced.code).toBe(0);
    expect(readSpec(target).tools).toEqual(TOOLS);
    expect(fs.readdirSync(dir)).toEqual(['toolspec.yaml']);
  });

  it('bad usage', () => {
    const dir = scratch('usage');
    const none = runCli(['import'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'say where the tools come from: --from-command "<command>", --from-url <url> or --from-file <tools.json>',
    );
    const two = runCli(['import', '--from-file', 'a.json', '--from-url', 'http://127.0.0.1:1/mcp'], dir);
    expect(two.stderr).toContain('give only one of');
    const timeout = runCli(['import', '--from-file', 'a.json', '--timeout', '10'], dir);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('--timeout "10" is not a duration');
    const folder = runCli(['import', '--from-file', 'a.json', '--out', '.'], dir);
    expect(folder.stderr).toContain('is a folder');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('the YAML writer', () => {
  const data = (description: string, extra: Record<string, unknown> = {}) => ({
    toolspec: 1,
    server: { name: 's', version: '1.0.0' },
    tools: [{ name: 't', description, inputSchema: { type: 'object', ...extra } }],
  });
  const written = (d: Record<string, unknown>) => specYaml(d, ['h']);

  it('reads back as the very data it was written from, whatever the text holds', () => {
    const texts = [
      'x'.repeat(200),
      'two  spaces make folding unsafe, so this long description stays on one line in plain style when written out',
      '  leading spaces and long enough to be folded if it were not for those two spaces at the start of it all',
      'trailing space \nnext line',
      'line one\nline two\n\n',
      'tab\tinside',
      'no-break\u00a0space and line\u2028separator and BOM\ufeff and NEL\u0085',
      '',
      'yes',
      '"quoted" # not a comment: really',
      '- not a list\n? not a key\n| not a block',
    ];
    for (const text of texts) {
      const d = data(text, {
        properties: { [text || 'empty']: { type: 'string', enum: [text, 'null', '1.0'], default: text } },
      });
      const yaml = written(d);
      expect(parse(yaml)).toEqual(d);
      expect(yaml).not.toMatch(/[\u0085\u00a0\u2028\ufeff]/);
      expect(yaml).not.toMatch(/ \n/);
    }
  });

  it('reads back as the same data for any text and any JSON (property test)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({
        unit: fc.constantFrom(' ', '\n', 'a', 'b', '#', ':', '-', '\t', '"', "'", '\u2028', '|', '>', '&', '*'),
        maxLength: 120,
      }),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(text, fc.dictionary(text, json, { maxKeys: 5 }), (description, properties) => {
        const d = JSON.parse(JSON.stringify(data(description, { properties }))) as Record<string, unknown>;
        const yaml = written(d);
        expect(parse(yaml)).toEqual(d);
        expect(yaml).not.toMatch(/[ \t]\n/);
      }),
      { numRuns: 500 },
    );
  });

  it('folds long descriptions, keeps line breaks literal and puts short scalar lists on one line', () => {
    const long = 'Search the documentation and return matching passages, best first, with a score for each passage.';
    const yaml = written(
      data(long, { properties: { q: { type: 'string', description: 'one\ntwo' } }, required: ['q'] }),
    );
    expect(yaml).toContain(`    description: >-\n      Search the documentation`);
    expect(yaml).toContain('          description: |-\n            one\n            two\n');
    expect(yaml).toContain('      required: [q]\n');
    expect(yaml.startsWith('# h\n')).toBe(true);
  });
});

describe('the command line of --from-command', () => {
  it('is split into words as a shell would, without running one', () => {
    expect(splitCommand('node build/index.js --port 3000')).toEqual(['node', 'build/index.js', '--port', '3000']);
    expect(splitCommand(`python -m "my server" 'a b' c\\ d ""`)).toEqual([
      'python',
      '-m',
      'my server',
      'a b',
      'c d',
      '',
    ]);
    expect(splitCommand('node "say \\"hi\\"" $HOME')).toEqual(['node', 'say "hi"', '$HOME']);
    expect(() => splitCommand('node "unclosed')).toThrow('unclosed " quote');
  });
});

describe('hoisting', () => {
  const tag = () => ({ type: 'string', minLength: 1, maxLength: 20 });
  const tool = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name,
    inputSchema: { type: 'object', properties, ...extra },
  });

  it('names a shared schema after its property, avoids names a tool schema defines itself, and needs two tools', () => {
    const tools = [
      tool('a', { tags: { type: 'array', items: tag() }, other: tag() }, { $defs: { TagsItem: { type: 'string' } } }),
      tool('b', { labels: { type: 'array', items: tag() } }),
      tool('c', {
        once: { type: 'integer', minimum: 0, maximum: 9 },
        again: { type: 'integer', minimum: 0, maximum: 9 },
      }),
    ];
    const { defs, hoisted } = hoist(tools);
    expect(hoisted).toEqual([{ name: 'TagsItem2', tools: ['a', 'b'], uses: 3 }]);
    expect(defs).toEqual({ TagsItem2: tag() });
    expect(tools[0]!.inputSchema.properties).toEqual({
      tags: { type: 'array', items: { $ref: '#/$defs/TagsItem2' } },
      other: { $ref: '#/$defs/TagsItem2' },
    });
    expect(tools[2]!.inputSchema.properties['once']).toEqual({ type: 'integer', minimum: 0, maximum: 9 });
  });

  it("leaves schemas with $ref (or any $ keyword) where they are, and what lies in a schema's own $defs", () => {
    const withRef = () => ({ type: 'object', properties: { x: { $ref: '#/$defs/X' } }, additionalProperties: false });
    const own = () => ({ X: { type: 'string', minLength: 1, maxLength: 5 } });
    const tools = [tool('a', { p: withRef() }, { $defs: own() }), tool('b', { q: withRef() }, { $defs: own() })];
    const before = structuredClone(tools);
    expect(hoist(tools)).toEqual({ defs: {}, hoisted: [] });
    expect(tools).toEqual(before);
  });
});
