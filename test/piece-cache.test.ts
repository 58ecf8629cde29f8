/**
 * The schema verdicts kept between runs (src/piece-cache.ts) and computed on worker threads (src/validate/
 * parallel.ts): neither may change a byte of what generate writes. Deleting the cache, corrupting it, an entry that
 * does not match its checksum, another build's file, a run killed while it writes the cache, one thread or many:
 * each gives exactly the output of a cold, single-threaded run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the benchmark's seeded spec writer is plain JavaScript
import { writeProject } from '../bench/synth.mjs';
import { judge, type JudgeJob, type Verdict } from '../src/validate/judge.js';
import { judgeInParallel } from '../src/validate/parallel.js';
import { runCli } from './helpers/cli.js';

const TOOLS = 40; // 40 input and ~20 output schemas: enough jobs for three threads

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-pieces-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A seeded project with its own node_modules, so its cache folder is its own. */
function project(name: string, broken = false, tools = TOOLS): string {
  const dir = path.join(root, name);
  (writeProject as (dir: string, n: number) => unknown)(dir, tools);
  // An ajv strict-mode warning (and, broken, a default its own schema rejects): diagnostics come from verdicts too.
  const file = path.join(dir, 'toolspec.yaml');
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    tools: {
      inputSchema: {
        properties: Record<string, Record<string, unknown>>;
        required?: string[];
        additionalProperties?: unknown;
      };
    }[];
  };
  const [first] = Object.values(spec.tools[0]!.inputSchema.properties);
  if (broken) first!['default'] = { wrong: true };
  delete spec.tools[1]!.inputSchema.additionalProperties;
  spec.tools[1]!.inputSchema.required = [...(spec.tools[1]!.inputSchema.required ?? []), 'notAProperty'];
  fs.writeFileSync(file, JSON.stringify(spec, null, 1));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  return dir;
}

const cacheFolder = (dir: string) => path.join(dir, 'node_modules/.cache/toolspec');
const verdictsFile = (dir: string) => {
  const f = fs.readdirSync(cacheFolder(dir)).find((n) => /^verdicts-[0-9a-f]{16}\.json$/.test(n));
  return f && path.join(cacheFolder(dir), f);
};

/** Every file under the project's src/generated, by name. */
function generated(dir: string): Record<string, string> {
  const gen = path.join(dir, 'src/generated');
  return Object.fromEntries(
    (fs.readdirSync(gen, { recursive: true }) as string[])
      .filter((f) => fs.statSync(path.join(gen, f)).isFile())
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(gen, f), 'utf8')]),
  );
}

/** generate from scratch (no generated folder, no record of the last generate); its diagnostics and its files. */
function generateFresh(dir: string, env: Record<string, string> = {}, command = 'generate') {
  fs.rmSync(path.join(dir, 'src/generated'), { recursive: true, force: true });
  for (const f of fs.existsSync(cacheFolder(dir)) ? fs.readdirSync(cacheFolder(dir)) : []) {
    if (f.startsWith('state-')) fs.rmSync(path.join(cacheFolder(dir), f));
  }
  const r = runCli([command, '--format', 'json'], dir, { TOOLSPEC_THREADS: '1', ...env });
  expect(r.code, r.stderr).toBe(command === 'generate' ? 0 : 2);
  const { diagnostics } = JSON.parse(r.stdout) as { diagnostics: { code: string; line: number }[] };
  return {
    diagnostics: diagnostics.map((d) => `${d.code}:${d.line}`),
    files: command === 'generate' ? generated(dir) : {},
  };
}

describe('schema verdicts kept between runs', () => {
  let dir: string;
  let cold: ReturnType<typeof generateFresh>;
  beforeAll(() => {
    dir = project('kept');
    cold = generateFresh(dir);
  }, 60_000);

  it('are written by a run and used by the next, to the same bytes', () => {
    expect(cold.diagnostics).toEqual([expect.stringMatching(/^TS029:/)]);
    const file = verdictsFile(dir)!;
    const entries = Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: object }).entries);
    expect(entries.length).toBeGreaterThanOrEqual(TOOLS);
    const before = fs.statSync(file).mtimeMs;
    expect(generateFresh(dir)).toEqual(cold);
    expect(fs.statSync(file).mtimeMs).toBe(before); // every verdict was found: nothing new to write

    // Deleting the cache changes no byte.
    fs.rmSync(cacheFolder(dir), { recursive: true });
    expect(generateFresh(dir)).toEqual(cold);
  }, 60_000);

  it('are what the next run uses: an entry rewritten with a matching checksum shows in the output', async () => {
    // Not a trust boundary (the cache is the user's own folder), but the proof that a hit is used as it is.
    const { createHash } = await import('node:crypto');
    const file = verdictsFile(dir)!;
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      entries: Record<string, { sum: string; json: string }>;
    };
    const [key, entry] = Object.entries(data.entries).find(([, e]) => (JSON.parse(e.json) as Verdict).compiled)!;
    const verdict = JSON.parse(entry.json) as Verdict;
    verdict.compiled!.source += '\n/*kept*/';
    entry.json = JSON.stringify(verdict);
    entry.sum = createHash('sha256').update(key).update('\0').update(entry.json).digest('hex');
    // And the kept parse of the spec: the data of an unchanged file is taken from it, not parsed again.
    const [parseKey, parse] = Object.entries(data.entries).find(([, e]) => e.json.startsWith('{"text":'))!;
    const kept = JSON.parse(parse.json) as { value: { server: { version: string } } };
    kept.value.server.version = '9.9.9-kept';
    parse.json = JSON.stringify(kept);
    parse.sum = createHash('sha256').update(parseKey).update('\0').update(parse.json).digest('hex');
    fs.writeFileSync(file, JSON.stringify(data));
    const files = generateFresh(dir).files;
    expect(files['validators.ts']).toContain('/*kept*/');
    expect(Object.values(files).some((f) => f.includes('9.9.9-kept'))).toBe(true);
    fs.rmSync(file);
    expect(generateFresh(dir)).toEqual(cold);
  }, 60_000);

  it('ignore an entry that does not match its checksum, a torn file and another build’s file', () => {
    const file = verdictsFile(dir)!;
    const text = fs.readFileSync(file, 'utf8');
    const data = JSON.parse(text) as { generator: string; entries: Record<string, { json: string }> };

    // Every entry altered (verdicts, pieces of types, the kept parse), checksums left: none is trusted.
    for (const e of Object.values(data.entries))
      e.json = e.json.replace(/"$/, ' /*tampered*/"').replace(/\}$/, ',"x":1}');
    fs.writeFileSync(file, JSON.stringify(data));
    const tampered = generateFresh(dir);
    expect(tampered).toEqual(cold);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('tampered'); // and written whole again

    fs.writeFileSync(file, text.slice(0, text.length >> 1)); // torn
    expect(generateFresh(dir)).toEqual(cold);
    expect(() => JSON.parse(fs.readFileSync(file, 'utf8')) as unknown).not.toThrow();

    fs.writeFileSync(file, JSON.stringify({ ...(JSON.parse(text) as object), generator: '0'.repeat(64) }));
    expect(generateFresh(dir)).toEqual(cold);
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { generator: string }).generator).toBe(data.generator);
  }, 120_000);

  it('survive a run killed while it writes them: the file left is whole, the next run gives the same bytes', () => {
    const file = verdictsFile(dir)!;
    const whole = fs.readFileSync(file, 'utf8');
    // An edit to one tool makes the run write the cache; it is killed half-way through the temporary file.
    const spec = path.join(dir, 'toolspec.yaml');
    const text = fs.readFileSync(spec, 'utf8');
    fs.writeFileSync(
      spec,
      text.replace(/"maxLength": (\d+)/, (_, n: string) => `"maxLength": ${Number(n) + 1}`),
    );
    const killed = runCli(['generate'], dir, { TOOLSPEC_FAILPOINT: 'verdicts-half-written', TOOLSPEC_THREADS: '1' });
    expect(killed.code).toBeNull(); // killed by the signal
    expect(fs.readFileSync(file, 'utf8')).toBe(whole); // the old file, untouched
    const leftovers = fs.readdirSync(cacheFolder(dir)).filter((f) => f.includes('.tmp-'));
    expect(leftovers.length).toBe(1);
    const edited = generateFresh(dir);
    fs.rmSync(cacheFolder(dir), { recursive: true });
    expect(generateFresh(dir)).toEqual(edited);
    fs.writeFileSync(spec, text);
  }, 120_000);
});

describe('schema verdicts computed on worker threads', () => {
  it('give the same diagnostics and bytes as one thread (schema verdicts, and types for 80 tools)', () => {
    const dir = project('threads', false, 80);
    const one = generateFresh(dir, { TOOLSPEC_THREADS: '1' });
    fs.rmSync(cacheFolder(dir), { recursive: true });
    expect(generateFresh(dir, { TOOLSPEC_THREADS: '4' })).toEqual(one);

    // Errors too: a default its own schema rejects.
    const bad = project('threads-broken', true);
    const errors = generateFresh(bad, { TOOLSPEC_THREADS: '1' }, 'validate');
    expect(errors.diagnostics).toEqual(expect.arrayContaining([expect.stringMatching(/^TS034:/)]));
    fs.rmSync(cacheFolder(bad), { recursive: true });
    expect(generateFresh(bad, { TOOLSPEC_THREADS: '4' }, 'validate')).toEqual(errors);
    expect(generateFresh(bad, { TOOLSPEC_THREADS: '4' }, 'validate')).toEqual(errors); // from the cache
  }, 60_000);

  it('give each job the verdict this thread gives it, in order', () => {
    const job = (i: number, extra: Record<string, unknown> = {}): JudgeJob => {
      const schema = {
        type: 'object',
        properties: { n: { type: 'integer', maximum: i, default: i % 3 === 0 ? 'not a number' : 0, ...extra } },
      };
      return { dialect: '2020-12', kind: 'input', extensions: [], forAjv: schema, bundled: schema, compile: true };
    };
    const jobs = Array.from({ length: 48 }, (_, i) => job(i, i === 7 ? { minimum: 'x' } : {}));
    const here = jobs.map(judge);
    expect(here.filter((v) => v.defaults?.length)).toHaveLength(16);
    expect(here[7]!.meta.length).toBeGreaterThan(0);
    expect(judgeInParallel(jobs, 3)).toEqual(here);
  }, 60_000);
});
