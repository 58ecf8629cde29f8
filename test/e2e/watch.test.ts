/**
 * `toolspec generate --watch`, through the built CLI, driven by file edits in a temp folder. No timing thresholds:
 * every wait polls for what a user would see, with a generous limit; the quiet periods only give a wrong run the
 * time to show up.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Running, sleep, until } from '../helpers/process.js';
import { tempProject } from '../helpers/tmp.js';

const tool = (name: string, description: string) => `  - name: ${name}
    description: ${description}
    inputSchema: { type: object, properties: { q: { type: string, description: What to look for. } }, additionalProperties: false }
`;

// The generated and handlers folders sit beside the spec, so toolspec's own writes land in a watched folder.
const SPEC = `toolspec: 1
server: { name: watched, version: 1.0.0 }
options: { generatedDir: generated, handlersDir: handlers }
include: [extra.yaml, tools/]
tools:
${tool('alpha', 'Find the first page that matches a query.')}`;
const EXTRA = `tools:\n${tool('beta', 'Count the pages that match a query.')}`;
const GAMMA = `tools:\n${tool('gamma', 'List the sections of the page that matches a query.')}`;
const DELTA = `tools:\n${tool('delta', 'Show the history of edits to the page that matches a query.')}`;

const SUMMARY = /^\d\d:\d\d:\d\d (.+) → (.+)$/;

class Watch extends Running {
  constructor(dir: string, args: string[] = []) {
    super(dir, ['generate', '--watch', ...args]);
  }

  /** The summary lines so far, as [what happened, what it did]. */
  runs(): [string, string][] {
    return this.lines().map((l) => {
      const m = SUMMARY.exec(l);
      if (!m) throw new Error(`not a summary line: ${JSON.stringify(l)}`);
      return [m[1]!, m[2]!];
    });
  }

  /** Waits until run number `n` (1-based) has printed its line, and returns it. */
  async run(n: number): Promise<[string, string]> {
    await until(() => this.runs().length >= n, `summary line ${n}`, this);
    return this.runs()[n - 1]!;
  }
}

/** Every file below dir with its bytes. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const abs = path.join(dir, f);
    if (fs.statSync(abs).isFile()) out[f] = fs.readFileSync(abs, 'utf8');
  }
  return out;
}

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});

function start(files: Record<string, string>, args: string[] = []): Watch {
  const p = tempProject(files);
  const w = new Watch(p.dir, args);
  cleanups.push(() => {
    if (!w.exit) w.child.kill('SIGKILL');
    p.cleanup();
  });
  return w;
}

describe('toolspec generate --watch (built CLI)', () => {
  it(
    'regenerates once per real change, keeps going after an invalid spec, and stops cleanly on Ctrl-C',
    { timeout: 240_000 },
    async () => {
      const w = start({ 'toolspec.yaml': SPEC, 'extra.yaml': EXTRA, 'tools/gamma.yaml': GAMMA });
      const file = (name: string) => path.join(w.dir, name);
      const manifest = () => fs.readFileSync(file('generated/manifest.json'), 'utf8');

      // The first run happens at once.
      expect(await w.run(1)).toEqual([
        'start',
        expect.stringMatching(
          /^generated: 31 files, 31 written, 0 unchanged — 3 tools in \d+ ms; created handlers\/alpha\.ts, handlers\/beta\.ts, handlers\/gamma\.ts \(stubs to fill in\)$/,
        ),
      ]);
      expect(manifest()).toContain('Find the first page');

      // An edit of the spec: one run, named after it.
      const edited = SPEC.replace('Find the first page', 'Find the best page');
      fs.writeFileSync(file('toolspec.yaml'), edited);
      expect(await w.run(2)).toEqual([
        'toolspec.yaml changed',
        expect.stringMatching(/^generated: 31 files, [1-9]\d* written, \d+ unchanged — 3 tools in \d+ ms$/),
      ]);
      expect(manifest()).toContain('Find the best page');

      // An edit of an included file, saved as editors do: a new file renamed over the old one.
      fs.writeFileSync(file('extra.yaml.tmp'), EXTRA.replace('Count the pages', 'Count all the pages'));
      fs.renameSync(file('extra.yaml.tmp'), file('extra.yaml'));
      expect(await w.run(3)).toEqual([
        'extra.yaml changed',
        expect.stringMatching(/^generated: 31 files, [1-9]\d* written/),
      ]);
      expect(manifest()).toContain('Count all the pages');

      // The same bytes saved again, a touch, a file that is not part of the spec: nothing to do.
      fs.writeFileSync(file('extra.yaml'), fs.readFileSync(file('extra.yaml')));
      const now = new Date();
      fs.utimesSync(file('toolspec.yaml'), now, now);
      fs.writeFileSync(file('notes.txt'), 'not a spec file\n');
      await sleep(1500);
      expect(w.runs()).toHaveLength(3);

      // An invalid spec: the diagnostics as generate prints them, nothing written, still watching.
      const before = contents(w.dir);
      fs.writeFileSync(file('toolspec.yaml'), edited.replace('type: string', 'type: strng'));
      expect(await w.run(4)).toEqual(['toolspec.yaml changed', '1 error; nothing written, still watching']);
      expect(w.stderr).toMatch(/^toolspec\.yaml:\d+:\d+ error TS022 unknown type "strng"$/m);
      expect(w.stderr).toContain('hint: did you mean "string"?');
      const after = contents(w.dir);
      delete before['toolspec.yaml'];
      delete after['toolspec.yaml'];
      expect(after).toEqual(before);

      // Fixed: it regenerates.
      fs.writeFileSync(file('toolspec.yaml'), edited.replace('Find the best page', 'Find the one page'));
      expect(await w.run(5)).toEqual([
        'toolspec.yaml changed',
        expect.stringMatching(/^generated: 31 files, [1-9]\d* written, \d+ unchanged — 3 tools in \d+ ms$/),
      ]);
      expect(manifest()).toContain('Find the one page');

      // A new file in an included folder is picked up.
      fs.writeFileSync(file('tools/delta.yaml'), DELTA);
      expect(await w.run(6)).toEqual([
        'tools/delta.yaml added',
        expect.stringMatching(
          /^generated: 31 files, [1-9]\d* written, \d+ unchanged — 4 tools in \d+ ms; created handlers\/delta\.ts \(stubs to fill in\)$/,
        ),
      ]);
      expect(manifest()).toContain('"delta"');
      expect(fs.existsSync(file('handlers/delta.ts'))).toBe(true);

      // Its own writes start nothing: after a quiet period there is one line per real change.
      await sleep(2000);
      expect(w.runs()).toHaveLength(6);

      expect(await w.stop('SIGINT')).toEqual({ code: 0, signal: null });
      expect(w.runs()).toHaveLength(6);
      expect(w.stderr).not.toContain('internal error');
    },
  );

  it(
    'starts with an invalid spec, picks up a missing include once it exists, and stops on SIGTERM',
    { timeout: 240_000 },
    async () => {
      const w = start({ 'toolspec.yaml': SPEC.replace('include: [extra.yaml, tools/]', 'include: [extra.yaml]') });
      expect(await w.run(1)).toEqual(['start', '1 error; nothing written, still watching']);
      expect(w.stderr).toMatch(/error TS\d{3} cannot find extra\.yaml/);
      expect(fs.existsSync(path.join(w.dir, 'generated'))).toBe(false);

      fs.writeFileSync(path.join(w.dir, 'extra.yaml'), EXTRA);
      expect(await w.run(2)).toEqual([
        'extra.yaml added',
        expect.stringMatching(/^generated: 31 files, 31 written, 0 unchanged — 2 tools in \d+ ms; created /),
      ]);

      expect(await w.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(w.runs()).toHaveLength(2);
    },
  );

  it('prints one JSON object per run with --format json', { timeout: 240_000 }, async () => {
    const w = start({ 'toolspec.yaml': SPEC.replace('include: [extra.yaml, tools/]\n', '') }, ['--format', 'json']);
    await until(() => w.stdout.split('\n').length > 1, 'the first JSON line', w);
    fs.writeFileSync(
      path.join(w.dir, 'toolspec.yaml'),
      SPEC.replace('include: [extra.yaml, tools/]\n', '').replace('type: string', 'type: strng'),
    );
    await until(() => w.stdout.split('\n').length > 2, 'the second JSON line', w);
    expect(await w.stop()).toEqual({ code: 0, signal: null });

    const lines = w.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      changes: [],
      ok: true,
      spec: 'toolspec.yaml',
      created: ['handlers/alpha.ts'],
      removed: [],
    });
    expect(lines[0]!['written']).toHaveLength(31);
    expect(lines[1]).toMatchObject({
      changes: [{ file: 'toolspec.yaml', change: 'changed' }],
      ok: false,
      diagnostics: [expect.objectContaining({ code: 'TS022', line: 7 })],
    });
    expect(lines[1]).not.toHaveProperty('written');
    for (const l of lines) expect(l['time']).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(w.stderr).toBe('');
  });
});
