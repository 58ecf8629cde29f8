/**
 * examples.test.ts: the spec's examples as contract tests for vitest. Each tool example is called through the
 * generated dispatcher with the user's real handlers (registry.ts), in the spec's order; the test checks the outcome,
 * the output schema, the `expect` of the example, and that an invalid example is rejected with a message naming each
 * failing argument. Prompt examples go through prompts/get and resource examples through resources/read, as the
 * server runs them (the runtime's prompts.ts and resources.ts over primitives.ts), after the tools'. Examples go in
 * as JSON strings (data, never code); the runner is the runtime module templates/runtime/contract-tests.ts, copied
 * beside it.
 */
import path from 'node:path';
import type { ServerModel } from '../model.js';
import { fitOrBreak } from './layout.js';
import { tsStr } from './text.js';

/** Whether the spec has any example, and so an examples.test.ts. */
export function hasExamples(model: ServerModel): boolean {
  return (
    model.tools.some((t) => t.examples.length > 0) ||
    model.prompts.some((p) => p.examples.length > 0) ||
    model.resources.some((r) => r.examples.length > 0)
  );
}

const row = (owner: string, title: string, data: Record<string, unknown>) =>
  fitOrBreak('[', [tsStr(owner), tsStr(title), tsStr(JSON.stringify(data))], '],', '  ');

export function emitExamples(model: ServerModel): string {
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
  const runners: string[] = [];
  const blocks: string[] = [];
  if (tools.length) {
    runners.push('runExamples');
    blocks.push(`/** [tool, example name (or its number among the tool's examples), the example as JSON], in the spec's order. */
runExamples(${tsStr(`examples in ${spec}`)}, [
${tools.join('\n')}
]);
`);
  }
  if (prompts.length) {
    runners.push('runPromptExamples');
    blocks.push(`/** [prompt, example name (or its number among the prompt's examples), the example as JSON], in the spec's order. */
runPromptExamples(${tsStr(`prompt examples in ${spec}`)}, [
${prompts.join('\n')}
]);
`);
  }
  if (resources.length) {
    runners.push('runResourceExamples');
    blocks.push(`/** [resource or template, example name (or its number among its examples), the example as JSON], in spec order. */
runResourceExamples(${tsStr(`resource examples in ${spec}`)}, [
${resources.join('\n')}
]);
`);
  }
  return `import { ${runners.join(', ')} } from './contract-tests.js';

${blocks.join('\n')}`;
}
