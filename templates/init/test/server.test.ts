import { Client, InMemoryTransport, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerFactory, createWebHandler, handlers, tools } from '../src/generated/index.js';
import { prompts, resources, resourceTemplates } from '../src/generated/primitives.js';

// The server as clients see it, on both protocol eras, held to what toolspec.yaml declares: these tests read the
// spec's generated lists, so they hold whatever tools you write. What each tool does is tested by the examples in
// toolspec.yaml (src/generated/examples.test.ts); add tests of your own here.

/** A client on protocol 2026-07-28, talking to the server's web handler in-process (no port). */
async function modernClient(): Promise<Client> {
  const endpoint = createWebHandler(handlers);
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => endpoint.fetch(new Request(url, init)),
    }),
  );
  return client;
}

/** A 2025 client (initialize handshake), linked in memory. */
async function legacyClient(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServerFactory(handlers)({ era: 'legacy' }).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const names = (list: readonly { name: string }[]) => list.map((x) => x.name);

for (const [era, connect] of [
  ['2026-07-28', modernClient],
  ['2025', legacyClient],
] as const) {
  describe(`the MCP server, protocol ${era}`, async () => {
    const client = await connect();
    afterAll(() => client.close());

    it('lists its tools', async () => {
      const listed = (await client.listTools()).tools;
      expect(names(listed)).toEqual(names(tools));
      expect(listed.map((t) => t.inputSchema)).toEqual(tools.map((t) => t.inputSchema));
    });

    it('lists its prompts and resources', async () => {
      const capabilities = client.getServerCapabilities() ?? {};
      if (prompts.length) expect(names((await client.listPrompts()).prompts)).toEqual(names(prompts));
      else expect(capabilities.prompts).toBeUndefined();
      if (resources.length || resourceTemplates.length) {
        expect(names((await client.listResources()).resources)).toEqual(names(resources));
        expect(names((await client.listResourceTemplates()).resourceTemplates)).toEqual(names(resourceTemplates));
      } else expect(capabilities.resources).toBeUndefined();
    });

    it('refuses a tool it does not have', async () => {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toBeInstanceOf(ProtocolError);
    });
  });
}
