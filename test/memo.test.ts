/**
 * Schema compiles remembered across loads in one process (watch, dev): a hit gives exactly what a fresh compile
 * would, diagnostics included, and entries the last two loads did not use are dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../src/emit/generate.js';
import { loadModel } from '../src/spec.js';
import { memo, startLoad } from '../src/validate/memo.js';
import { tempProject } from './helpers/tmp.js';

const SPEC = `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: search
    description: Search the notes for a text.
    inputSchema:
      type: object
      properties:
        q: { type: string, description: The text. }
        limit: { type: integer, minimum: 1, default: 10, description: How many. }
      required: [q, qq]
  - name: add
    description: Add a note with the given text.
    inputSchema:
      type: object
      properties: { text: { type: string, description: The note. } }
      required: [text]
`;

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('compiles remembered across loads', () => {
  it('give the same diagnostics and bytes as fresh ones, and follow every edit', async () => {
    const p = tempProject({ 'toolspec.yaml': SPEC });
    cleanups.push(p.cleanup);
    const load = () => loadModel('toolspec.yaml', { cwd: p.dir });
    const codes = (r: ReturnType<typeof load>) => r.diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`);
    const first = load();
    const bytes = async (r: ReturnType<typeof load>) =>
      (await generate(r.model!, r.validators!)).map((f) => `${f.path}\n${f.contents}`).join('\n');
    expect(codes(first)).toEqual(['TS029 11:21']); // ajv's warning for "qq", from the compile
    const again = load();
    expect(codes(again)).toEqual(codes(first));
    expect(await bytes(again)).toBe(await bytes(first));

    // A default its schema rejects is found on the next load, and forgotten when it is fixed.
    fs.writeFileSync(path.join(p.dir, 'toolspec.yaml'), SPEC.replace('default: 10', 'default: 0'));
    expect(codes(load())).toEqual(['TS034 10:54', 'TS029 11:21']);
    fs.writeFileSync(path.join(p.dir, 'toolspec.yaml'), SPEC);
    const back = load();
    expect(codes(back)).toEqual(codes(first));
    expect(await bytes(back)).toBe(await bytes(first));
  });

  it('drops what the last two loads did not use', () => {
    let computed = 0;
    const get = () => memo('test-key', () => ++computed);
    startLoad();
    expect(get()).toBe(1);
    startLoad();
    expect(get()).toBe(1); // used in this load: kept
    startLoad();
    startLoad();
    expect(get()).toBe(2); // unused by the two loads before: dropped, computed again
  });

  it('parse only the files whose bytes changed, to the same bytes as a fresh parse', async () => {
    const files = {
      'toolspec.yaml': SPEC.replace(/tools:[\s\S]*/, 'include: [more.yaml]\ntools: []\n'),
      'more.yaml': SPEC.slice(SPEC.indexOf('tools:')),
    };
    const p = tempProject(files);
    cleanups.push(p.cleanup);
    const load = (dir: string) => loadModel('toolspec.yaml', { cwd: dir });
    const bytes = async (r: ReturnType<typeof load>) =>
      (await generate(r.model!, r.validators!)).map((f) => `${f.path}\n${f.contents}`).join('\n');
    const first = load(p.dir);
    expect(first.model?.tools).toHaveLength(2);
    fs.writeFileSync(path.join(p.dir, 'toolspec.yaml'), files['toolspec.yaml'].replace('1.0.0', '1.0.1'));
    const second = load(p.dir);
    expect(second.parsed!.get('more.yaml')).toBe(first.parsed!.get('more.yaml')); // not parsed again
    expect(second.parsed!.get('toolspec.yaml')).not.toBe(first.parsed!.get('toolspec.yaml'));
    const fresh = tempProject({ ...files, 'toolspec.yaml': files['toolspec.yaml'].replace('1.0.0', '1.0.1') });
    cleanups.push(fresh.cleanup);
    const other = load(fresh.dir);
    expect(second.diagnostics).toEqual(other.diagnostics);
    expect(await bytes(second)).toBe(await bytes(other));
  });
});
