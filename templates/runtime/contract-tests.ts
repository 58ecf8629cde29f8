/**
 * Contract tests: every example of the spec, called through the dispatcher with the real handlers (registry.ts),
 * one after another in the spec's order, so handlers keep their module state from one example to the next. The
 * generated examples.test.ts holds the examples (as JSON data) and calls runExamples; this module is copied into
 * projects that have examples.
 */
import { describe, expect, it } from 'vitest';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import { localRequest } from './context.js';
import { createDispatcher, type AnyHandler } from './dispatcher.js';
import { handlers } from './registry.js';
import { loadBindings, timeouts, tools } from './tools.js';

export interface Example {
  arguments: Record<string, unknown>;
  /** The input schema rejects these arguments. */
  invalid?: true;
  /** For an invalid example: each argument the rejection must name, as the dispatcher writes its path. */
  rejected?: string[];
  expect?: {
    isError?: boolean;
    text?: string;
    error?: string;
    structuredContent?: unknown;
  };
}

/** What the dispatcher logged of the current call: the cause of an unexpected error result. */
const logged: unknown[] = [];

const dispatcher = createDispatcher({
  tools,
  bindings: loadBindings,
  handlers: handlers as unknown as Record<string, AnyHandler>,
  timeouts,
  onError: (error) => logged.push(error),
});

async function check(tool: string, example: Example): Promise<void> {
  logged.length = 0;
  const { sdk, connection } = localRequest();
  const answer = await dispatcher.callTool(tool, structuredClone(example.arguments), sdk, connection);
  if (isInputRequiredResult(answer)) {
    const asked = Object.keys(answer.inputRequests ?? {}).join(', ');
    throw new Error(`the handler asked the client for input (${asked}); a contract test has no client to answer`);
  }
  const result = answer;
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  const want = example.expect ?? {};
  if (example.invalid) {
    expect(result.isError, 'the arguments must be rejected').toBe(true);
    const prefix = `Invalid arguments for tool ${JSON.stringify(tool)}`;
    expect(text.startsWith(prefix), `the rejection must start with ${prefix}; it is: ${text}`).toBe(true);
    for (const name of example.rejected ?? [])
      expect(text, `the rejection must name ${name}`).toContain(`\n- ${name}: `);
  } else {
    expect(text.includes('does not match the outputSchema'), text).toBe(false);
    if (want.isError || want.error !== undefined) {
      expect(result.isError, `the call must end in an error result; it returned: ${text}`).toBe(true);
    } else {
      const cause = logged.map((e) => (e instanceof Error ? `\n${e.stack ?? e.message}` : `\n${String(e)}`)).join('');
      expect(result.isError ?? false, `the call ended in an error result: ${text}${cause}`).toBe(false);
      const output = (await loadBindings()).get(tool)?.output;
      if (output) expect(output(result.structuredContent), 'structuredContent must match the outputSchema').toBe(true);
    }
    const structured = want.structuredContent;
    if (typeof structured === 'object' && structured !== null && !Array.isArray(structured)) {
      expect(result.structuredContent, 'expect.structuredContent').toMatchObject(structured);
    } else if (structured !== undefined) {
      expect(result.structuredContent, 'expect.structuredContent').toEqual(structured);
    }
  }
  if (want.error !== undefined) expect(text, 'expect.error').toContain(want.error);
  if (want.text !== undefined) expect(text, 'expect.text').toContain(want.text);
}

/** Registers one vitest test per example: [tool, example name, the example as JSON], in the spec's order. */
export function runExamples(
  title: string,
  examples: readonly (readonly [tool: string, name: string, example: string])[],
): void {
  describe(title, () => {
    for (const [tool, name, example] of examples) {
      it(`${tool} › ${name}`, () => check(tool, JSON.parse(example) as Example));
    }
  });
}
