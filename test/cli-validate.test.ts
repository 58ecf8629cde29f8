import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const good = `# yaml-language-server: $schema=x
toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: echo
    inputSchema: { type: object, properties: { text: { type: string } }, additionalProperties: false }
`;

const bad = `toolspec: 1
server: { name: s, version: 1.0.0 }
include: [more.yaml]
tools:
  - name: echo
    description: Echo.
    inputSchema: { type: object, properties: { text: { type: strng } } }
`;

const more = `tools:
  - name: other
    description: Other.
    inputSchema: { type: object, properties: { x: { $ref: "#/$defs/Nope" } } }
    annotatons: { readOnlyHint: true }
`;

const header = `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: run_query
    description: Run a query in a region and return its rows.
    inputSchema:
      type: object
      properties:
        region: { type: number, description: Where it runs, x-mcp-header: Region }
`;

// An enum of objects, one of them with an own key named like an inherited member: ajv's deep equality (the
// meta-schema's uniqueItems on enum) calls `a.toString()` and crashed the load (found by test/format.test.ts).
const inheritedValue = `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: pick
    description: Pick one of the shapes and return it.
    inputSchema:
      type: object
      properties:
        shape: { enum: [{}, { toString: null }] }
`;

const project = tempProject({
  'inherited/toolspec.yaml': inheritedValue,
  'toolspec.yaml': good,
  'bad/toolspec.yaml': bad,
  'bad/more.yaml': more,
  'broken/toolspec.yaml': 'toolspec: 1\nserver: [\n',
  'header/toolspec.yaml': header,
});
afterAll(project.cleanup);

describe('toolspec validate (built CLI, end to end)', () => {
  it('exits 2 on an x-mcp-header that clients would reject, at its line, and generate writes nothing', async () => {
    const r = await runMain(['validate', 'header/toolspec.yaml'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'header/toolspec.yaml:9:61 error TS040 x-mcp-header "Region" is on a property of type "number"',
    );
    const g = await runMain(['generate', 'header/toolspec.yaml'], project.dir);
    expect(g.code).toBe(2);
    expect(fs.existsSync(`${project.dir}/header/src`)).toBe(false);
  });

  it('judges a schema whose enum holds an object with a key named like an inherited member', async () => {
    const r = await runMain(['validate', 'inherited/toolspec.yaml'], project.dir);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    expect((await runMain(['generate', 'inherited/toolspec.yaml'], project.dir)).code).toBe(0);
  });

  it('exits 0 on a valid spec and prints warnings on stderr', async () => {
    const r = await runMain(['validate'], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('toolspec.yaml is valid: 1 tool in 1 file (2 warnings)\n');
    expect(r.stderr).toContain('toolspec.yaml:5:11 warning missing-description tool "echo" has no description');
    expect(r.stderr).toContain(
      'toolspec.yaml:6:48 warning missing-argument-description argument "text" of tool "echo" has no description',
    );
  });

  it('exits 2 and prints every diagnostic, in every file, on stderr', async () => {
    const r = await runMain(['validate', 'bad/toolspec.yaml'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const heads = r.stderr.split('\n').filter((l) => / (error|warning) TS\d{3} /.test(l));
    expect(heads).toEqual([
      'bad/toolspec.yaml:7:62 error TS022 unknown type "strng"',
      'bad/more.yaml:4:59 error TS025 $ref "#/$defs/Nope" points to nothing',
      'bad/more.yaml:5:5 error TS006 unknown field "annotatons" in tool "other"',
    ]);
    expect(r.stderr).toContain('hint: did you mean "string"?');
    expect(r.stderr).toContain('hint: did you mean "annotations"?');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      // validate writes nothing whatever happens: the summary does not say so as generate's does.
      '3 errors in bad/toolspec.yaml and the files it includes',
    );
    expect(r.stderr).not.toMatch(/\u001b\[/); // no colour without a terminal
    expect(r.stderr).not.toMatch(/ at .*\.js:\d+/); // no stack trace
  });

  it('counts prompts and resources beside tools, in text and JSON', async () => {
    const spec = path.join(repoRoot, 'test/fixtures/e2e-primitives/toolspec.yaml');
    const r = await runMain(['validate', spec], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ is valid: \d+ tools?, \d+ prompts?, \d+ resources? in 1 file/);
    const json = JSON.parse((await runMain(['validate', spec, '--format', 'json'], project.dir)).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ ok: true, valid: true, prompts: expect.any(Number), resources: expect.any(Number) });
  });

  it('prints its version for -v, --version and -V', async () => {
    const outs = await Promise.all(['-v', '--version', '-V'].map((flag) => runMain([flag], project.dir)));
    expect(outs.map((o) => o.code)).toEqual([0, 0, 0]);
    expect(new Set(outs.map((o) => o.stdout)).size).toBe(1);
    expect(outs[0]!.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('explains a YAML syntax error at its position', async () => {
    const r = await runMain(['validate', 'broken/toolspec.yaml'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^broken\/toolspec\.yaml:\d+:\d+ error TS001 YAML syntax error: /);
  });

  it('prints diagnostics as JSON for machines', async () => {
    const r = await runMain(['validate', 'bad/toolspec.yaml', '--format', 'json'], project.dir);
    expect(r.code).toBe(2);
    const json = JSON.parse(r.stdout) as { ok: boolean; valid: boolean; diagnostics: Record<string, unknown>[] };
    expect(json.ok).toBe(false);
    expect(json.valid).toBe(false);
    expect(json.diagnostics[0]).toEqual({
      code: 'TS022',
      severity: 'error',
      file: 'bad/toolspec.yaml',
      line: 7,
      column: 62,
      endLine: 7,
      endColumn: 67,
      message: 'unknown type "strng"',
      hint: 'did you mean "string"? valid types: array, boolean, integer, null, number, object, string',
    });
  });

  it('says so when the spec file is missing', async () => {
    const r = await runMain(['validate', 'nope.yaml'], project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.yaml:1:1 error TS005 cannot find nope.yaml');
  });

  it('answers --help on every command, and usage errors with exit 2', async () => {
    expect((await runMain(['--help'], project.dir)).code).toBe(0);
    const help = await runMain(['validate', '--help'], project.dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: toolspec validate');
    const typo = await runMain(['validaet'], project.dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean validate?)');
    expect((await runMain(['validate', '--format', 'xml'], project.dir)).code).toBe(2);
  });

  it('colours output only on a terminal unless FORCE_COLOR asks for it (test/discovery.test.ts)', async () => {
    // Without a TTY and without FORCE_COLOR there is no colour: output stays parseable in CI logs.
    const r = await runMain(['validate', 'bad/toolspec.yaml'], project.dir);
    expect(r.stderr).not.toMatch(/\u001b\[/);
    expect(fs.existsSync(project.dir)).toBe(true);
  });
});

describe('the built CLI, as a process (bin/toolspec.js)', () => {
  it('exits with the code main() returns: 0 valid, 2 invalid, 2 on a usage error; no stack trace', () => {
    const p = tempProject({ 'toolspec.yaml': good, 'bad.yaml': bad, 'more.yaml': more });
    try {
      expect(runCli(['validate'], p.dir).code).toBe(0);
      const invalid = runCli(['validate', 'bad.yaml'], p.dir);
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('bad.yaml:7:');
      const usage = runCli(['validate', '--format', 'xml'], p.dir);
      expect(usage.code).toBe(2);
      for (const r of [invalid, usage]) expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      p.cleanup();
    }
  });
});
