/**
 * Contract tests: every example of the spec, called through the dispatcher with the real handlers (registry.ts),
 * one after another in the spec's order, so handlers keep their module state from one example to the next; then the
 * prompts' examples through prompts/get and the resources' through resources/read, as the server runs them
 * (prompts.ts and resources.ts over the tables of primitives.ts). The generated examples.test.ts holds the examples
 * (as JSON data) and calls runExamples, runPromptExamples and runResourceExamples; this module is copied into
 * projects that have examples.
 */
import { describe, expect, it } from 'vitest';
import {
  isInputRequiredResult,
  ProtocolError,
  type CallToolResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import { localRequest } from './context.js';
import { createDispatcher, legacyTools, type AnyHandler } from './dispatcher.js';
import {
  promptModules,
  promptRules,
  prompts,
  resourceModules,
  resourceRules,
  resources,
  resourceTemplates,
} from './primitives.js';
import { createPrompts, type ModuleLoaders } from './prompts.js';
import { createResources } from './resources.js';
import { handlers } from './registry.js';
import { loadBindings, objectOutputs, timeouts, tools } from './tools.js';

/** An example of a tool or a prompt: arguments, whether they are refused, and what the answer must hold. */
interface ArgumentsExample<Expect> {
  arguments: Record<string, unknown>;
  /** The tool's input schema, or prompts/get, refuses these arguments. */
  invalid?: true;
  /** For an invalid example: each argument the refusal must name (a tool's as the dispatcher writes its path). */
  rejected?: string[];
  expect?: { isError?: boolean; text?: string; error?: string } & Expect;
}

export type Example = ArgumentsExample<{ structuredContent?: unknown }>;

/** What the dispatcher logged of the current call: the cause of an unexpected error result. */
const logged: unknown[] = [];

const legacy = legacyTools(tools, objectOutputs);

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
  // A contract test's call carries no 2026-07-28 envelope, so it is never made a task.
  const result = answer as CallToolResult;
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
      // The 2025 wire: a tool listed to 2025 clients with type: object sends its value as it is, so it must be an
      // object there (any other root is wrapped as {result} by the SDK, the value and the listed schema alike).
      const listed = legacy.find((t) => t.name === tool)?.outputSchema;
      if (output && listed?.type === 'object') {
        const value = result.structuredContent;
        expect(
          typeof value === 'object' && value !== null && !Array.isArray(value),
          '2025 clients are told this output is an object',
        ).toBe(true);
      }
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

/** The examples of one kind as vitest tests: [what, example name, the example], in the spec's order. */
type Examples = readonly (readonly [subject: string, name: string, example: unknown])[];

function register<E>(title: string, examples: Examples, run: (subject: string, example: E) => unknown): void {
  describe(title, () => {
    for (const [subject, name, example] of examples) {
      // A copy per test: a call may fill in defaults on its arguments.
      it(`${subject} › ${name}`, () => run(subject, structuredClone(example) as E));
    }
  });
}

/** Registers one vitest test per tool example. */
export function runExamples(title: string, examples: Examples): void {
  register<Example>(title, examples, check);
}

export type PromptExample = ArgumentsExample<{ messages?: unknown[] }>;

export interface ResourceExample {
  uri: string;
  expect?: {
    isError?: boolean;
    notFound?: boolean;
    text?: string;
    error?: string;
    mimeType?: string;
    contents?: unknown[];
  };
}

const promptList = createPrompts(prompts, promptRules, promptModules as ModuleLoaders, {
  onError: (error) => logged.push(error),
});
const resourceList = createResources(resources, resourceTemplates, resourceRules, resourceModules as ModuleLoaders, {
  onError: (error) => logged.push(error),
});

/** The result, or the JSON-RPC error the request would end with; a question to the client fails the test. */
async function settle<T extends object>(
  run: () => Promise<T | InputRequiredResult>,
): Promise<{ result: T; error?: undefined } | { result?: undefined; error: ProtocolError }> {
  let answer: T | InputRequiredResult;
  try {
    answer = await run();
  } catch (error) {
    if (error instanceof ProtocolError) return { error };
    throw error;
  }
  if (isInputRequiredResult(answer)) {
    const asked = Object.keys(answer.inputRequests ?? {}).join(', ');
    throw new Error(`the handler asked the client for input (${asked}); a contract test has no client to answer`);
  }
  return { result: answer as T };
}

/** The cause the runtime logged for an unexpected failure, with its stack. */
const causes = () => logged.map((e) => (e instanceof Error ? `\n${e.stack ?? e.message}` : `\n${String(e)}`)).join('');

async function checkPrompt(prompt: string, example: PromptExample): Promise<void> {
  logged.length = 0;
  const { sdk, connection } = localRequest();
  const { result, error } = await settle(() =>
    promptList.get(prompt, structuredClone(example.arguments), sdk, connection),
  );
  const want = example.expect ?? {};
  if (example.invalid || want.isError || want.error !== undefined) {
    const messages = JSON.stringify(result?.messages);
    expect(error, `prompts/get must fail; it returned the messages ${messages}`).toBeDefined();
    if (example.invalid) {
      expect(error!.code, `the refusal must be invalid params (-32602): ${error!.message}`).toBe(-32602);
      for (const name of example.rejected ?? [])
        expect(error!.message, `the refusal must name ${name}`).toContain(JSON.stringify(name));
    }
    if (want.error !== undefined) expect(error!.message, 'expect.error').toContain(want.error);
    return;
  }
  expect(error, `prompts/get failed: ${error?.message ?? ''}${causes()}`).toBeUndefined();
  const text = result!.messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : [])).join('\n');
  if (want.text !== undefined) expect(text, 'expect.text').toContain(want.text);
  if (want.messages !== undefined) expect(result!.messages, 'expect.messages').toMatchObject(want.messages);
}

async function checkResource(resource: string, example: ResourceExample): Promise<void> {
  logged.length = 0;
  const { sdk, connection } = localRequest();
  const { result, error } = await settle(() => resourceList.read(example.uri, sdk, connection));
  const want = example.expect ?? {};
  if (want.notFound || want.isError || want.error !== undefined) {
    const contents = JSON.stringify(result?.contents);
    expect(error, `the read must fail; it returned the contents ${contents}`).toBeDefined();
    if (want.notFound) {
      const found = `${error!.code} ${error!.message}`;
      expect(found, 'expect.notFound: the read must answer "resource not found"').toBe(
        `-32602 Resource not found: ${example.uri}`,
      );
    }
    if (want.error !== undefined) expect(error!.message, 'expect.error').toContain(want.error);
    return;
  }
  expect(error, `reading ${example.uri} (${resource}) failed: ${error?.message ?? ''}${causes()}`).toBeUndefined();
  const contents = result!.contents;
  const text = contents.flatMap((c) => ('text' in c ? [c.text] : [])).join('\n');
  if (want.text !== undefined) expect(text, 'expect.text').toContain(want.text);
  if (want.mimeType !== undefined) {
    expect(contents.length, 'expect.mimeType: the read returned no contents').toBeGreaterThan(0);
    for (const c of contents) expect(c.mimeType, `expect.mimeType of ${c.uri}`).toBe(want.mimeType);
  }
  if (want.contents !== undefined) expect(contents, 'expect.contents').toMatchObject(want.contents);
}

/** Registers one vitest test per prompt example. */
export function runPromptExamples(title: string, examples: Examples): void {
  register<PromptExample>(title, examples, checkPrompt);
}

/** Registers one vitest test per resource example. */
export function runResourceExamples(title: string, examples: Examples): void {
  register<ResourceExample>(title, examples, checkResource);
}
