/**
 * Contract tests from the spec's examples: what `validate` says about an example's `expect`, and the generated
 * examples.test.ts run with vitest in scratch projects (specs/todo with its handlers, specs/docs with stubs, a spec
 * of awkward argument names), passing where the handlers keep the examples and failing, by name, where they do not.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../src/compile.js';
import { checkDir, generate, generateSpec, loadOk } from '../helpers/generate.js';
import { writeOutput } from '../../src/write/write.js';
import { repoRoot } from '../helpers/cli.js';
import { scratchCopy } from '../helpers/project.js';
import { tempProject } from '../helpers/tmp.js';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

const HEAD = 'toolspec: 1\nserver: { name: s, version: 1.0.0 }\ntools:\n';

function diagnosticsOf(spec: string): string[] {
  const p = tempProject({ 'toolspec.yaml': HEAD + spec });
  cleanups.push(p.cleanup);
  const { diagnostics } = loadModel('toolspec.yaml', { cwd: p.dir });
  return diagnostics.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`);
}

const HITS = `  - name: search
    description: Search the notes.
    inputSchema: { type: object, properties: { q: { type: string } }, additionalProperties: false }
    outputSchema:
      type: object
      properties:
        total: { type: integer, minimum: 0 }
        hits: { type: array, items: { $ref: "#/$defs/Hit" } }
      required: [total, hits]
      additionalProperties: false
      $defs:
        Hit:
          type: object
          properties: { title: { type: string }, kind: { enum: [note, page] } }
          additionalProperties: false
    examples:
`;

describe('validate: what an example expects', () => {
  it('accepts a subset of the structured result that the output schema allows', () => {
    const spec = `${HITS}      - arguments: { q: milk }
        expect: { structuredContent: { total: 1, hits: [{ kind: note }] }, text: milk }
      - arguments: { q: "" }
        expect: { error: nothing to search for }
`;
    expect(diagnosticsOf(spec)).toEqual([]);
  });

  it('reports keys and values the output schema rules out, through $ref, at their position', () => {
    const spec = `${HITS}      - arguments: { q: milk }
        expect: { structuredContent: { count: 1, total: -1, hits: [{ kind: post, url: x }] } }
`;
    expect(diagnosticsOf(spec)).toEqual([
      '21:40 error TS039 example 1: expects "count" in the structured result, which its outputSchema does not allow (it has "total", "hits")',
      '21:57 error TS039 example 1: expects -1, which the outputSchema rejects here: must be >= 0',
      '21:76 error TS039 example 1: expects "post", which the outputSchema rejects here: must be equal to one of the allowed values',
      '21:82 error TS039 example 1: expects "url" in the structured result, which its outputSchema does not allow (it has "title", "kind")',
    ]);
  });

  it('reports an object where the schema has another type', () => {
    const spec = `${HITS}      - arguments: { q: milk }
        expect: { structuredContent: { hits: { title: x } } }
`;
    expect(diagnosticsOf(spec)).toEqual([
      '21:46 error TS039 example 1: expects an object where the outputSchema has type array',
    ]);
  });

  it('reports expectations that contradict each other or the example being invalid', () => {
    const spec = `${HITS}      - arguments: { q: milk }
        expect: { isError: false, error: not found }
      - arguments: { q: 1 }
        invalid: true
        expect: { isError: false, structuredContent: { total: 0 } }
      - arguments: { q: 2 }
        invalid: true
        expect: { error: "q: must be string", text: Invalid arguments }
`;
    expect(diagnosticsOf(spec)).toEqual([
      '21:35 error TS039 example 1: expects an error message and "isError: false" together',
      '24:19 error TS039 example 2: is marked invalid, so its call ends in an error result, but expects "isError: false"',
      '24:35 error TS039 example 2: is marked invalid, so its call returns no structured result',
    ]);
  });

  it('leaves places under composition keywords unjudged', () => {
    const spec = `  - name: pick
    description: Pick one.
    inputSchema: { type: object }
    outputSchema:
      type: object
      properties: { value: { anyOf: [{ type: string }, { type: integer }] } }
      additionalProperties: false
    examples:
      - arguments: {}
        expect: { structuredContent: { value: true } }
`;
    expect(diagnosticsOf(spec)).toEqual([]);
  });
});

/** The vitest that this repository runs, started in a project folder with that folder's vitest.config.ts. */
const VITEST = path.join(repoRoot, 'node_modules/vitest/vitest.mjs');

interface TestResult {
  title: string;
  status: string;
  failureMessages: string[];
}

/** Copies `from` into a scratch folder, edits it, generates, and runs the generated contract tests with vitest. */
async function runExamples(from: string, name: string, edit: (dir: string) => void = () => {}): Promise<TestResult[]> {
  const p = scratchCopy(from, name);
  cleanups.push(p.cleanup);
  fs.copyFileSync(path.join(repoRoot, 'templates/init/vitest.config.ts'), path.join(p.dir, 'vitest.config.ts'));
  edit(p.dir);
  const { model, validators, diagnostics } = loadModel('toolspec.yaml', { cwd: p.dir });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  writeOutput(model!.rootDir, model!.options, await generate(model!, validators!));
  const out = path.join(p.dir, 'results.json');
  // The child is a vitest of its own, not a worker of this one.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'),
  );
  const r = spawnSync(process.execPath, [VITEST, 'run', '--reporter=json', `--outputFile=${out}`], {
    cwd: p.dir,
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1', CI: 'true' },
    timeout: 120_000,
  });
  expect(fs.existsSync(out), r.stdout + r.stderr).toBe(true);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as {
    testResults: { name: string; assertionResults: TestResult[] }[];
  };
  expect(report.testResults.map((f) => path.relative(p.dir, f.name))).toEqual(['src/generated/examples.test.ts']);
  return report.testResults[0]!.assertionResults;
}

const edit = (dir: string, file: string, from: string, to: string) => {
  const abs = path.join(dir, file);
  const text = fs.readFileSync(abs, 'utf8');
  if (!text.includes(from)) throw new Error(`${from} is not in ${file}`);
  fs.writeFileSync(abs, text.replace(from, to));
};

const statuses = (results: TestResult[]) => results.map((r) => `${r.status} ${r.title}`);

describe('the generated contract tests, run with vitest', () => {
  it('pass on specs/todo with its handlers, one test per example in the spec order', async () => {
    const results = await runExamples(path.join(repoRoot, 'specs/todo'), 'examples-todo');
    expect(statuses(results)).toEqual([
      'passed add_item › the priority defaults to normal',
      'passed add_item › with a due date and a priority',
      'passed add_item › an empty text is rejected',
      'passed add_item › an unknown argument is rejected',
      'passed list_items › lists the open items',
      'passed complete_item › completes an item',
      'passed complete_item › completing it again changes nothing',
      'passed complete_item › an unknown id is an error the model can act on',
      'passed complete_item › ids start at 1',
      'passed remove_item › ids start at 1',
    ]);
  });

  it('fail, by name, where a handler breaks an example or its output schema, or a rejection is not as expected', async () => {
    const results = await runExamples(path.join(repoRoot, 'specs/todo'), 'examples-todo-broken', (dir) => {
      edit(dir, 'toolspec.yaml', 'expect: { text: "Done: #1 Buy milk" }', 'expect: { text: "Done: #1 Buy bread" }');
      edit(
        dir,
        'toolspec.yaml',
        'expect: { error: "colour: is not an accepted argument" }',
        'expect: { error: "colour: is required" }',
      );
      // The second example asks for priority high: the handler now answers with a value its output schema forbids.
      edit(
        dir,
        'src/handlers/add_item.ts',
        'priority: item.priority }',
        "priority: item.priority === 'high' ? ('urgent' as 'high') : item.priority }",
      );
      // And the list forgets the open items: an empty list is a string, but not the expected one.
      edit(dir, 'src/handlers/list_items.ts', 'if (!shown.length)', 'if (shown.length)');
    });
    const failed = results.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.title)).toEqual([
      'add_item › with a due date and a priority',
      'add_item › an unknown argument is rejected',
      'list_items › lists the open items',
      'complete_item › completes an item',
    ]);
    const [output, rejection, list, text] = failed.map((r) => r.failureMessages.join('\n'));
    expect(output).toContain('does not match the outputSchema');
    expect(output).toContain('priority: must be one of');
    expect(rejection).toContain('expect.error: expected \'Invalid arguments for tool "add_item"');
    expect(rejection).toContain("to contain 'colour: is required'");
    expect(list).toContain("expect.text: expected 'The list is empty.' to contain '[ ] #1 Buy milk (normal)'");
    expect(text).toContain("expect.text: expected 'Done: #1 Buy milk' to contain 'Done: #1 Buy bread'");
    expect(results.filter((r) => r.status === 'passed')).toHaveLength(6);
  });

  it('on specs/docs with stub handlers: invalid examples pass, valid ones fail saying the handler is not written', async () => {
    const results = await runExamples(path.join(repoRoot, 'specs/docs'), 'examples-docs');
    const { model } = loadModel('specs/docs/toolspec.yaml', { cwd: repoRoot });
    const examples = model!.tools.flatMap((t) =>
      t.examples.map((e, i) => ({ tool: t.name, title: `${t.name} › ${e.name ?? `#${i + 1}`}`, invalid: e.invalid })),
    );
    expect(results.map((r) => r.title)).toEqual(examples.map((e) => e.title));
    expect(examples.filter((e) => e.invalid).length).toBeGreaterThan(10);
    results.forEach((r, i) => {
      const example = examples[i]!;
      if (example.invalid) expect(r.status, r.title).toBe('passed');
      else {
        expect(r.status, r.title).toBe('failed');
        expect(r.failureMessages.join('\n')).toContain(
          `the call ended in an error result: ${example.tool} is not implemented yet`,
        );
      }
    });
  });

  it('name each failing argument as the dispatcher does, and keep hostile example text inert', async () => {
    const spec = `${HEAD}  - name: odd_names
    description: Echo the arguments.
    inputSchema:
      type: object
      minProperties: 1
      properties:
        "a.b": { type: string, description: a dotted name }
        "*/ \${x}": { type: integer, description: a hostile name }
        "0": { type: boolean, description: a numeric name }
        list:
          type: array
          description: a list
          items: { type: object, properties: { tag: { type: string, pattern: "^[a-z]+$" } }, required: [tag] }
      additionalProperties: false
    examples:
      - name: "*/ \`\${injected}\` \\u2028 it's \\"quoted\\" %s"
        arguments: { "a.b": "*/ \`\${x}\` \\u2028" }
        expect: { text: "*/ \`\${x}\`" }
      - { name: a dotted name, arguments: { "a.b": 1 }, invalid: true }
      - { name: a hostile name, arguments: { "*/ \${x}": s }, invalid: true }
      - { name: a numeric name, arguments: { "0": "yes" }, invalid: true }
      - { name: items, arguments: { list: [{ tag: A }, {}] }, invalid: true }
      - { name: an extra argument, arguments: { extra: 1 }, invalid: true }
      - { name: no arguments, arguments: {}, invalid: true }
`;
    const p = tempProject({
      'toolspec.yaml': spec,
      'src/handlers/odd_names.ts':
        "import type { Handler } from '../generated/contract.js';\n\nexport const handler: Handler<'odd_names'> = (args) => JSON.stringify(args);\n",
    });
    cleanups.push(p.cleanup);
    const { model } = loadModel('toolspec.yaml', { cwd: p.dir });
    expect(model!.tools[0]!.examples.map((e) => e.rejected)).toEqual([
      undefined,
      ['["a.b"]'],
      ['["*/ ${x}"]'],
      ['["0"]'],
      ['list[0].tag', 'list[1].tag'],
      ['extra'],
      ['(arguments)'],
    ]);
    const results = await runExamples(p.dir, 'examples-odd');
    expect(statuses(results)).toEqual([
      `passed odd_names › */ \`\${injected}\` \u2028 it's "quoted" %s`,
      'passed odd_names › a dotted name',
      'passed odd_names › a hostile name',
      'passed odd_names › a numeric name',
      'passed odd_names › items',
      'passed odd_names › an extra argument',
      'passed odd_names › no arguments',
    ]);
  });
});

describe('generate and check', () => {
  it('the drift check holds examples.test.ts to the spec like any generated file', async () => {
    const p = scratchCopy(path.join(repoRoot, 'specs/todo'), 'examples-check');
    cleanups.push(p.cleanup);
    const load = () => loadOk('toolspec.yaml', p.dir);
    const check = () => checkDir(p.dir);
    writeOutput(p.dir, load().model.options, await generateSpec('toolspec.yaml', p.dir));
    expect(await check()).toEqual([]);

    edit(p.dir, 'toolspec.yaml', 'expect: { text: "Done: #1 Buy milk" }', 'expect: { text: "Done: #1 Buy bread" }');
    const stale = await check();
    expect(stale.map((f) => `${f.kind} ${f.file}`)).toEqual(['stale-file src/generated/examples.test.ts']);
    expect(stale[0]!.diff).toContain(
      "+  ['complete_item', 'completes an item', { arguments: { id: 1 }, expect: { text: 'Done: #1 Buy bread' } }],",
    );

    // Without examples the file is not generated any more: check wants it gone, generate removes it.
    const spec = path.join(p.dir, 'toolspec.yaml');
    fs.writeFileSync(
      spec,
      fs.readFileSync(spec, 'utf8').replace(/\n {4}(?:# .*\n {4})?examples:\n(?: {6}.*\n)+/g, '\n'),
    );
    expect(load().model.tools.every((t) => t.examples.length === 0)).toBe(true);
    expect((await check()).map((f) => `${f.kind} ${f.file}`)).toEqual([
      'extra-file src/generated/contract-tests.ts',
      'extra-file src/generated/examples.test.ts',
    ]);
    writeOutput(p.dir, load().model.options, await generateSpec('toolspec.yaml', p.dir));
    expect(fs.existsSync(path.join(p.dir, 'src/generated/examples.test.ts'))).toBe(false);
    expect(fs.existsSync(path.join(p.dir, 'src/generated/contract-tests.ts'))).toBe(false);
  });

  it('writes examples.test.ts only for a spec with examples', async () => {
    const p = tempProject({
      'toolspec.yaml': `${HEAD}  - name: x\n    description: Do x.\n    inputSchema: { type: object }\n`,
    });
    cleanups.push(p.cleanup);
    const { model, validators } = loadModel('toolspec.yaml', { cwd: p.dir });
    const files = await generate(model!, validators!);
    expect(files.some((f) => f.path.endsWith('examples.test.ts'))).toBe(false);
    expect(files.some((f) => f.path.endsWith('registry.ts'))).toBe(true);
  });

  it('writes no examples.test.ts when options.contractTests is false (projects without vitest)', async () => {
    const spec = `${HEAD}  - name: x\n    description: Do x.\n    inputSchema: { type: object }\n    examples:\n      - arguments: {}\n`;
    const p = tempProject({
      'toolspec.yaml': spec,
      'off.yaml': spec.replace('tools:', 'options: { contractTests: false }\ntools:'),
    });
    cleanups.push(p.cleanup);
    const on = await generateSpec('toolspec.yaml', p.dir);
    expect(on.some((f) => f.path.endsWith('examples.test.ts'))).toBe(true);
    const off = await generateSpec('off.yaml', p.dir);
    expect(off.some((f) => f.path.endsWith('examples.test.ts'))).toBe(false);
  });
});

describe('prompt and resource examples, run with vitest', () => {
  const spec = `${HEAD}  - name: add_note
    description: Add a note.
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text], additionalProperties: false }
    examples:
      - { name: adds the first note, arguments: { text: Buy milk }, expect: { text: "#1" } }
prompts:
  - name: summarise
    description: Summarise the notes on a topic.
    arguments:
      - { name: topic, required: true }
      - { name: style }
    examples:
      - name: names the topic and lists the notes
        arguments: { topic: shopping, style: short }
        expect: { text: "- Buy milk", messages: [{ role: user, content: { type: text } }] }
      - name: the topic is required
        arguments: { style: short }
        invalid: true
        expect: { error: Missing required argument }
      - name: a "*/ \`\${x}\`" style is refused by the handler
        arguments: { topic: x, style: "*/ \`\${x}\`" }
        expect: { error: "no such style" }
resources:
  - uri: notes://index
    name: index
    description: Every note, one a line.
    mimeType: text/plain
    examples:
      - { name: lists the notes, expect: { text: "1 Buy milk", mimeType: text/plain } }
resourceTemplates:
  - uriTemplate: notes://{id}
    name: note
    description: One note, by id.
    mimeType: text/markdown
    examples:
      - name: reads a note
        uri: notes://1
        expect: { contents: [{ uri: "notes://1", text: "# Buy milk" }], mimeType: text/markdown }
      - name: an unknown note is not found
        uri: notes://9
        expect: { notFound: true }
`;
  const files = {
    'toolspec.yaml': spec,
    'src/handlers/store.ts': 'export const notes: string[] = [];\n',
    'src/handlers/add_note.ts': `import type { Handler } from '../generated/contract.js';
import { notes } from './store.js';

export const handler: Handler<'add_note'> = ({ text }) => \`#\${notes.push(text)}\`;
`,
    'src/handlers/prompts/summarise.ts': `import type { PromptHandler } from '../../generated/contract.js';
import { notes } from '../store.js';

export const handler: PromptHandler<'summarise'> = ({ topic, style }) => {
  if (style !== undefined && style !== 'short') throw new Error('no such style');
  return \`Summarise my notes on \${topic}:\\n\${notes.map((n) => \`- \${n}\`).join('\\n')}\`;
};
`,
    'src/handlers/resources/index.ts': `import type { ResourceHandler } from '../../generated/contract.js';
import { notes } from '../store.js';

export const handler: ResourceHandler<'index'> = () => notes.map((n, i) => \`\${i + 1} \${n}\`).join('\\n');
`,
    'src/handlers/resources/note.ts': `import type { ResourceHandler } from '../../generated/contract.js';
import { notes } from '../store.js';

export const handler: ResourceHandler<'note'> = ({ id }) => {
  const note = notes[Number(id) - 1];
  return note === undefined ? undefined : \`# \${note}\`;
};
`,
  };

  it('pass on a project whose handlers keep them, after the tools', async () => {
    const p = tempProject(files);
    cleanups.push(p.cleanup);
    const results = await runExamples(p.dir, 'examples-primitives');
    expect(statuses(results)).toEqual([
      'passed add_note › adds the first note',
      'passed summarise › names the topic and lists the notes',
      'passed summarise › the topic is required',
      'passed summarise › a "*/ `${x}`" style is refused by the handler',
      'passed index › lists the notes',
      'passed note › reads a note',
      'passed note › an unknown note is not found',
    ]);
  });

  it('fail, by name and with the expectation, where the handlers break them', async () => {
    const p = tempProject(files);
    cleanups.push(p.cleanup);
    const results = await runExamples(p.dir, 'examples-primitives-broken', (dir) => {
      // The prompt forgets the notes, and refuses no style any more.
      edit(dir, 'src/handlers/prompts/summarise.ts', 'notes.map((n) => `- ${n}`)', 'notes.map((n) => `* ${n}`)');
      edit(dir, 'src/handlers/prompts/summarise.ts', "style !== 'short'", "style === 'long'");
      // The index gets another MIME type; a note another heading; an unknown one is an empty text, not "not found".
      edit(dir, 'src/handlers/resources/index.ts', "join('\\n')", "join('\\n'), mimeType: 'text/csv' })");
      edit(dir, 'src/handlers/resources/index.ts', '() => notes', '() => ({ text: notes');
      edit(dir, 'src/handlers/resources/note.ts', 'note === undefined ? undefined : `# ${note}`', "`## ${note ?? ''}`");
      // And the required argument is not required any more: prompts/get accepts the invalid example.
      edit(dir, 'toolspec.yaml', '{ name: topic, required: true }', '{ name: topic }');
      edit(dir, 'toolspec.yaml', '        invalid: true\n', '');
    });
    const failed = results.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.title)).toEqual([
      'summarise › names the topic and lists the notes',
      'summarise › the topic is required',
      'summarise › a "*/ `${x}`" style is refused by the handler',
      'index › lists the notes',
      'note › reads a note',
      'note › an unknown note is not found',
    ]);
    const [text, required, refused, mime, contents, notFound] = failed.map((r) => r.failureMessages.join('\n'));
    expect(text).toContain("to contain '- Buy milk'");
    expect(required).toContain('prompts/get must fail; it returned the messages');
    expect(refused).toContain('prompts/get must fail; it returned the messages');
    expect(mime).toContain('expect.mimeType of notes://index');
    expect(contents).toContain('expect.contents');
    expect(notFound).toContain('the read must fail; it returned the contents [{"uri":"notes://9"');
  });
});
