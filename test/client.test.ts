/**
 * The generated typed client (client.ts over templates/runtime/typed-client.ts): for specs/docs, its surface as a
 * user's code sees it, type-checked with the real compiler under strict settings (wrong arguments, unknown tools and
 * the output types are the compiler's to catch); the runtime's URI expansion and error messages; and `toolspec
 * check` reporting a hand edit of client.ts. Calls against real servers, on both eras: test/e2e/client-e2e.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUriTemplate } from '../templates/runtime/uri-template.js';
import {
  expand,
  ResourceInputError,
  ToolInputError,
  ToolOutputError,
  ToolResultError,
} from '../templates/runtime/typed-client.js';
import { clientNames } from '../src/pipeline/emit/client.js';
import { repoRoot, runMain } from './helpers/cli.js';
import { generateSpec, loadOk } from './helpers/generate.js';
import { compile, scratchCopy } from './helpers/project.js';

/** A user's module of the docs-server project: what must compile, and (ts-expect-error) what must not. */
const USAGE = `import type { CallToolResult, GetPromptResult, ReadResourceResult, Transport } from '@modelcontextprotocol/client';
import { connectDocsServer, ToolInputError, ToolOutputError, ToolResultError, type DocsServerClient } from './generated/client.js';
import type { ListVersionsOutput, SearchDocsOutput } from './generated/types.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function same<T extends true>(_: T): void {}

export async function use(transport: Transport): Promise<void> {
  const docs: DocsServerClient = await connectDocsServer(transport, { versionNegotiation: { mode: 'legacy' } });
  const hits = await docs.tools.search_docs({ query: 'install', filters: { kinds: ['guide'] }, limit: 3 });
  same<Equal<typeof hits, SearchDocsOutput>>(true);
  // A tool without required arguments may be called without any.
  same<Equal<Awaited<ReturnType<typeof docs.tools.list_versions>>, ListVersionsOutput>>(true);
  await docs.tools.list_versions();
  // A tool without an outputSchema gives the CallToolResult.
  const sample = await docs.tools.render_code_sample({ code: 'connect()', language: 'typescript' });
  same<Equal<typeof sample, CallToolResult>>(true);
  const prompt = await docs.prompts.explain_page({ slug: 'guides/install' });
  same<Equal<typeof prompt, GetPromptResult>>(true);
  const page = await docs.resources.page({ slug: 'guides/install', version: '2.4.1' });
  same<Equal<typeof page, ReadResourceResult>>(true);
  // @ts-expect-error: query is required
  await docs.tools.search_docs({});
  // @ts-expect-error: limit is a number
  await docs.tools.search_docs({ query: 'x', limit: 'three' });
  // @ts-expect-error: no such tool
  await docs.tools.search_everything({ query: 'x' });
  // @ts-expect-error: a prompt's required argument
  await docs.prompts.explain_page({ level: 'new' });
  // @ts-expect-error: a template's path variable
  await docs.resources.page({ version: '2.4.1' });
  const errors: Error[] = [new ToolInputError('t', [], {}), new ToolOutputError('t', [], 1), new ToolResultError('t', { content: [] })];
  same<Equal<(typeof errors)[number], Error>>(true);
  await docs.close();
}
`;

describe('the generated client of specs/docs', () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(async () => {
    const scratch = path.join(repoRoot, 'test', '.tmp');
    fs.mkdirSync(scratch, { recursive: true });
    dir = fs.mkdtempSync(path.join(scratch, 'client-'));
    cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
    for (const f of await generateSpec('specs/docs/toolspec.yaml', repoRoot)) {
      fs.mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      fs.writeFileSync(path.join(dir, f.path), f.contents);
    }
    fs.writeFileSync(path.join(dir, 'src/usage.ts'), USAGE);
  });
  afterAll(() => cleanup?.());

  it('is named after the server and holds its prompts and resources', () => {
    const { model } = loadOk('specs/docs/toolspec.yaml', repoRoot);
    expect(clientNames(model)).toEqual({ connect: 'connectDocsServer', type: 'DocsServerClient' });
    const text = fs.readFileSync(path.join(dir, 'src/generated/client.ts'), 'utf8');
    expect(text).toContain(
      'export function connectDocsServer(transport: Transport, options?: ConnectOptions): Promise<DocsServerClient>',
    );
    expect(text).toContain("prompts: ['explain_page'],");
    expect(text).toContain("page: 'docs://pages/{+slug}{?version}',");
    // The runtime beside it, copied as it is.
    expect(fs.readFileSync(path.join(dir, 'src/generated/typed-client.ts'), 'utf8')).toContain(
      fs.readFileSync(path.join(repoRoot, 'templates/runtime/typed-client.ts'), 'utf8'),
    );
  });

  it('type-checks strictly with a user module: typed arguments, outputs, prompts and resources', () => {
    // The user module and everything it reaches (the generated folder and the handlers), in one strict program.
    expect(compile([path.join(dir, 'src/usage.ts')])).toEqual([]);
  }, 120_000);

  it('is named Server for a server name without a letter or digit', () => {
    const { model } = loadOk('specs/docs/toolspec.yaml', repoRoot);
    expect(clientNames({ ...model, server: { ...model.server, name: '--' } })).toEqual({
      connect: 'connectServer',
      type: 'ServerClient',
    });
  });
});

describe('the typed client runtime', () => {
  const parts = (template: string) => {
    const parsed = parseUriTemplate(template);
    if ('error' in parsed) throw new Error(parsed.error.message);
    return parsed.template.parts;
  };

  it('expands a template: segments encoded, reserved expansion kept, query parameters only when given', () => {
    expect(expand('note', parts('notes://{id}{?version}'), { id: 'a b/c' })).toBe('notes://a%20b%2Fc');
    expect(expand('note', parts('notes://{id}{?version}'), { id: '42', version: '3' })).toBe('notes://42?version=3');
    expect(expand('file', parts('files://{+path}'), { path: 'a/b c/d.md' })).toBe('files://a/b%20c/d.md');
    expect(expand('q', parts('x://s{?a}{&b}'), { b: '2' })).toBe('x://s?b=2');
    expect(expand('q', parts('x://s{?a,b}'), { a: "it's", b: '1&2' })).toBe('x://s?a=it%27s&b=1%262');
    expect(expand('fixed', parts('notes://index'), {})).toBe('notes://index');
  });

  it('refuses a missing path variable before anything is sent, naming it', () => {
    expect(() => expand('note', parts('notes://{id}'), {})).toThrow(ResourceInputError);
    expect(() => expand('note', parts('notes://{id}'), {})).toThrow('Resource "note" needs the variable "id"');
  });

  it('names the tool and the first failing path in its errors', () => {
    const input = new ToolInputError(
      'search_docs',
      [
        {
          instancePath: '/filters/kinds/0',
          keyword: 'enum',
          params: {},
          message: 'must be equal to one of the allowed values',
        },
      ],
      { filters: { kinds: ['blog'] } },
    );
    expect(input.path).toBe('filters.kinds[0]');
    expect(input.message).toBe(
      'Invalid arguments for tool "search_docs" (not sent): filters.kinds[0]: must be equal to one of the allowed values',
    );
    const missing = new ToolInputError(
      'search_docs',
      [{ instancePath: '', keyword: 'required', params: { missingProperty: 'query' } }],
      {},
    );
    expect(missing.path).toBe('query');
    expect(missing.message).toContain(': query: is required');
    const output = new ToolOutputError(
      'get_page',
      [{ instancePath: '', keyword: 'type', params: {}, message: 'must be object' }],
      'text',
    );
    expect(output.path).toBe('(output)');
    expect(output.message).toBe(
      'Tool "get_page" returned output that does not match its outputSchema: (output): must be object',
    );
    expect(new ToolOutputError('get_page', [], undefined).message).toBe(
      'Tool "get_page" returned no structured output, which its outputSchema requires',
    );
    const failed = new ToolResultError('delete_bookmark', {
      content: [{ type: 'text', text: 'No such bookmark.' }],
      isError: true,
    });
    expect(failed.message).toBe('Tool "delete_bookmark" failed: No such bookmark.');
    expect(failed.result.isError).toBe(true);
  });
});

describe('toolspec check and client.ts', () => {
  it('reports a hand edit of client.ts as drift, and a fresh generate as clean', async () => {
    const p = scratchCopy(path.join(repoRoot, 'test/fixtures/check/base'), 'client-check');
    try {
      expect((await runMain(['generate'], p.dir)).code).toBe(0);
      expect((await runMain(['check'], p.dir)).code).toBe(0);
      const file = path.join(p.dir, 'src/generated/client.ts');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('prompts: [', "prompts: ['extra', "));
      const r = await runMain(['check'], p.dir);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toContain('src/generated/client.ts');
      fs.rmSync(file);
      const gone = await runMain(['check'], p.dir);
      expect(gone.code).toBe(1);
      expect(gone.stdout + gone.stderr).toContain('src/generated/client.ts');
    } finally {
      p.cleanup();
    }
  });
});
