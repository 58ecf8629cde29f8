/**
 * Prompts, resources, resource templates and completion, end to end: a notes server (test/fixtures/e2e-primitives)
 * generated with the built CLI, compiled, and talked to with the SDK's real v2 Client over stdio and Streamable
 * HTTP on 127.0.0.1, on both protocol eras. Hostile URIs land as "resource not found" or as inert data in the
 * handler's variables, never outside a variable's segment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadModel } from '../../src/compile.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e-primitives'), 'e2e-primitives');
const dist = path.join(project.dir, 'dist');

beforeAll(() => {
  generateAndCompile(project.dir, { quiet: false });
}, 120_000);
afterAll(() => project.cleanup());

type Era = 'modern' | 'legacy';
const MODERN = '2026-07-28';

function newClient(era: Era): Client {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    {
      capabilities: { elicitation: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (): Promise<ElicitResult> => ({
    action: 'accept',
    content: { focus: 'dates' },
  }));
  return client;
}

/** The error a request ends with: its JSON-RPC code, message and data. */
async function failure(p: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    const err = e as ProtocolError;
    return { code: err.code, message: err.message, data: err.data };
  }
  throw new Error('expected the request to fail');
}

const textOf = (r: { contents: ({ text?: string } | object)[] }) =>
  r.contents.map((c) => ('text' in c ? String(c.text) : '')).join('');

function suite(era: Era, connect: () => Promise<Client>, opts: { subscriptions: boolean }) {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => client?.close());

  it('lists the prompts, resources and templates exactly as the spec has them', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toEqual(['summarise_notes', 'ask_first']);
    expect(prompts.prompts[0]).toEqual({
      name: 'summarise_notes',
      title: 'Summarise notes',
      description: 'Summarise the notes on a topic.',
      arguments: [
        { name: 'topic', description: 'The topic', required: true },
        { name: 'style', description: 'Short or long' },
      ],
    });
    const resources = await client.listResources();
    expect(resources.resources).toEqual([
      { uri: 'notes://index', name: 'index', description: "Every note's id, one a line.", mimeType: 'text/plain' },
      {
        uri: 'notes://broken',
        name: 'broken',
        description: 'A resource whose handler always fails (the error the client gets).',
      },
    ]);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'notes://{id}{?version}',
      'files://{+path}',
    ]);
  });

  it('gets a prompt with its arguments, and refuses a missing, unknown or non-string one with -32602', async () => {
    const r = await client.getPrompt({ name: 'summarise_notes', arguments: { topic: 'cooking', style: 'short' } });
    expect(r.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarise my notes on cooking, short.' } },
    ]);
    expect(r.description).toBe('Summarise the notes on a topic.');
    const missing = await failure(client.getPrompt({ name: 'summarise_notes', arguments: {} }));
    expect(missing.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(missing.message).toContain('Missing required argument "topic"');
    const unknown = await failure(client.getPrompt({ name: 'nope' }));
    expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(unknown.message).toContain('Unknown prompt: "nope"');
    const extra = await failure(client.getPrompt({ name: 'summarise_notes', arguments: { topic: 'a', mood: 'b' } }));
    expect(extra.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(extra.message).toContain('Unknown argument "mood"');
  });

  it('asks the user from a prompt and completes it with the answer', async () => {
    const r = await client.getPrompt({ name: 'ask_first' });
    expect(r.messages[0]?.content).toEqual({ type: 'text', text: 'Focus on dates.' });
  });

  it('reads a fixed resource and a template resource, variables decoded and typed', async () => {
    const index = await client.readResource({ uri: 'notes://index' });
    expect(index.contents).toEqual([{ uri: 'notes://index', mimeType: 'text/plain', text: '1\n42' }]);
    const note = await client.readResource({ uri: 'notes://42' });
    expect(note.contents).toEqual([{ uri: 'notes://42', mimeType: 'text/markdown', text: '# The answer' }]);
    expect(textOf(await client.readResource({ uri: 'notes://42?version=3' }))).toBe('# The answer (version 3)');
    expect(JSON.parse(textOf(await client.readResource({ uri: 'files://a/b%20c/d.md' })))).toEqual({
      variables: { path: 'a/b c/d.md' },
      uri: 'files://a/b%20c/d.md',
    });
    if (era === 'modern') {
      // Cache hints on 2026-07-28: the lists are static (options.cache), a read's content is the handler's.
      const raw = (await client.listResources()) as unknown as Record<string, unknown>;
      expect(raw['ttlMs']).toBe(300_000);
      expect(raw['cacheScope']).toBe('public');
    }
  });

  it('answers an unknown resource, or a handler that has none, with -32602 and the URI (SEP-2164)', async () => {
    for (const uri of ['notes://missing', 'other://index', 'notes://7']) {
      const e = await failure(client.readResource({ uri }));
      expect(e.code, uri).toBe(ProtocolErrorCode.InvalidParams);
      expect(e.data, uri).toEqual({ uri });
    }
  });

  it('refuses a URI longer than 8,192 characters with -32602 before any template is tried', async () => {
    const longest = 'files://' + 'a/b'.repeat(2727) + 'xxx';
    expect(longest).toHaveLength(8_192);
    expect(JSON.parse(textOf(await client.readResource({ uri: longest }))).variables.path).toHaveLength(8_184);
    const e = await failure(client.readResource({ uri: longest + 'b' }));
    expect(e.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(e.message).toContain('uri is longer than 8192 characters');
  });

  it('answers wrong-shaped params with -32602 and one line naming the parameter, as tools/call does', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => client.getPrompt({ name: 5 } as never),
        'Invalid params for prompts/get: name: expected string, received number',
      ],
      [
        () => client.getPrompt({ name: 'summarise', arguments: { topic: 3 } } as never),
        'Invalid params for prompts/get: arguments.topic: expected string, received number',
      ],
      [
        () => client.readResource({ uri: 7 } as never),
        'Invalid params for resources/read: uri: expected string, received number',
      ],
      [
        () => client.complete({ ref: { type: 'ref/prompt', name: 'summarise' }, argument: { name: 'style' } } as never),
        'Invalid params for completion/complete: argument.value: expected string, received undefined',
      ],
    ];
    for (const [call, message] of cases) {
      const e = await failure(call());
      expect(e.code, message).toBe(ProtocolErrorCode.InvalidParams);
      expect(e.message).toContain(message);
      expect(e.message).not.toContain('\n');
    }
  });

  it('answers a handler that throws with -32603 naming the resource, its paths left out', async () => {
    const e = await failure(client.readResource({ uri: 'notes://broken' }));
    expect(e.code).toBe(ProtocolErrorCode.InternalError);
    expect(e.message).toMatch(/^Resource "broken" failed: disk on fire at <path>$/);
  });

  it('keeps a variable inside its segment: hostile URIs are not found, or reach the handler as plain data', async () => {
    for (const uri of [
      'notes://..',
      'notes://.',
      'notes://a%2Fb',
      'notes://1/2',
      'notes://%2E%2E',
      'notes://a%5Cb',
      'notes://a%00',
      'files://a/../etc/passwd',
      'files://a/%2E%2E/b',
      'files://a\\b',
      'files://a%0Ab',
      'files://a%ZZ',
      'files:///etc/passwd',
      'files://%2Fetc%2Fpasswd',
      'files://a//b',
      'files://%252e%252e/etc',
    ]) {
      const e = await failure(client.readResource({ uri }));
      expect(e.code, uri).toBe(ProtocolErrorCode.InvalidParams);
    }
    const inert = '${globalThis.__pwned=1}<script>`';
    const r = JSON.parse(textOf(await client.readResource({ uri: `files://${encodeURIComponent(inert)}` })));
    expect(r.variables).toEqual({ path: inert });
    expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
  });

  it('completes a prompt argument from its list and from its handler, and a template variable', async () => {
    const listed = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarise_notes' },
      argument: { name: 'topic', value: 'CO' },
    });
    expect(listed.completion).toEqual({ values: ['cooking', 'coding'], total: 2, hasMore: false });
    const handled = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarise_notes' },
      argument: { name: 'style', value: 'a' },
      context: { arguments: { topic: 'cooking' } },
    });
    expect(handled.completion.values).toEqual(['about cooking']);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{id}{?version}' },
      argument: { name: 'id', value: '4' },
    });
    expect(ids.completion.values).toEqual(['42']);
    const none = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{id}{?version}' },
      argument: { name: 'version', value: '' },
    });
    expect(none.completion.values).toEqual([]);
    const unknown = await failure(
      client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
    );
    expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams);
  });

  if (opts.subscriptions) {
    it('tells a subscribed 2025 client that a resource changed, and stops after it unsubscribes', async () => {
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
      });
      await client.subscribeResource({ uri: 'notes://42' });
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      await client.callTool({ name: 'touch_note', arguments: { id: '1' } });
      await expect.poll(() => updates).toEqual(['notes://42']);
      await client.unsubscribeResource({ uri: 'notes://42' });
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      // The tool's result comes after any notification it sent: none arrived.
      expect(updates).toEqual(['notes://42']);
      // A URI no resource or template answers to; one a template matches may be subscribed before it exists.
      const e = await failure(client.subscribeResource({ uri: 'other://x' }));
      expect(e.code).toBe(ProtocolErrorCode.InvalidParams);
    });

    it('holds at most 1,000 subscriptions a connection, and forgets them all when it closes', async () => {
      const own = await connect();
      try {
        for (let i = 0; i < 1000; i += 100)
          await Promise.all(Array.from({ length: 100 }, (_, j) => own.subscribeResource({ uri: `notes://${i + j}` })));
        const past = await failure(own.subscribeResource({ uri: 'notes://1000' }));
        expect(past.code).toBe(ProtocolErrorCode.InvalidParams);
        expect(past.message).toContain('subscribed to 1000 resources already');
        // Again for one it has: not a new subscription.
        await own.subscribeResource({ uri: 'notes://7' });
        // Over HTTP, ending the session (DELETE) is answered whatever it held (it threw on a 500 before).
        if (own.transport instanceof StreamableHTTPClientTransport) await own.transport.terminateSession();
      } finally {
        await own.close();
      }
    }, 60_000);
  }
}

describe('prompts and resources over stdio', () => {
  for (const era of ['modern', 'legacy'] as const) {
    describe(era, () =>
      suite(
        era,
        async () => {
          const client = newClient(era);
          await client.connect(
            new StdioClientTransport({
              command: process.execPath,
              args: [path.join(dist, 'generated/main.js')],
              cwd: project.dir,
              stderr: 'pipe',
            }),
          );
          return client;
        },
        { subscriptions: era === 'legacy' },
      ),
    );
  }
});

describe('subscriptions/listen over stdio', () => {
  it('tells a 2026-07-28 client listening to a resource that it changed, and nothing after it stops', async () => {
    const client = newClient('modern');
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(dist, 'generated/main.js')],
        cwd: project.dir,
        stderr: 'pipe',
      }),
    );
    try {
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
      });
      const sub = await client.listen({ resourceSubscriptions: ['notes://42'] });
      await client.callTool({ name: 'touch_note', arguments: { id: '1' } });
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      await expect.poll(() => updates).toEqual(['notes://42']);
      await sub.close();
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      // The tool's result comes after any notification it sent: none arrived once the subscription was closed.
      expect(updates).toEqual(['notes://42']);
    } finally {
      await client.close();
    }
  });
});

describe('prompts and resources over Streamable HTTP on 127.0.0.1', () => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const g = (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as {
      serveHttp(h: unknown, o: Record<string, unknown>): Promise<typeof server>;
      handlers: unknown;
    };
    server = await g.serveHttp(g.handlers, { port: 0, onError: () => {} });
  });
  afterAll(async () => server?.close());
  for (const era of ['modern', 'legacy'] as const) {
    describe(era, () =>
      suite(
        era,
        async () => {
          const client = newClient(era);
          await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
          return client;
        },
        { subscriptions: era === 'legacy' },
      ),
    );
  }

  it('tells a 2026-07-28 client listening to a resource (subscriptions/listen) that it changed', async () => {
    const client = newClient('modern');
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
      });
      const sub = await client.listen({ resourceSubscriptions: ['notes://42'] });
      await client.callTool({ name: 'touch_note', arguments: { id: '1' } });
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      await expect.poll(() => updates).toEqual(['notes://42']);
      await sub.close();
    } finally {
      await client.close();
    }
  });
});

describe('prompts and resources over stateless Streamable HTTP (--stateless)', () => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const g = (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as {
      serveHttp(h: unknown, o: Record<string, unknown>): Promise<typeof server>;
      handlers: unknown;
    };
    server = await g.serveHttp(g.handlers, { port: 0, stateless: true, onError: () => {} });
  });
  afterAll(async () => server?.close());
  const connect = async (era: Era) => {
    const client = newClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return client;
  };
  const STATELESS = 'this server serves 2025 clients without sessions (--stateless)';

  it('offers a 2025 client no subscriptions, and refuses resources/subscribe and unsubscribe saying why', async () => {
    const client = await connect('legacy');
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({});
      for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const) {
        const e = await failure(client.request({ method, params: { uri: 'notes://42' } }));
        expect(e.code).toBe(ProtocolErrorCode.MethodNotFound);
        expect(e.message).toContain(`${method} is not available: ${STATELESS}, so it has no stream`);
      }
    } finally {
      await client.close();
    }
  });

  it('ends a 2025 prompt that asks with -32603 saying why: no channel, not a missing capability', async () => {
    const client = await connect('legacy');
    try {
      const e = await failure(client.getPrompt({ name: 'ask_first' }));
      expect(e.code).toBe(ProtocolErrorCode.InternalError);
      expect(e.message).toContain(
        `Prompt "ask_first" needs an answer from the client (elicitation/create), but ${STATELESS}, so it cannot ` +
          'ask the client mid-call. A client on protocol 2026-07-28, or this server without --stateless, can.',
      );
    } finally {
      await client.close();
    }
  });

  it('still offers a 2026-07-28 client subscriptions, and tells it a resource changed', async () => {
    const client = await connect('modern');
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
      });
      const sub = await client.listen({ resourceSubscriptions: ['notes://42'] });
      await client.callTool({ name: 'touch_note', arguments: { id: '42' } });
      await expect.poll(() => updates).toEqual(['notes://42']);
      await sub.close();
      // And it is still asked in-band, as before.
      expect((await client.getPrompt({ name: 'ask_first' })).messages[0]?.content).toEqual({
        type: 'text',
        text: 'Focus on dates.',
      });
    } finally {
      await client.close();
    }
  });
});

describe('the cap on 2025 requests waiting for answers', () => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const g = (await import(pathToFileURL(path.join(dist, 'generated/index.js')).href)) as {
      serveHttp(h: unknown, o: Record<string, unknown>): Promise<typeof server>;
      handlers: unknown;
    };
    // A client that left may resume its stream (SECURITY.md): the window is short here, so a slot it held frees after
    // it; a session ended with DELETE frees its slot at once.
    server = await g.serveHttp(g.handlers, {
      port: 0,
      onError: () => {},
      legacyInput: { maxWaiting: 1 },
      resumption: { resumeWindowMs: 3000 },
    });
  });
  afterAll(async () => server?.close());

  /** A sessionful 2025 client whose user answers only when `answer()` is called; `asked` resolves on the question. */
  async function slowUser() {
    let answer!: () => void;
    let asked!: () => void;
    const gate = new Promise<void>((resolve) => (answer = resolve));
    const question = new Promise<void>((resolve) => (asked = resolve));
    const client = new Client({ name: 'slow', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', async (): Promise<ElicitResult> => {
      asked();
      await gate;
      return { action: 'accept', content: { focus: 'dates' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return { client, answer, asked: question };
  }

  it('counts prompts/get rounds that ask with tools/call: one waiting prompt refuses the next tool and prompt', async () => {
    const slow = await slowUser();
    const other = newClient('legacy');
    await other.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const waiting = slow.client.getPrompt({ name: 'ask_first' });
      await slow.asked;
      const tool = (await other.callTool({ name: 'pick_focus', arguments: {} })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(tool.isError).toBe(true);
      expect(tool.content[0]!.text).toContain('1 calls are waiting for answers already');
      const prompt = await failure(other.getPrompt({ name: 'ask_first' }));
      expect(prompt.code).toBe(ProtocolErrorCode.InternalError);
      expect(prompt.message).toContain(
        'Prompt "ask_first" needs an answer from the client, but 1 calls are waiting for answers already',
      );
      slow.answer();
      const done = await waiting;
      expect(done.messages[0]!.content).toEqual({ type: 'text', text: 'Focus on dates.' });
      // The answered prompt no longer waits: the other client's prompt may ask now.
      const after = await other.getPrompt({ name: 'ask_first' });
      expect(after.messages[0]!.content).toEqual({ type: 'text', text: 'Focus on dates.' });
    } finally {
      await Promise.all([slow.client.close(), other.close()]);
    }
  });

  it.each([
    ['leaves without answering (its stream closes) and does not resume it', 'close'],
    ['ends its session (DELETE)', 'delete'],
  ] as const)('frees the slot of a waiting call when its client %s', async (_what, how) => {
    const slow = await slowUser();
    const other = newClient('legacy');
    await other.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const waiting = slow.client.callTool({ name: 'pick_focus', arguments: {} });
      waiting.catch(() => undefined);
      await slow.asked;
      expect((await failure(other.getPrompt({ name: 'ask_first' }))).message).toContain('1 calls are waiting');
      if (how === 'delete') await (slow.client.transport as StreamableHTTPClientTransport).terminateSession();
      await slow.client.close();
      // Without the release, the slot would stay taken for the question's 5 minutes.
      await expect
        .poll(async () => (await other.getPrompt({ name: 'ask_first' }).catch(() => undefined))?.messages.length, {
          timeout: how === 'delete' ? 1500 : 10_000,
        })
        .toBe(1);
    } finally {
      await other.close();
    }
  });

  it('counts a waiting tools/call against a prompt that asks', async () => {
    const slow = await slowUser();
    const other = newClient('legacy');
    await other.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const waiting = slow.client.callTool({ name: 'pick_focus', arguments: {} });
      await slow.asked;
      const prompt = await failure(other.getPrompt({ name: 'ask_first' }));
      expect(prompt.message).toContain('1 calls are waiting for answers already');
      slow.answer();
      expect(((await waiting) as { content: { text: string }[] }).content[0]!.text).toBe('focus: dates');
      expect((await other.getPrompt({ name: 'ask_first' })).messages).toHaveLength(1);
    } finally {
      await Promise.all([slow.client.close(), other.close()]);
    }
  });
});

describe('toolspec import of a running server with prompts and resources', () => {
  it('writes its prompts, resources and templates into the spec, which loads back to the same lists', async () => {
    const r = runCli(
      ['import', '--from-command', `node ${path.join(dist, 'generated/main.js')}`, '--out', '-'],
      project.dir,
    );
    expect(r.code).toBe(0);
    const spec = parse(r.stdout) as Record<string, { name: string }[]>;
    expect(spec['prompts']!.map((p) => p.name)).toEqual(['summarise_notes', 'ask_first']);
    expect(spec['resources']!.map((p) => p.name)).toEqual(['index', 'broken']);
    expect(spec['resourceTemplates']!.map((p) => p.name)).toEqual(['note', 'file']);
    // The imported spec is valid, and lists the same prompts, resources and templates as the server.
    const dir = path.join(project.dir, 'imported');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'toolspec.yaml'), r.stdout);
    const again = loadModel('toolspec.yaml', { cwd: dir });
    expect(again.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const original = loadModel('toolspec.yaml', { cwd: project.dir });
    expect(again.model!.prompts.map((p) => p.definition)).toEqual(original.model!.prompts.map((p) => p.definition));
    expect(again.model!.resources.map((p) => p.definition)).toEqual(original.model!.resources.map((p) => p.definition));
  }, 60_000);
});
