/**
 * Hostile specs: bytes that are not UTF-8, control characters that a terminal would act on, inputs too large or
 * too deep to load safely, and option folders that are files. Each must end in diagnostics and exit 2, never in a
 * hang, an out-of-memory or an internal error (exit 3). Large inputs are generated here, in temp folders.
 */
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { Diagnostics, type Diagnostic } from '../src/core/diagnostics.js';
import { firstInvalidUtf8 } from '../src/pipeline/load/decode.js';
import { loadSpec } from '../src/pipeline/load/load.js';
import { MAX_DEPTH, MAX_FILE_BYTES, MAX_TEXT_CHARS, MAX_TOOLS, MAX_TOTAL_BYTES } from '../src/pipeline/load/limits.js';
import { depthOf } from '../src/pipeline/load/source.js';
import { renderText } from '../src/report/findings.js';
import { PLAIN, visible } from '../src/report/text.js';
import { loadModel } from '../src/compile.js';
import { tempProject } from './helpers/tmp.js';

const repo = path.resolve(import.meta.dirname, '..');
const todo = fs.readFileSync(path.join(repo, 'specs/todo/toolspec.yaml'));

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});

function project(files: Record<string, string | Uint8Array> = {}): string {
  const p = tempProject({});
  cleanups.push(p.cleanup);
  for (const [name, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(p.dir, name)), { recursive: true });
    fs.writeFileSync(path.join(p.dir, name), data);
  }
  return p.dir;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

/** `toolspec <args>` in this process, as the binary runs it without a terminal. */
async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(['node', 'toolspec', ...args], { stdout, stderr, cwd, env: { NO_COLOR: '1' } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const at = (d: Diagnostic) => `${d.file}:${d.line}:${d.column} ${d.code}`;
const errorsOf = (dir: string) =>
  loadModel('toolspec.yaml', { cwd: dir }).diagnostics.filter((d) => d.severity === 'error');

const HEAD = 'toolspec: 1\nserver: { name: s, version: 1.0.0 }\n';
const TOOL = (i: number) => `  - { name: t${i}, description: T., inputSchema: { type: object } }\n`;

describe('spec files must be UTF-8', () => {
  it('reports a byte that is not UTF-8 at its line and column, instead of reading it as U+FFFD', async () => {
    const dir = project({ 'toolspec.yaml': Buffer.concat([Buffer.from([0x80]), todo]) });
    const r = await run(['validate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'toolspec.yaml:1:1 error TS036 toolspec.yaml is not valid UTF-8: the byte 0x80 here does not form a character',
    );
    expect(r.stderr).toContain('hint: re-save the file as UTF-8');
    expect(r.stderr).not.toContain('TS006');
    expect(r.stderr).not.toContain('\ufffd');
  });

  it('finds the bad byte inside a value, and in an included file', () => {
    // "é" typed in Latin-1: the single byte E9, then ASCII.
    const latin1 = Buffer.concat([
      Buffer.from(`${HEAD}include: [more.yaml]\ntools:\n  - name: a\n    description: Caf`),
      Buffer.from([0xe9]),
      Buffer.from(' au lait.\n    inputSchema: { type: object }\n'),
    ]);
    const more = Buffer.concat([
      Buffer.from('tools:\n  - name: b\n    description: "'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('"\n'),
    ]);
    const dir = project({ 'toolspec.yaml': latin1, 'more.yaml': more });
    expect(errorsOf(dir).map((d) => `${at(d)} ${d.message}`)).toEqual([
      'toolspec.yaml:6:21 TS036 toolspec.yaml is not valid UTF-8: the byte 0xE9 here does not form a character; spec files must be UTF-8',
    ]);
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), `${HEAD}include: [more.yaml]\n`);
    expect(errorsOf(dir).map((d) => `${at(d)} ${d.message}`)).toEqual([
      'more.yaml:3:19 TS036 more.yaml is not valid UTF-8: the bytes 0xE2 0x82 here do not form a character; spec files must be UTF-8',
    ]);
  });

  it('accepts a UTF-8 byte order mark at the start, and names UTF-16 when it sees its byte order mark', () => {
    const dir = project({ 'toolspec.yaml': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), todo]) });
    const ok = loadModel('toolspec.yaml', { cwd: dir });
    expect(ok.diagnostics).toEqual([]);
    expect(ok.model?.tools).toHaveLength(4);
    for (const [bom, name] of [
      [[0xff, 0xfe], '0xFF 0xFE'],
      [[0xfe, 0xff], '0xFE 0xFF'],
    ] as const) {
      const utf16 = Buffer.from(todo.toString('utf8'), 'utf16le');
      if (bom[0] === 0xfe) utf16.swap16();
      fs.writeFileSync(path.join(dir, 'toolspec.yaml'), Buffer.concat([Buffer.from(bom), utf16]));
      expect(errorsOf(dir).map((d) => `${at(d)} ${d.message}`)).toEqual([
        `toolspec.yaml:1:1 TS036 toolspec.yaml is UTF-16 (it starts with the byte order mark ${name}); spec files must be UTF-8`,
      ]);
    }
  });

  it('finds the first ill-formed sequence exactly where a strict decoder fails', () => {
    const cases: [number[], { offset: number; length: number } | undefined][] = [
      [[0x61, 0xc3, 0xa9], undefined], // é
      [[0xf0, 0x9f, 0x98, 0x80], undefined], // an emoji
      [[0x61, 0xc0, 0x80], { offset: 1, length: 1 }], // overlong NUL
      [[0xed, 0xa0, 0x80], { offset: 0, length: 1 }], // a surrogate
      [[0xf4, 0x90, 0x80, 0x80], { offset: 0, length: 1 }], // past U+10FFFF
      [[0x61, 0xe2, 0x82], { offset: 1, length: 2 }], // cut short at the end
      [[0xe2, 0x82, 0x41], { offset: 0, length: 2 }],
    ];
    for (const [bytes, want] of cases) expect(firstInvalidUtf8(Uint8Array.from(bytes)), bytes.join(' ')).toEqual(want);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        let valid = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          valid = false;
        }
        const bad = firstInvalidUtf8(bytes);
        if (valid !== (bad === undefined)) return false;
        // Everything before the bad sequence decodes.
        if (bad) new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, bad.offset));
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('control characters from the spec are printed escaped', () => {
  const ESC = '\u001b';
  it('escapes them in the message, the code frame and the hint, with the caret still under the key', async () => {
    const spec = todo.toString('utf8').replace('    title: Add item', `    ${ESC}[2J\u0007title: Add item`);
    expect(spec).toContain(ESC);
    const dir = project({ 'toolspec.yaml': spec });
    const r = await run(['validate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    const lines = r.stderr.split('\n');
    const head = lines.findIndex((l) => l.includes('TS006'));
    expect(lines.slice(head, head + 4)).toEqual([
      `toolspec.yaml:13:5 error TS006 unknown field "\\u001b[2J\\u0007title" in tool "add_item"`,
      '  13 |     \\u001b[2J\\u0007title: Add item',
      '     |     ^^^^^^^^^^^^^^^^^^^^',
      '  hint: the name holds invisible or control characters (shown as \\u escapes); without them it reads "title": retype the key',
    ]);
  });

  it('escapes C0 and C1 controls, DEL, line separators and bidirectional controls, and nothing else', () => {
    for (const c of [
      '\u0000',
      '\u0007',
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u007f',
      '\u0085',
      '\u009b',
      '\u2028',
      '\u2029',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069',
      '\u200b',
      '\ufeff',
    ]) {
      expect(visible(`a${c}b`), JSON.stringify(c)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`);
    }
    expect(visible('plain ascii, "quotes" \\ é 中文 😀 ~')).toBe('plain ascii, "quotes" \\ é 中文 😀 ~');
  });

  it('keeps tabs as one space in frames, cuts long lines around the caret, and never prints a raw control', () => {
    const d: Diagnostic = {
      code: 'TS021',
      severity: 'error',
      file: 'f\u001b.yaml',
      line: 1,
      column: 3,
      endLine: 1,
      endColumn: 6,
      message: 'm\u202e',
      hint: 'h\u0085',
    };
    expect(renderText(d, PLAIN, { source: '\tx\u2028yz\n' })).toBe(
      ['f\\u001b.yaml:1:3 error TS021 m\\u202e', '  1 |  x\\u2028yz', '    |   ^^^^^^^^', '  hint: h\\u0085'].join(
        '\n',
      ),
    );
    const long = `${'a'.repeat(300)}\u001b${'b'.repeat(300)}`;
    const out = renderText({ ...d, column: 301, endColumn: 302 }, PLAIN, { source: long }).split('\n');
    expect(out[1]).toBe(`  1 | …${'a'.repeat(19)}\\u001b${'b'.repeat(74)}`);
    expect(out[2]).toBe(`    | ${' '.repeat(20)}^^^^^^`);
    // Cut right at an escape: "…" takes its place whole, and the caret stays under its character.
    const atEscape = renderText({ ...d, column: 96, endColumn: 97 }, PLAIN, {
      source: `${'a'.repeat(79)}\u001b${'b'.repeat(300)}`,
    }).split('\n');
    expect(atEscape[1]).toBe(`  1 | …${'b'.repeat(94)}`);
    expect(atEscape[2]).toBe(`    | ${' '.repeat(16)}^`);
  });
});

describe('inputs too large or too deep get a diagnostic, not a hang or a crash', () => {
  it('refuses a 50 MB spec file before reading it', async () => {
    const dir = project({});
    const fd = fs.openSync(path.join(dir, 'toolspec.yaml'), 'w');
    fs.writeSync(fd, `${HEAD}tools:\n  - name: t\n    description: `);
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < 50; i++) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    expect(fs.statSync(path.join(dir, 'toolspec.yaml')).size).toBeGreaterThan(50 * 1024 * 1024);
    const r = await run(['validate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `toolspec.yaml:1:1 error TS037 toolspec.yaml is 50.0 MiB; a spec file may hold at most ${MAX_FILE_BYTES / 1024 / 1024} MiB`,
    );
  });

  it('refuses a pipe named as an include instead of waiting on it forever', () => {
    const dir = project({ 'toolspec.yaml': `${HEAD}include: [pipe.yaml]\ntools:\n${TOOL(0)}` });
    execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
    expect(errorsOf(dir).map((d) => `${at(d)} ${d.message}`)).toEqual([
      'toolspec.yaml:3:11 TS005 pipe.yaml is not a regular file',
    ]);
  });

  it('refuses includes that together pass the total limit, at the include that does', () => {
    const filler = (n: number) => `tools: []\n# ${'x'.repeat(n)}\n`;
    const part = Math.floor(MAX_FILE_BYTES * 0.9);
    const files: Record<string, string> = { 'toolspec.yaml': `${HEAD}include: [parts/]\ntools:\n${TOOL(0)}` };
    const count = Math.ceil(MAX_TOTAL_BYTES / part);
    for (let i = 0; i < count; i++) files[`parts/p${i}.yaml`] = filler(part);
    const dir = project(files);
    const errors = errorsOf(dir);
    expect(errors.map(at)).toEqual(['toolspec.yaml:3:11 TS037']);
    expect(errors[0]!.message).toMatch(
      new RegExp(
        `^parts/p${count - 1}\\.yaml \\(3\\.6 MiB\\) would bring the spec and its includes to .* MiB; together they may hold at most ${MAX_TOTAL_BYTES / 1024 / 1024} MiB$`,
      ),
    );
  });

  it('counts tools before checking their schemas: 10,000 tools stop at the first past the limit', async () => {
    const dir = project({
      'toolspec.yaml': `${HEAD}tools:\n${Array.from({ length: 10_000 }, (_, i) => TOOL(i)).join('')}`,
    });
    const r = await run(['validate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `toolspec.yaml:${4 + MAX_TOOLS}:5 error TS037 the spec has more than ${MAX_TOOLS} tools: this is tool ${MAX_TOOLS + 1}, and ${10_000 - MAX_TOOLS - 1} more follow in this file`,
    );
    expect(r.stderr.match(/ error TS\d+ /g)).toHaveLength(1);
  });

  it('counts tools across included files, and reports the first one past the limit once', () => {
    const half = (from: number) =>
      `tools:\n${Array.from({ length: MAX_TOOLS / 2 + 1 }, (_, i) => TOOL(from + i)).join('')}`;
    const dir = project({
      'toolspec.yaml': `${HEAD}include: [a.yaml, b.yaml, c.yaml]\n`,
      'a.yaml': half(0),
      'b.yaml': half(5000),
      'c.yaml': half(9000),
    });
    const diags = new Diagnostics();
    const raw = loadSpec('toolspec.yaml', diags, { cwd: dir });
    expect(diags.sorted(raw!.files.map((f) => f.displayPath)).map(at)).toEqual([`b.yaml:${MAX_TOOLS / 2 + 1}:5 TS037`]);
    // The first MAX_TOOLS are kept (and checked as usual); the rest are left out.
    expect(raw!.tools).toHaveLength(MAX_TOOLS);
    expect(raw!.tools.at(-1)!.value['name']).toBe(`t${5000 + MAX_TOOLS / 2 - 2}`);
  });

  // Block mappings indent one more column per level, so the file-size limit already bounds them; 2,000 levels fit.
  const nests: [string, number, (n: number) => string][] = [
    ['flow sequences', 10_000, (n) => `${'['.repeat(n)}${']'.repeat(n)}`],
    ['flow mappings', 10_000, (n) => `${'{a: '.repeat(n)}1${'}'.repeat(n)}`],
    ['block sequences', 10_000, (n) => `${'- '.repeat(n)}x`],
    ['block mappings', 2_000, (n) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1'],
  ];
  for (const [name, count, nest] of nests) {
    it(`refuses ${count} nested ${name} and accepts ${MAX_DEPTH}`, async () => {
      const deep = project({ 'toolspec.yaml': `${HEAD}x-deep:\n  ${nest(count).replace(/\n/g, '\n  ')}\n` });
      const r = await run(['validate'], deep);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`toolspec\\.yaml:\\d+:\\d+ error TS038 the YAML here nests deeper than ${MAX_DEPTH} levels`),
      );
      // At the limit (the top-level mapping is one level): parsed, and judged on its content.
      const ok = project({ 'toolspec.yaml': `${HEAD}x-deep:\n  ${nest(MAX_DEPTH - 1).replace(/\n/g, '\n  ')}\n` });
      expect(errorsOf(ok).map((d) => d.code)).toEqual(['TS006']);
      const over = project({ 'toolspec.yaml': `${HEAD}x-deep:\n  ${nest(MAX_DEPTH).replace(/\n/g, '\n  ')}\n` });
      expect(errorsOf(over).map((d) => d.code)).toEqual(['TS038']);
    });
  }

  it('refuses an alias inside its own anchor, and aliases that nest values too deep', async () => {
    const self = project({
      'toolspec.yaml': `${HEAD}tools:\n  - name: t\n    description: T.\n    inputSchema: &s { type: object, properties: { child: *s } }\n`,
    });
    const r = await run(['validate'], self);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'toolspec.yaml:6:58 error TS038 alias "*s" is inside the value of its own anchor, so that value would contain itself without end',
    );
    // Each anchor nests the one before 40 levels deeper: 3 aliases, 160 levels.
    const chain = [
      'a0: &a0 1',
      ...[1, 2, 3, 4].map((i) => `a${i}: &a${i} ${'['.repeat(40)}*a${i - 1}${']'.repeat(40)}`),
    ].join('\n');
    const bomb = project({ 'toolspec.yaml': `${HEAD}x-chain:\n  ${chain.replace(/\n/g, '\n  ')}\n` });
    expect(errorsOf(bomb).map((d) => `${at(d)} ${d.message}`)).toEqual([
      `toolspec.yaml:5:51 TS038 the aliases in this file nest values deeper than ${MAX_DEPTH} levels`,
    ]);
    expect(depthOf({ a: [[1]], b: { c: {} } })).toBe(3);
  });

  it("finds a duplicate among the 100,000 keys of one mapping (yaml's own check compares every pair of keys)", () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `    k${i}: 1\n`).join('');
    const dir = project({ 'toolspec.yaml': `${HEAD}x-wide:\n  m:\n${keys}    k5: 2\n` });
    const errors = errorsOf(dir);
    expect(errors.map((d) => `${at(d)} ${d.message}`)).toEqual([
      'toolspec.yaml:3:1 TS006 unknown field "x-wide" in the spec',
      `toolspec.yaml:${5 + 100_000}:5 TS002 duplicate key "k5"`,
    ]);
  });
});

describe('one text value is at most MAX_TEXT_CHARS long', () => {
  const spec = (n: number) =>
    `toolspec: 1\nserver: { name: s, version: 1.0.0 }\ntools:\n  - name: t\n    description: "${'a'.repeat(n)}"\n    inputSchema: { type: object, additionalProperties: false }\n`;

  it('refuses a description past the limit at its position, and takes one at it', () => {
    const over = loadModel('toolspec.yaml', { cwd: project({ 'toolspec.yaml': spec(MAX_TEXT_CHARS + 1) }) });
    expect(over.model).toBeUndefined();
    expect(over.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
      `5:18 TS037 a text of 100,001 characters; one value may hold at most 100,000`,
    ]);
    const at = loadModel('toolspec.yaml', { cwd: project({ 'toolspec.yaml': spec(MAX_TEXT_CHARS) }) });
    expect(at.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('option folders', () => {
  it('refuses generatedDir or handlersDir naming a file, instead of crashing on ENOTDIR', async () => {
    const spec = todo.toString('utf8').replace(/^server:/m, 'options:\n  generatedDir: toolspec.yaml\nserver:');
    const dir = project({ 'toolspec.yaml': spec });
    const r = await run(['generate'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /toolspec\.yaml:\d+:17 error TS016 options\.generatedDir "toolspec\.yaml" must be a folder, but it is a file/,
    );
    // A file on the way to a default folder, too.
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), todo);
    fs.writeFileSync(path.join(dir, 'src'), 'not a folder');
    const again = await run(['generate'], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('options.generatedDir "src/generated" must be a folder, but "src" is a file');
    expect(again.stderr).toContain('options.handlersDir "src/handlers" must be a folder, but "src" is a file');
  });
});
