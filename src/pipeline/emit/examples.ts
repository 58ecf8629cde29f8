/**
 * examples.test.ts: the spec's examples as contract tests for vitest. Each tool example is called through the
 * generated dispatcher with the user's real handlers (registry.ts), in the spec's order; the test checks the outcome,
 * the output schema, the `expect` of the example, and that an invalid example is rejected with a message naming each
 * failing argument. Prompt examples go through prompts/get and resource examples through resources/read, as the
 * server runs them (the runtime's prompts.ts and resources.ts over primitives.ts), after the tools'. Examples go in
 * as JSON literals (data, never code: text.ts's literal()); the runner is the runtime module templates/runtime/contract-tests.ts, copied
 * beside it.
 */
import path from 'node:path';
import type { ServerModel } from '../model.js';
import { literal, str } from './text.js';

/** Whether the spec has any example, and so an examples.test.ts. */
export function hasExamples(model: ServerModel): boolean {
  return (
    model.tools.some((t) => t.examples.length > 0) ||
    model.prompts.some((p) => p.examples.length > 0) ||
    model.resources.some((r) => r.examples.length > 0)
  );
}

const row = (owner: string, title: string, data: Record<string, unknown>) =>
  `[${str(owner)}, ${str(title)}, ${literal(data)}],`;

export function emitExamples(model: ServerModel): string[] {
  const tools: string[] = [];
  for (const tool of model.tools) {
    tool.examples.forEach((ex, i) => {
      const data: Record<string, unknown> = { arguments: ex.arguments };
      if (ex.invalid) data['invalid'] = true;
      if (ex.rejected?.length) data['rejected'] = ex.rejected;
      if (ex.expect && Object.keys(ex.expect).length) data['expect'] = ex.expect;
      tools.push(row(tool.name, ex.name ?? `#${i + 1}`, data));
    });
  }
  const prompts: string[] = [];
  for (const prompt of model.prompts) {
    prompt.examples.forEach((ex, i) => {
      const data: Record<string, unknown> = { arguments: ex.arguments };
      if (ex.invalid) data['invalid'] = true;
      if (ex.rejected?.length) data['rejected'] = ex.rejected;
      if (ex.expect && Object.keys(ex.expect).length) data['expect'] = ex.expect;
      prompts.push(row(prompt.name, ex.name ?? `#${i + 1}`, data));
    });
  }
  const resources: string[] = [];
  for (const resource of model.resources) {
    resource.examples.forEach((ex, i) => {
      const data: Record<string, unknown> = { uri: ex.uri };
      if (ex.expect && Object.keys(ex.expect).length) data['expect'] = ex.expect;
      resources.push(row(resource.name, ex.name ?? `#${i + 1}`, data));
    });
  }
  const spec = path.posix.basename(model.specFile);
  type Block = [runner: string, doc: string, title: string, rows: string[]];
  const blocks = (
    [
      ['runExamples', "[tool, example name (or its number among the tool's examples), the example]", 'examples', tools],
      [
        'runPromptExamples',
        "[prompt, example name (or its number among the prompt's examples), the example]",
        'prompt examples',
        prompts,
      ],
      [
        'runResourceExamples',
        '[resource or template, example name (or its number among its examples), the example]',
        'resource examples',
        resources,
      ],
    ] satisfies Block[]
  ).filter((b) => b[3].length);
  return [
    `import { ${blocks.map((b) => b[0]).join(', ')} } from './contract-tests.js';\n`,
    ...blocks.map(
      ([runner, doc, title, rows]) =>
        `/** ${doc}, in the spec's order. */\n${runner}(${str(`${title} in ${spec}`)}, [\n${rows.join('\n')}\n]);\n`,
    ),
  ];
}
