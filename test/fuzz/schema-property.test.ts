/**
 * Property: for random specs (random JSON Schemas in both dialects, shared and local $defs, random tool names),
 * generate succeeds without errors, the generated dispatcher accepts exactly the arguments — and sends exactly the
 * structured output — that ajv, compiled at test time from the same schema, accepts, and all the output compiles
 * under strict TypeScript and builds (every handler module the registry imports is emitted and loads).
 *
 * Each counterexample found is kept under test/fixtures/property-regressions/<case>/ (toolspec.yaml and the calls
 * in calls.json) and checked on every run. A failing property run writes such a folder under test/.tmp and names
 * it in its message: copy it there. Reproduce a run with FUZZ_SEED=<seed> (printed on failure); `npm run fuzz`
 * runs many more cases; FUZZ_KEEP=1 keeps the scratch projects of a green run.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { fuzzParams, fuzzTimeout, seed } from './config.js';
import { specArbitrary, specFile, type DrawnSpec } from './schema-arbitrary.js';
import {
  checkRegistry,
  compareCalls,
  compileProjects,
  prepare,
  readCalls,
  Reference,
  SPEC_FILE,
  writeCase,
  type Call,
  type Prepared,
} from './schema-harness.js';

const regressions = path.join(repoRoot, 'test/fixtures/property-regressions');
const cases = fs.existsSync(regressions)
  ? fs
      .readdirSync(regressions)
      .filter((n) => fs.existsSync(path.join(regressions, n, SPEC_FILE)))
      .sort()
  : [];

// One scratch folder for the file, inside the repository so node_modules resolve; removed after a green run.
fs.mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const base = fs.mkdtempSync(path.join(repoRoot, 'test/.tmp/schema-property-'));
let failed = false;
afterAll(() => {
  if (!failed && process.env['FUZZ_KEEP'] !== '1') fs.rmSync(base, { recursive: true, force: true });
});

/** Every project generated below, compiled together at the end (one TypeScript program costs seconds). */
const generated: Prepared[] = [];

/**
 * The calls a drawn spec makes: each tool's arguments, then its outputs. Values go through JSON, as they would
 * over the wire and as calls.json keeps them (fast-check may draw objects without a prototype).
 */
function callsOf(spec: DrawnSpec): Call[] {
  const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
  return spec.tools.flatMap((t) => [
    ...t.inputValues.map((value): Call =>
      value === undefined ? { tool: t.name, kind: 'input' } : { tool: t.name, kind: 'input', value: json(value) },
    ),
    ...t.outputValues.map((value): Call => ({ tool: t.name, kind: 'output', value: json(value) })),
  ]);
}

/** Runs `fn`; a failure keeps the scratch folder for a look. */
async function keepOnFailure<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    failed = true;
    throw e;
  }
}

describe('regressions found by the schema property', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)('%s: generates, and the dispatcher judges its calls as ajv does', (name) =>
    keepOnFailure(async () => {
      const dir = path.join(base, 'regressions', name);
      fs.cpSync(path.join(regressions, name), dir, { recursive: true });
      const prepared = await prepare(dir);
      expect(prepared.problems).toEqual([]);
      generated.push(prepared);
      const calls = readCalls(dir);
      expect(calls.length).toBeGreaterThan(0);
      expect((await compareCalls(prepared, calls)).problems).toEqual([]);
    }),
  );
});

describe('generate and the generated dispatcher on random schemas', () => {
  it(
    'generate succeeds, and the dispatcher accepts exactly what ajv accepts',
    () =>
      keepOnFailure(async () => {
        const reference = new Reference();
        const stats = { compared: 0, accepted: 0, skipped: 0, tools: 0 };
        let runs = 0;
        const property = fc.asyncProperty(specArbitrary(), async (drawn) => {
          const dir = path.join(base, 'runs', `run${runs++}`);
          // Through JSON, as the loader sees it (the reference judges the same data).
          const spec = JSON.parse(JSON.stringify(specFile(drawn))) as Record<string, unknown>;
          const calls = callsOf(drawn);
          writeCase(dir, spec, calls);
          const prepared = await prepare(dir);
          if (prepared.problems.length) {
            throw new Error(
              `generate refused or failed on ${path.join(dir, SPEC_FILE)}:\n${prepared.problems.join('\n')}`,
            );
          }
          const report = await compareCalls(prepared, calls, reference);
          if (report.problems.length) {
            const keep = path.join(base, 'regression-candidates', path.basename(dir));
            writeCase(keep, spec, report.failing, 'found by test/fuzz/schema-property.test.ts');
            throw new Error(
              `the dispatcher and ajv disagree (regression case written to ${keep}):\n${report.problems.join('\n\n')}`,
            );
          }
          stats.compared += report.compared;
          stats.accepted += report.accepted;
          stats.skipped += report.skipped;
          stats.tools += drawn.tools.length;
          generated.push(prepared);
        });
        await fc.assert(property, fuzzParams(5));
        // Values built for a schema must pass it often enough, or the property says little about acceptance.
        expect(stats.accepted, JSON.stringify(stats)).toBeGreaterThan(stats.compared / 10);
        expect(stats.compared - stats.accepted, JSON.stringify(stats)).toBeGreaterThan(stats.compared / 10);
      }),
    fuzzTimeout(120_000),
  );
});

describe('the generated projects above', () => {
  it(
    'compile in one strict TypeScript program, and each build loads every handler module through its registry',
    () =>
      keepOnFailure(async () => {
        expect(generated.length, 'no project was generated: run the whole file').toBeGreaterThan(0);
        // One program for a CI run; long runs (`npm run fuzz`) in programs of 40 projects, to bound memory.
        const problems: string[] = [];
        for (let i = 0; i < generated.length; i += 40) {
          problems.push(...compileProjects(base, generated.slice(i, i + 40)).map((d) => `tsc: ${d}`));
        }
        for (const p of generated) problems.push(...(await checkRegistry(base, p)));
        expect(problems, `seed ${seed}: rerun with FUZZ_SEED=${seed}`).toEqual([]);
      }),
    fuzzTimeout(120_000),
  );
});
