/**
 * The generated typed client, end to end: a notes server (test/fixtures/e2e-client) generated with the built CLI and
 * compiled, and its own dist/generated/client.js connected to it over stdio and Streamable HTTP on 127.0.0.1, on
 * both protocol eras. Typed output, a prompt and resources come through; bad arguments are refused before anything
 * is sent (the transport carries no tools/call, and the server's state shows the handler never ran); an error
 * result throws. A second copy generated from a newer spec (add_note's id a string) is the client of a server whose
 * output no longer matches: its check on return refuses the output, naming the tool and the field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  StreamableHTTPClientTransport,
  type CallToolResult,
  type GetPromptResult,
  type JSONRPCMessage,
  type ReadResourceResult,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';

const fixture = path.join(repoRoot, 'test/fixtures/e2e-client');
const server = scratchCopy(fixture, 'e2e-client');
// The same server's spec a release later: add_note's id became a string. Its client expects what this server does
// not send.
const newer = scratchCopy(fixture, 'e2e-client-newer');

beforeAll(() => {
  const spec = path.join(newer.dir, 'toolspec.yaml');
  const text = fs.readFileSync(spec, 'utf8');
  fs.writeFileSync(spec, text.replace('id: { type: integer }', 'id: { type: string }'));
  expect(fs.readFileSync(spec, 'utf8')).not.toBe(text);
  // Its handler, of that release (only its client is used here).
  const handler = path.join(newer.dir, 'src/handlers/add_note.ts');
  fs.writeFileSync(
    handler,
    fs.readFileSync(handler, 'utf8').replace('return { id, text, tags }', 'return { id: String(id), text, tags }'),
  );
  // (Lint warnings on stderr: note_ids's array output is wrapped for 2025 clients, which is the point.)
  generateAndCompile(server.dir, { quiet: false });
  generateAndCompile(newer.dir, { quiet: false });
}, 180_000);
afterAll(() => {
  server.cleanup();
  newer.cleanup();
});

type Era = 'modern' | 'legacy';
const MODERN = '2026-07-28';

interface Note {
  id: number;
  text: string;
  tags: string[];
}

/** What the test uses of a compiled client.js (its types are the generated ones; here they are written out). */
interface NotesClient {
  tools: {
    add_note(input: { text: string; tags?: string[]; [k: string]: unknown }): Promise<Note>;
    note_ids(): Promise<number[]>;
    remove_note(input: { id: number }): Promise<CallToolResult>;
    ping(): Promise<CallToolResult>;
  };
  prompts: { summarise(args: { topic: string; style?: string }): Promise<GetPromptResult> };
  resources: {
    index(): Promise<ReadResourceResult>;
    note(variables: { id: string; version?: string }): Promise<ReadResourceResult>;
  };
  client: { getProtocolEra(): string | undefined; getNegotiatedProtocolVersion(): string | undefined };
  close(): Promise<void>;
}
interface ClientModule {
  connectNotes(transport: Transport, options?: Record<string, unknown>): Promise<NotesClient>;
  ToolInputError: abstract new (...args: never[]) => Error & { tool: string; path: string };
  ToolOutputError: abstract new (...args: never[]) => Error & { tool: string; path: string; value: unknown };
  ToolResultError: abstract new (...args: never[]) => Error & { tool: string; result: CallToolResult };
}

const clientOf = (dir: string) =>
  import(pathToFileURL(path.join(dir, 'dist/generated/client.js')).href) as Promise<ClientModule>;

/** The transport, with every message the client sends through it kept. */
function recorded<T extends Transport>(transport: T): { transport: T; sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  return { transport, sent };
}

const negotiation = (era: Era) => ({
  versionNegotiation: era === 'modern' ? { mode: { pin: MODERN } } : { mode: 'legacy' },
});

const toolCalls = (sent: JSONRPCMessage[]) =>
  sent.flatMap((m) => ('method' in m && m.method === 'tools/call' ? [m.params as { name: string }] : []));

const textOf = (r: ReadResourceResult) => r.contents.map((c) => ('text' in c ? c.text : '')).join('');

/** What every transport shows on both eras. `connect` makes a connection of the given project's client. */
function suite(era: Era, connect: (dir: string) => Promise<{ notes: NotesClient; sent: JSONRPCMessage[] }>) {
  let notes: NotesClient;
  let sent: JSONRPCMessage[];
  let mod: ClientModule;
  beforeAll(async () => {
    mod = await clientOf(server.dir);
    ({ notes, sent } = await connect(server.dir));
  });
  afterAll(async () => notes?.close());

  it(`connects on the ${era} era`, () => {
    expect(notes.client.getProtocolEra()).toBe(era);
    if (era === 'modern') expect(notes.client.getNegotiatedProtocolVersion()).toBe(MODERN);
  });

  it('calls a tool and resolves to its typed structured output (defaults applied by the server)', async () => {
    const note = await notes.tools.add_note({ text: 'Buy milk' });
    expect(note).toEqual({ id: expect.any(Number), text: 'Buy milk', tags: [] });
    // An array output: as it is on 2026-07-28, unwrapped from {result} on 2025.
    const ids = await notes.tools.note_ids();
    expect(Array.isArray(ids)).toBe(true);
    expect(ids).toContain(note.id);
    // A tool without an outputSchema: the CallToolResult.
    expect((await notes.tools.ping()).content).toEqual([{ type: 'text', text: 'pong' }]);
  });

  it('gets a prompt and reads a resource and a template resource', async () => {
    const prompt = await notes.prompts.summarise({ topic: 'cooking', style: 'short' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarise my notes on cooking, short.' } },
    ]);
    const { id } = await notes.tools.add_note({ text: 'Call the plumber', tags: ['home'] });
    expect(textOf(await notes.resources.index()).split('\n')).toContain(String(id));
    const note = await notes.resources.note({ id: String(id), version: '2' });
    expect(note.contents).toEqual([
      { uri: `notes://${id}?version=2`, mimeType: 'text/plain', text: 'Call the plumber (version 2)' },
    ]);
  });

  it('refuses bad arguments before sending: the server never sees them', async () => {
    const before = await notes.tools.note_ids();
    const calls = toolCalls(sent).length;
    const empty = await notes.tools.add_note({ text: '' }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(mod.ToolInputError);
    expect(empty).toMatchObject({ tool: 'add_note', path: 'text' });
    expect((empty as Error).message).toBe(
      'Invalid arguments for tool "add_note" (not sent): text: must NOT have fewer than 1 characters',
    );
    const extra = await notes.tools.add_note({ text: 'x', colour: 'red' }).catch((e: unknown) => e);
    expect(extra).toMatchObject({ tool: 'add_note', path: 'colour' });
    // Nothing went out for either, and no note was added.
    expect(toolCalls(sent)).toHaveLength(calls);
    expect(await notes.tools.note_ids()).toEqual(before);
  });

  it('throws an error result (isError) with its text and the result', async () => {
    const failed = await notes.tools.remove_note({ id: 999_999 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(mod.ToolResultError);
    expect((failed as Error).message).toBe('Tool "remove_note" failed: No note has the id 999999.');
    expect((failed as InstanceType<ClientModule['ToolResultError']>).result.isError).toBe(true);
  });

  it("refuses output that does not match its client's outputSchema, naming the tool and the field", async () => {
    const skewed = await clientOf(newer.dir);
    const { notes: other } = await connect(newer.dir);
    try {
      const wrong = await other.tools.add_note({ text: 'Water the plants' }).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(skewed.ToolOutputError);
      expect(wrong).toMatchObject({ tool: 'add_note', path: 'id' });
      expect((wrong as Error).message).toBe(
        'Tool "add_note" returned output that does not match its outputSchema: id: must be string',
      );
    } finally {
      await other.close();
    }
  });
}

describe('the typed client over stdio', () => {
  for (const era of ['modern', 'legacy'] as const) {
    describe(era, () =>
      suite(era, async (dir) => {
        const { connectNotes } = await clientOf(dir);
        const { transport, sent } = recorded(
          new StdioClientTransport({
            command: process.execPath,
            args: [path.join(server.dir, 'dist/generated/main.js')],
            cwd: server.dir,
            stderr: 'pipe',
          }),
        );
        return { notes: await connectNotes(transport, negotiation(era)), sent };
      }),
    );
  }
});

describe('the typed client over Streamable HTTP on 127.0.0.1', () => {
  let http: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const g = (await import(pathToFileURL(path.join(server.dir, 'dist/generated/index.js')).href)) as {
      serveHttp(h: unknown, o: Record<string, unknown>): Promise<typeof http>;
      handlers: unknown;
    };
    http = await g.serveHttp(g.handlers, { port: 0, onError: () => {} });
  });
  afterAll(async () => http?.close());
  for (const era of ['modern', 'legacy'] as const) {
    describe(era, () =>
      suite(era, async (dir) => {
        const { connectNotes } = await clientOf(dir);
        const { transport, sent } = recorded(new StreamableHTTPClientTransport(new URL(http.url)));
        return { notes: await connectNotes(transport, negotiation(era)), sent };
      }),
    );
  }
});
