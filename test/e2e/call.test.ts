/**
 * `toolspec call` through the built CLI, on the end-to-end fixture project (a scratch copy inside the repository,
 * so its bare imports resolve from the repository's node_modules): results, defaults, the validator's messages,
 * exit codes, and a handler's failure traced to its TypeScript source.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { scratchCopy } from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'call');
afterAll(() => {
  project.cleanup();
  // The transpiled copies of its modules, in the repository's cache folder.
  fs.rmSync(path.join(repoRoot, 'node_modules/.cache/toolspec/run/fs', project.dir), { recursive: true, force: true });
});
const call = (...args: string[]) => runCli(['call', ...args], project.dir);
/** A tool added to the spec with its handler's source. */
const addTool = (name: string, description: string, source: string) => {
  fs.appendFileSync(
    path.join(project.dir, 'toolspec.yaml'),
    `  - name: ${name}\n    description: ${description}\n    inputSchema: { type: object }\n`,
  );
  fs.writeFileSync(path.join(project.dir, `src/handlers/${name}.ts`), source);
};

describe('toolspec call (built CLI)', () => {
  it('calls before any generate: the generated code is built in memory, nothing written', () => {
    const r = call('echo', 'text=hello');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hello\n');
    expect(fs.existsSync(path.join(project.dir, 'src/generated'))).toBe(false);
  });

  it('fills defaults and prints structured output as JSON (objects and arrays)', () => {
    const gen = runCli(['generate'], project.dir);
    expect(gen.code).toBe(0);
    const add = call('add', 'numbers=1,2,3.5');
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toEqual({ sum: 6.5 }); // scale defaulted to 1
    expect(JSON.parse(call('add', 'numbers=2', 'scale=3').stdout)).toEqual({ sum: 6 });
    const primes = call('primes'); // n defaults to 3
    expect(primes.code).toBe(0);
    expect(JSON.parse(primes.stdout)).toEqual([2, 3, 5]);
    const json = call('add', '--json', '{"numbers":[4]}', '--format', 'json');
    expect(JSON.parse(json.stdout)).toEqual({
      content: [{ type: 'text', text: '{"sum":4}' }],
      structuredContent: { sum: 4 },
    });
  });

  it('rejects invalid arguments with the server’s message and exit 1', () => {
    const r = call('add', 'numbers=1', 'scale=abc', 'extra=1');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Invalid arguments for tool "add":');
    expect(r.stderr).toContain('- scale: must be integer');
    const missing = call('echo');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('- text: is required');
  });

  it('says "did you mean" for an unknown tool, with exit 2', () => {
    const r = call('ad', 'numbers=1');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^toolspec call: unknown tool "ad"; did you mean "add"\? \(tools: echo, add, /);
  });

  it('prints a failing handler’s error result and its cause at the TypeScript source, with exit 1', () => {
    const r = call('fail');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Tool "fail" failed: the disk is on fire');
    expect(r.stderr).toMatch(
      /\[toolspec\] tool "fail" failed: Error: the disk is on fire\n\s+at .*\/src\/handlers\/fail\.ts:4:9/,
    );
    const output = call('bad_output');
    expect(output.code).toBe(1);
    expect(output.stderr).toMatch(/Tool "bad_output" failed: .*n/);
  });

  it('prints progress and log messages on stderr, and explains that it cannot answer questions', () => {
    const slow = call('slow', 'steps=2', 'ms=1');
    expect(slow.code).toBe(0);
    expect(slow.stdout).toBe('done after 2 steps\n');
    expect(slow.stderr).toBe('progress 1/2 step 1\nprogress 2/2 step 2\nlog info: {"done":2}\n');
    const ask = call('confirm', 'note=draft');
    expect(ask.code).toBe(1);
    expect(ask.stderr).toContain('toolspec call: tool "confirm" asked the client for input, and call has no client');
    expect(ask.stderr).toContain('elicitation/create "Delete \\"draft\\"?"');
  });

  it('ends once the result is printed, even when the handler keeps the event loop busy', () => {
    addTool(
      'busy',
      'Starts a timer that never ends.',
      "setInterval(() => {}, 1000);\nexport const handler = () => 'still ticking';\n",
    );
    const r = call('busy');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('still ticking\n');
  });

  it('keeps stdout for the result: what a handler prints goes to stderr, and --format json stays JSON', () => {
    addTool(
      'chatty',
      'Prints while it works.',
      "export const handler = () => {\n  console.log('working…');\n  process.stdout.write('raw\\n');\n  return 'done';\n};\n",
    );
    const r = call('chatty', '--format', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(r.stderr).toContain('working…');
    expect(r.stderr).toContain('raw');
  });

  it('ends a handler that can never finish with exit 1 and a message, not a silent exit 13', () => {
    addTool('stuck', 'Waits for nothing.', 'export const handler = () => new Promise<string>(() => {});\n');
    const r = call('stuck');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('"stuck" never finished');
  });

  it('lists the tools and their arguments', () => {
    const r = call('--list');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('add — Add numbers; the scale defaults to 1.\n  numbers  number[]  required\n');
    expect(r.stdout).toMatch(/^ {2}scale +integer +default 1$/m);
  });

  it('calls the other tools while a tool new in the spec has no handler yet, and says to generate it', () => {
    fs.appendFileSync(
      path.join(project.dir, 'toolspec.yaml'),
      '  - name: brand_new\n    description: Not generated yet.\n    inputSchema: { type: object }\n',
    );
    const echo = call('echo', 'text=still');
    expect(echo.stderr).toBe('');
    expect(echo.stdout).toBe('still\n');
    const fresh = call('brand_new');
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('src/handlers/brand_new.ts does not exist; `toolspec generate` writes its stub');
  });
});
