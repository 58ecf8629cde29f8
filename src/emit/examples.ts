/**
 * examples.test.ts: the spec's examples as contract tests for vitest. Each example is called through the generated
 * dispatcher with the user's real handlers (registry.ts), in the spec's order; the test checks the outcome, the
 * output schema, the `expect` of the example, and that an invalid example is rejected with a message naming each
 * failing argument. Examples go in as JSON strings (data, never code); the runner is the runtime module
 * templates/runtime/contract-tests.ts, copied beside it.
 */
import path from 'node:path';
import type { ServerModel } from '../model.js';
import { fitOrBreak } from './layout.js';
import { tsStr } from './text.js';

/** Whether the spec has any example, and so an examples.test.ts. */
export function hasExamples(model: ServerModel): boolean {
  return model.tools.some((t) => t.examples.length > 0);
}

export function emitExamples(model: ServerModel): string {
  const rows: string[] = [];
  for (const tool of model.tools) {
    tool.examples.forEach((ex, i) => {
      const data: Record<string, unknown> = { arguments: ex.arguments };
      if (ex.invalid) data['invalid'] = true;
      if (ex.rejected?.length) data['rejected'] = ex.rejected;
      if (ex.expect && Object.keys(ex.expect).length) data['expect'] = ex.expect;
      const title = ex.name ?? `#${i + 1}`;
      rows.push(fitOrBreak('[', [tsStr(tool.name), tsStr(title), tsStr(JSON.stringify(data))], '],', '  '));
    });
  }
  const spec = path.posix.basename(model.specFile);
  return `import { runExamples } from './contract-tests.js';

/** [tool, example name (or its number among the tool's examples), the example as JSON], in the spec's order. */
runExamples(${tsStr(`examples in ${spec}`)}, [
${rows.join('\n')}
]);
`;
}
