/**
 * The cache (src/cache/store.ts) only skips work: a generate with it, without it (`--no-cache`), after it was
 * deleted, or after another command ran gives the same bytes and diagnostics. It is never what `check` or `call`
 * believe: a forged entry (its name and first line right, so the cache takes it) can reach the files a generate
 * writes, and then `check` reports them as drift and `generate --no-cache` writes them back. The folder is refused
 * unless it is the user's alone, entries are read without following links and within a size limit, and unused ones
 * are pruned by age.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the benchmark's seeded spec writer is plain JavaScript
import { writeProject } from '../bench/synth.mjs';
import { cacheFolder, openCache } from '../src/cache/store.js';
import { bin, repoRoot, runMain } from './helpers/cli.js';

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-cache-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A seeded project with a node_modules folder of its own, so that its cache is its own. */
function project(name: string, tools = 6): string {
  const dir = path.join(root, name);
  (writeProject as (dir: string, n: number) => unknown)(dir, tools);
  // An ajv strict-mode warning: diagnostics come from verdicts too.
  const file = path.join(dir, 'toolspec.yaml');
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    tools: { inputSchema: { required?: string[]; additionalProperties?: unknown } }[];
  };
  delete spec.tools[1]!.inputSchema.additionalProperties;
  spec.tools[1]!.inputSchema.required = [...(spec.tools[1]!.inputSchema.required ?? []), 'notAProperty'];
  fs.writeFileSync(file, JSON.stringify(spec, null, 1));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  // A node_modules of its own (the cache's folder), with the SDK the handlers' types come from.
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(
    path.join(repoRoot, 'node_modules/@modelcontextprotocol'),
    path.join(dir, 'node_modules/@modelcontextprotocol'),
  );
  return dir;
}

const pieces = (dir: string) => path.join(dir, 'node_modules/.cache/toolspec/pieces');
const entries = (dir: string) =>
  fs.existsSync(pieces(dir)) ? fs.readdirSync(pieces(dir)).filter((n) => /^[0-9a-f]{64}$/.test(n)) : [];

/** Every generated file, by name. */
function generated(dir: string): Record<string, string> {
  const gen = path.join(dir, 'src/generated');
  return Object.fromEntries(
    (fs.readdirSync(gen, { recursive: true }) as string[])
      .filter((f) => fs.statSync(path.join(gen, f)).isFile())
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(gen, f), 'utf8')]),
  );
}

/** generate into an empty generated folder: its diagnostics and its files. */
async function generateFresh(dir: string, ...flags: string[]) {
  fs.rmSync(path.join(dir, 'src/generated'), { recursive: true, force: true });
  const r = await runMain(['generate', '--format', 'json', ...flags], dir);
  expect(r.code, r.stderr).toBe(0);
  const { diagnostics } = JSON.parse(r.stdout) as { diagnostics: { code: string; line: number }[] };
  return { diagnostics: diagnostics.map((d) => `${d.code}:${d.line}`), files: generated(dir) };
}

describe('the cache', () => {
  let dir: string;
  let cold: Awaited<ReturnType<typeof generateFresh>>;
  beforeAll(async () => {
    dir = project('kept');
    cold = await generateFresh(dir, '--no-cache');
  }, 60_000);

  it('changes no byte and no diagnostic: filled, used, deleted, or left out', async () => {
    expect(cold.diagnostics).toEqual([expect.stringMatching(/^TS029:/)]);
    expect((await runMain(['check'], dir)).code).toBe(0);
    // --no-cache read nothing, and kept what it computed.
    const kept = entries(dir);
    expect(kept.length).toBeGreaterThan(6); // a verdict per schema, the types of each tool
    const stamps = kept.map((n) => fs.statSync(path.join(pieces(dir), n)).mtimeMs);
    expect(await generateFresh(dir)).toEqual(cold);
    // Every piece was found: nothing written again.
    expect(entries(dir)).toEqual(kept);
    expect(kept.map((n) => fs.statSync(path.join(pieces(dir), n)).mtimeMs)).toEqual(stamps);
    fs.rmSync(pieces(dir), { recursive: true });
    expect(await generateFresh(dir)).toEqual(cold);
  }, 60_000);

  it('stays warm whatever other commands run: lint, validate and check neither read nor prune it', async () => {
    await generateFresh(dir);
    const kept = entries(dir).sort();
    for (const command of ['lint', 'validate', 'check']) await runMain([command], dir);
    expect(entries(dir).sort()).toEqual(kept);
    expect(await generateFresh(dir)).toEqual(cold);
    expect(entries(dir).sort()).toEqual(kept);
  }, 60_000);

  it('a forged entry can reach what generate writes, never what check believes: check reports it, --no-cache mends it', async () => {
    await generateFresh(dir);
    // A verdict whose validator accepts everything, under its right name and first line.
    let forged = 0;
    for (const name of entries(dir)) {
      const file = path.join(pieces(dir), name);
      const text = fs.readFileSync(file, 'utf8');
      if (!text.includes('"compiled"') || !text.includes('errors === 0')) continue;
      fs.writeFileSync(file, text.replaceAll('errors === 0', 'true /* forged */'));
      forged++;
    }
    expect(forged).toBeGreaterThan(0);
    // And the types and formatted code of every piece that declares an interface, rewritten.
    for (const name of entries(dir)) {
      const file = path.join(pieces(dir), name);
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes('"compiled"') || !text.includes('export interface')) continue;
      fs.writeFileSync(file, text.replace('export interface', 'export interface Forged {}\nexport interface'));
    }

    const poisoned = await generateFresh(dir);
    expect(poisoned.files['validators.ts']).toContain('true /* forged */');
    expect(poisoned.files['types.ts']).toContain('Forged');
    const check = await runMain(['check', '--no-diff'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('src/generated/validators.ts');
    expect(check.stdout).toContain('src/generated/types.ts');
    // check wrote nothing and took nothing from the cache: the same again.
    expect((await runMain(['check', '--no-diff'], dir)).code).toBe(1);

    // --no-cache computes everything and puts it in place of what the cache held: the next run is sound again.
    expect(await generateFresh(dir, '--no-cache')).toEqual(cold);
    expect((await runMain(['check'], dir)).code).toBe(0);
    expect(await generateFresh(dir)).toEqual(cold);
  }, 60_000);

  it('spares a warm run the libraries it does not need: a description edit loads neither ajv, the type generator nor the printer', () => {
    // A project of its own: the built CLI's entries (its build differs from the sources') stay out of the others'.
    const dir = project('traced', 4);
    // The built CLI in a process of its own, reporting at exit the CommonJS modules it loaded (ajv and
    // json-schema-to-typescript are CommonJS, imported or required), and each ES module as it loads (prettier).
    const trace = path.join(root, 'trace.cjs');
    fs.writeFileSync(
      trace,
      `process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require('node:module')._cache)) + '\\n'));`,
    );
    const traceEsm = path.join(root, 'trace.mjs');
    const hook = `export async function load(url, context, next) { process._rawDebug('ESM ' + url); return next(url, context); }`;
    fs.writeFileSync(
      traceEsm,
      `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));\n`,
    );
    const loaded = () => {
      const args = ['-r', trace, '--import', pathToFileURL(traceEsm).href, bin, 'generate'];
      const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const files = [
        ...(JSON.parse(/^LOADED (.*)$/m.exec(r.stderr)![1]!) as string[]),
        ...[...r.stderr.matchAll(/^ESM (.*)$/gm)].map((m) => m[1]!),
      ];
      // Their code, not their package.json (the cache's build fingerprint reads it) nor the few ajv runtime helpers the
      // prebuilt structure validators require.
      const code = /node_modules\/(ajv|json-schema-to-typescript|prettier)\/(?:dist\/(?!runtime\/)|standalone)/;
      return new Set(files.flatMap((f) => code.exec(f)?.[1] ?? []));
    };
    const all = new Set(['ajv', 'json-schema-to-typescript', 'prettier']);
    expect(loaded()).toEqual(all); // cold
    const file = path.join(dir, 'toolspec.yaml');
    const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      tools: { description: string; inputSchema: { properties: object } }[];
    };
    spec.tools[0]!.description += ' Edited.';
    fs.writeFileSync(file, JSON.stringify(spec, null, 1));
    expect(loaded()).toEqual(new Set());
    // And both again when a schema changes.
    spec.tools[0]!.inputSchema.properties = { ...spec.tools[0]!.inputSchema.properties, edited: { type: 'string' } };
    fs.writeFileSync(file, JSON.stringify(spec, null, 1));
    expect(loaded()).toEqual(all);
  }, 60_000);

  it('skips entries it cannot vouch for: a wrong first line, a link, one too large', async () => {
    await generateFresh(dir);
    // Verdicts: every run reads each of them (a types piece's unformatted text is read only when its piece is not).
    const names = entries(dir).filter((n) => fs.readFileSync(path.join(pieces(dir), n), 'utf8').includes('"meta"'));
    expect(names.length).toBeGreaterThan(3);
    const [a, b, c] = names.map((n) => path.join(pieces(dir), n));
    // Swapped contents: each file's first line names the other.
    const [ta, tb] = [fs.readFileSync(a!, 'utf8'), fs.readFileSync(b!, 'utf8')];
    fs.writeFileSync(a!, tb);
    fs.writeFileSync(b!, ta);
    // A link to a file outside the cache, holding a well-formed entry.
    const outside = path.join(root, 'outside-entry');
    fs.writeFileSync(outside, fs.readFileSync(c!, 'utf8'));
    fs.rmSync(c!);
    fs.symlinkSync(outside, c!);
    expect(await generateFresh(dir)).toEqual(cold);
    // The link was not followed, nor written through: the run replaced it with an entry of its own.
    expect(fs.lstatSync(c!).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(a!, 'utf8').startsWith(`${path.basename(a!)}\n`)).toBe(true);

    const big = path.join(pieces(dir), names[3]!);
    fs.writeFileSync(big, `${names[3]}\n${'x'.repeat(17 * 2 ** 20)}`);
    expect(await generateFresh(dir)).toEqual(cold);
    expect(fs.statSync(big).size).toBeLessThan(2 ** 20);
  }, 60_000);

  it('is keyed by the build: any change to toolspec’s code, templates or schemas, and none to its declaration files', () => {
    // A copy of the package as built, so that its files can change.
    const copy = path.join(root, 'package-copy');
    for (const part of ['package.json', 'dist/src', 'templates', 'schema'])
      fs.cpSync(path.join(repoRoot, part), path.join(copy, part), { recursive: true });
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'));
    const store = pathToFileURL(path.join(copy, 'dist/src/cache/store.js')).href;
    const fingerprint = () =>
      spawnSync(
        process.execPath,
        ['-e', `import(${JSON.stringify(store)}).then((m) => console.log(m.buildFingerprint()))`],
        {
          encoding: 'utf8',
        },
      ).stdout.trim();
    const before = fingerprint();
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    fs.appendFileSync(path.join(copy, 'dist/src/core/names.d.ts'), '// a declaration runs nothing\n');
    expect(fingerprint()).toBe(before);
    const seen = new Set([before]);
    for (const file of ['dist/src/core/names.js', 'templates/runtime/arguments.ts', 'schema/toolspec.schema.json']) {
      fs.appendFileSync(path.join(copy, file), '\n');
      const now = fingerprint();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    }
  });
});

describe('where the cache lives', () => {
  it('is refused when group or others can write it, or another user owns it: the run computes everything', async () => {
    const dir = project('refused', 4);
    const folder = path.join(dir, 'node_modules/.cache/toolspec');
    fs.mkdirSync(folder, { recursive: true, mode: 0o777 });
    fs.chmodSync(folder, 0o777);
    expect(cacheFolder(dir)).toBeUndefined();
    const open = await generateFresh(dir);
    expect(fs.existsSync(path.join(folder, 'pieces'))).toBe(false);
    fs.chmodSync(folder, 0o700);
    expect(cacheFolder(dir)).toBe(folder);
    expect(await generateFresh(dir)).toEqual(open);
    expect(entries(dir).length).toBeGreaterThan(0);
    if (process.getuid?.() === 0) {
      // Owned by another user (root can hand it over): refused too.
      fs.chownSync(folder, 65534, 65534);
      expect(cacheFolder(dir)).toBeUndefined();
      fs.chownSync(folder, 0, 0);
    }
    const link = path.join(root, 'link-target');
    fs.mkdirSync(link, { mode: 0o700 });
    fs.rmSync(folder, { recursive: true });
    fs.symlinkSync(link, folder);
    expect(cacheFolder(dir)).toBeUndefined();
  }, 60_000);

  it('without node_modules above the project: the user’s cache folder, made 0700', () => {
    const home = path.join(root, 'xdg');
    const dir = path.join(root, 'no-modules');
    fs.mkdirSync(dir);
    expect(fs.existsSync(path.join(path.parse(dir).root, 'node_modules'))).toBe(false);
    const folder = cacheFolder(dir, { XDG_CACHE_HOME: home });
    expect(folder).toBe(path.join(home, 'toolspec'));
    expect(fs.statSync(folder!).mode & 0o777).toBe(0o700);
    fs.chmodSync(folder!, 0o775);
    expect(cacheFolder(dir, { XDG_CACHE_HOME: home })).toBeUndefined();
  });

  it('drops entries unused for 30 days, at most once a day, and keeps the rest', () => {
    const home = path.join(root, 'prune');
    const dir = path.join(root, 'prune-project');
    fs.mkdirSync(dir);
    const env = { XDG_CACHE_HOME: home };
    const cache = openCache(dir, { env })!;
    cache.put('k', 'old', 'a');
    cache.put('k', 'new', 'b');
    const folder = path.join(home, 'toolspec');
    const files = fs.readdirSync(path.join(folder, 'pieces'));
    expect(files).toHaveLength(2);
    const old = files.find((f) => fs.readFileSync(path.join(folder, 'pieces', f), 'utf8').endsWith('\na'))!;
    const longAgo = new Date(Date.now() - 31 * 24 * 3600_000);
    fs.utimesSync(path.join(folder, 'pieces', old), longAgo, longAgo);
    // Pruned today already: kept for now.
    expect(openCache(dir, { env })!.get('k', 'old')).toBe('a');
    fs.utimesSync(path.join(folder, 'pieces', old), longAgo, longAgo);
    const yesterday = new Date(Date.now() - 25 * 3600_000);
    fs.utimesSync(path.join(folder, 'pruned'), yesterday, yesterday);
    const again = openCache(dir, { env })!;
    expect(again.get('k', 'old')).toBeUndefined();
    expect(again.get('k', 'new')).toBe('b');
  });
});
