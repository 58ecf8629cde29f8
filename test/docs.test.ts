/**
 * Every example of the README and of docs/ is run, so the pages stay true (the conventions for writers are at the
 * top of docs/README.md):
 * - ```yaml: a whole spec (it has `toolspec:`) must pass `toolspec validate`, or, after `<!-- expect: TS0xx -->`,
 *   fail with that code; a fragment (its top-level keys are all keys of a spec: `tools:`, `options:` …) is put into
 *   a minimal spec and validated the same way; `<!-- excerpt of: <path> -->` blocks must be lines of that file, in
 *   order; `<!-- not a spec: <what> -->` blocks (CI steps) must parse as YAML.
 * - A block whose first line is `# file: <path>` or `// file: <path>` is a file of the page's scratch project
 *   (test/.tmp/, so the repository's node_modules resolve); console blocks after the first such block run in it,
 *   those before it in the repository's top folder. `<!-- new project -->` before a file block starts another.
 * - ```console: each `$ [npx] toolspec …` line is run in process (other commands, such as `sed`, with sh), and its
 *   output, stdout and stderr as written, must be what the page shows up to the next `$` line, byte for byte but for
 *   durations (`759 ms`) and trailing blank lines.
 * - ```ts: file blocks are type-checked together at the end of the page, with the compiler options of an init
 *   project, against the project's generated files (generate runs first if the page did not); excerpts as above.
 *   A whole program per page is a second or two; a bare snippet cannot be checked and must be marked not run.
 * - Any block may be `<!-- not run: <reason> -->`; those are listed below, and a new one fails until it is added.
 * - Links: every relative link and `#anchor` of these pages must reach a file and a heading.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../src/cli.js';
import { repoRoot } from './helpers/cli.js';
import { compile } from './helpers/project.js';

/**
 * The examples that cannot run in this tier, each for a reason it names: a server to import, a command that runs
 * until stopped, a project installed with npm, a git history. The e2e tier runs each of these commands for real.
 * At most this many: more means pages that tell instead of show.
 */
const NOT_RUN = [
  'docs/commands/dev.md',
  'docs/commands/diff.md',
  'docs/commands/generate.md',
  'docs/commands/import.md',
  'docs/spec/examples.md',
];
const MAX_NOT_RUN = 5;

const SPEC_KEYS = new Set([
  'toolspec',
  'server',
  'auth',
  'options',
  '$defs',
  'include',
  'tools',
  'prompts',
  'resources',
  'resourceTemplates',
]);
const MINIMAL = { toolspec: 1, server: { name: 'docs-example', version: '1.0.0' } };

/** The compiler options of a project from `toolspec init` (its tsconfig.json). */
const INIT_PROJECT_OPTIONS = {
  noUnusedLocals: false,
  noUnusedParameters: false,
  exactOptionalPropertyTypes: false,
  noImplicitReturns: false,
  noImplicitOverride: false,
  noFallthroughCasesInSwitch: false,
};

interface Block {
  page: string;
  line: number;
  lang: string;
  text: string;
  directive?: { kind: 'expect' | 'not run' | 'excerpt of' | 'not a spec' | 'new project'; value: string };
  file?: string;
}

function pages(): string[] {
  const docs = (fs.readdirSync(path.join(repoRoot, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.posix.join('docs', f.split(path.sep).join('/')));
  return ['README.md', ...docs.sort()];
}

function blocks(page: string, source: string): Block[] {
  const lines = source.split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && lines[end] !== '```') end++;
    const body = lines.slice(start + 1, end);
    let prev = start - 1;
    while (prev >= 0 && lines[prev]!.trim() === '') prev--;
    const d =
      prev >= 0 ? /^<!-- (expect|not run|excerpt of|not a spec|new project)(?:: (.+?))? -->$/.exec(lines[prev]!) : null;
    const label = /^(?:#|\/\/) file: (\S+)$/.exec(body[0] ?? '');
    found.push({
      page,
      line: start + 1,
      lang: open[1]!,
      text: (label ? body.slice(1) : body).join('\n') + '\n',
      ...(d ? { directive: { kind: d[1] as 'expect', value: d[2] ?? '' } } : {}),
      ...(label ? { file: label[1]! } : {}),
    });
    i = end;
  }
  return found;
}

/** The CLI in this process, stdout and stderr in one stream in the order written, as a terminal shows them. */
async function toolspec(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const code = await main(['node', 'toolspec', ...args], { stdout: sink, stderr: sink, env: { NO_COLOR: '' }, cwd });
  return { code, output: chunks.join('') };
}

/** Words of a command line as a shell splits them: quotes and backslashes, no expansion. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}

async function run(command: string, cwd: string): Promise<string> {
  let output = '';
  for (const part of command.split(' && ')) {
    const argv = words(part);
    if (argv[0] === 'npx') argv.shift();
    if (argv[0] === 'toolspec') {
      output += (await toolspec(argv.slice(1), cwd)).output;
    } else {
      output += execSync(part, { cwd, encoding: 'utf8', shell: '/bin/sh' });
    }
  }
  return output;
}

/** What is compared: durations vary from run to run, and trailing blank lines separate commands on a page. */
function normal(text: string): string {
  return text.replace(/\b\d+(?:\.\d+)? ?ms\b/g, '<n> ms').replace(/\s+$/, '');
}

/** A console block's commands, each with the output the page shows for it. */
function commands(text: string): { command: string; expected: string }[] {
  const out: { command: string; expected: string }[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: '' });
    else if (out.length > 0) out[out.length - 1]!.expected += line + '\n';
  }
  return out;
}

async function validate(file: string, cwd: string, expectCode: string | undefined, where: string): Promise<void> {
  const { code, output } = await toolspec(['validate', file], cwd);
  if (expectCode) {
    expect(code, `${where}: must fail validation with ${expectCode}\n${output}`).toBe(2);
    expect(output, `${where}: must fail with ${expectCode}`).toContain(` ${expectCode} `);
  } else {
    expect(code, `${where}: must validate\n${output}`).toBe(0);
  }
}

function excerpt(text: string, file: string, where: string): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let at = 0;
  for (const want of text.replace(/\n$/, '').split('\n')) {
    while (at < lines.length && lines[at] !== want) at++;
    expect(at < lines.length, `${where}: "${want}" is not the next line of ${path.relative(repoRoot, file)}`).toBe(
      true,
    );
    at++;
  }
}

const scratchBase = path.join(repoRoot, 'test', '.tmp');
const kinds = new Map<string, number>();
const count = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
const notRun: Block[] = [];

async function runPage(page: string): Promise<void> {
  const all = blocks(page, fs.readFileSync(path.join(repoRoot, page), 'utf8'));
  fs.mkdirSync(scratchBase, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(scratchBase, 'docs-'));
  let project: string | undefined;
  let pending: Block[] = [];
  const tsFiles = new Set<string>();
  const flush = async () => {
    for (const b of pending)
      await validate(b.file!, project!, b.directive?.kind === 'expect' ? b.directive.value : undefined, where(b));
    pending = [];
  };
  const where = (b: Block) => `${b.page}:${b.line}`;
  try {
    for (const [n, b] of all.entries()) {
      if (b.directive?.kind === 'not run') {
        notRun.push(b);
        continue;
      }
      if (b.file) {
        if (b.directive?.kind === 'new project') {
          await flush();
          project = undefined;
        }
        project ??= fs.mkdtempSync(path.join(scratch, 'project-'));
        const target = path.join(project, b.file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, b.text);
        if (b.lang === 'yaml' && YAML.parse(b.text)?.toolspec !== undefined) {
          pending.push(b);
          count('yaml spec file');
        } else if (b.lang === 'ts') {
          tsFiles.add(target);
          count('ts file, type-checked');
        } else count(`${b.lang} file`);
        continue;
      }
      await flush();
      if (b.directive?.kind === 'excerpt of') {
        const inProject = project && fs.existsSync(path.join(project, b.directive.value));
        excerpt(b.text, path.join(inProject ? project! : repoRoot, b.directive.value), where(b));
        count(`${b.lang} excerpt`);
        continue;
      }
      if (b.lang === 'yaml') {
        const data: unknown = YAML.parse(b.text);
        if (b.directive?.kind === 'not a spec') {
          count('yaml, not a spec (parsed)');
          continue;
        }
        const keys = data && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data) : [];
        const isSpec = keys.includes('toolspec');
        expect(
          keys.length > 0 && keys.every((k) => SPEC_KEYS.has(k)),
          `${where(b)}: a yaml block must be a spec or a fragment of one (its top-level keys those of a spec), or be marked`,
        ).toBe(true);
        const dir = fs.mkdtempSync(path.join(scratch, `block-${n}-`));
        const text = isSpec ? b.text : YAML.stringify({ ...MINIMAL, ...(data as object) });
        fs.writeFileSync(path.join(dir, 'toolspec.yaml'), text);
        const expectCode = b.directive?.kind === 'expect' ? b.directive.value : undefined;
        await validate('toolspec.yaml', dir, expectCode, where(b));
        count(isSpec ? 'yaml spec' : 'yaml fragment');
        continue;
      }
      if (b.lang === 'console') {
        const cmds = commands(b.text);
        expect(
          cmds.length,
          `${where(b)}: a console block runs commands ($ lines), or is marked not run`,
        ).toBeGreaterThan(0);
        for (const c of cmds) {
          const actual = await run(c.command, project ?? repoRoot);
          expect(normal(actual), `${where(b)}: the output of \`${c.command}\``).toBe(normal(c.expected));
          count('console command');
        }
        continue;
      }
      if (b.lang === 'ts' || b.lang === 'typescript') {
        throw new Error(`${where(b)}: a ts block is a file (// file: <path>), an excerpt, or marked not run`);
      }
      if (b.lang === 'json') {
        expect(() => JSON.parse(b.text), where(b)).not.toThrow();
        count('json (parsed)');
      }
    }
    await flush();
    if (tsFiles.size > 0) {
      if (!fs.existsSync(path.join(project!, 'src/generated/contract.ts'))) await toolspec(['generate'], project!);
      typeChecks.push({ page, scratch, files: [...tsFiles] });
    }
  } finally {
    if (!typeChecks.some((c) => c.scratch === scratch)) fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The pages' TypeScript files, type-checked after every page ran, in one program (the SDK's types checked once). */
const typeChecks: { page: string; scratch: string; files: string[] }[] = [];

/** GitHub's anchors of a page's headings. */
function anchors(source: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const line of source.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const h = fence ? null : /^#{1,6} (.+)$/.exec(line);
    if (!h) continue;
    const slug = h[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let s = slug;
    for (let i = 1; out.has(s); i++) s = `${slug}-${i}`;
    out.add(s);
  }
  return out;
}

/** Every relative link of a page outside code. */
function links(source: string): string[] {
  const prose = source
    .replace(/^```[\s\S]*?^```$/gm, '')
    .replace(/^ *```[\s\S]*?^ *```$/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^(https?|mailto):/.test(t));
}

describe('the examples of the docs', () => {
  for (const page of pages()) it(page, () => runPage(page));
  afterAll(() => typeChecks.forEach((c) => fs.rmSync(c.scratch, { recursive: true, force: true })));

  it("every page's TypeScript files type-check (one program for all)", () => {
    expect(typeChecks.length).toBeGreaterThan(0);
    const errors = compile(
      typeChecks.flatMap((c) => c.files),
      INIT_PROJECT_OPTIONS,
    );
    const of = (c: { scratch: string }) => path.relative(repoRoot, c.scratch) + path.sep;
    for (const c of typeChecks)
      expect(
        errors.filter((e) => e.startsWith(of(c))),
        `${c.page}: its ts files type-check`,
      ).toEqual([]);
    expect(errors.filter((e) => !typeChecks.some((c) => e.startsWith(of(c))))).toEqual([]);
  });

  it('run every kind of example, and mark only the listed ones not run', () => {
    for (const kind of ['yaml spec', 'yaml fragment', 'yaml spec file', 'console command', 'ts file, type-checked'])
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    const marked = [...new Set(notRun.map((b) => b.page))].sort();
    expect(
      notRun.length,
      notRun.map((b) => `${b.page}:${b.line} ${b.directive!.value}`).join('\n'),
    ).toBeLessThanOrEqual(MAX_NOT_RUN);
    expect(marked).toEqual(NOT_RUN);
  });

  it('every link reaches a file, and every #anchor a heading', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const source = fs.readFileSync(path.join(repoRoot, page), 'utf8');
      for (const target of links(source)) {
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved =
          file === '' ? path.join(repoRoot, page) : path.resolve(path.dirname(path.join(repoRoot, page)), file);
        if (!fs.existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
