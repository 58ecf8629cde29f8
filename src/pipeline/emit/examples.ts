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
import type { ExampleModel, PromptExampleModel, ResourceExampleModel, ServerModel } from '../model.js';
import { literal, str } from './text.js';

/** Whether the spec has any example, and so an examples.test.ts. */
export function hasExamples(model: ServerModel): boolean {
  return [model.tools, model.prompts, model.resources].some((list) => list.some((x) => x.examples.length > 0));
}

/** A tool's, prompt's or resource's example (a resource's reads a URI; only tools' and prompts' are invalid). */
type Example = ExampleModel | PromptExampleModel | ResourceExampleModel;

/** `[owner, example name (or its number), the example as data],` for each example of each owner, in order. */
const rows = (owners: readonly { name: string; examples: readonly Example[] }[]) =>
  owners.flatMap((owner) =>
    owner.examples.map((ex, i) => {
      const data: Record<string, unknown> = 'uri' in ex ? { uri: ex.uri } : { arguments: ex.arguments };
      if ('invalid' in ex && ex.invalid) data['invalid'] = true;
      if ('rejected' in ex && ex.rejected?.length) data['rejected'] = ex.rejected;
      if (ex.expect && Object.keys(ex.expect).length) data['expect'] = ex.expect;
      return `[${str(owner.name)}, ${str(ex.name ?? `#${i + 1}`)}, ${literal(data)}],`;
    }),
  );

export function emitExamples(model: ServerModel): string[] {
  const spec = path.posix.basename(model.specFile);
  const blocks = (
    [
      ['runExamples', 'tool', "the tool's", 'examples', rows(model.tools)],
      ['runPromptExamples', 'prompt', "the prompt's", 'prompt examples', rows(model.prompts)],
      ['runResourceExamples', 'resource or template', 'its', 'resource examples', rows(model.resources)],
    ] as const
  ).filter((b) => b[4].length);
  return [
    `import { ${blocks.map((b) => b[0]).join(', ')} } from './contract-tests.js';\n`,
    ...blocks.map(
      ([runner, owner, whose, title, rows]) =>
        `/** [${owner}, example name (or its number among ${whose} examples), the example], in the spec's order. */\n${runner}(${str(`${title} in ${spec}`)}, [\n${rows.join('\n')}\n]);\n`,
    ),
  ];
}
