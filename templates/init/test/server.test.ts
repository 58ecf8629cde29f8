import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerFactory, createWebHandler, handlers } from '../src/generated/index.js';

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

for (const [era, connect] of [
  ['2026-07-28', modernClient],
  ['2025', legacyClient],
] as const) {
  describe(`the MCP server, protocol ${era}`, async () => {
    const client = await connect();
    afterAll(() => client.close());

    it('lists its tools', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['greet']);
    });

    it('greets, with the default language', async () => {
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
    });

    it('gets its prompt, with the arguments in the message', async () => {
      const { messages } = await client.getPrompt({ name: 'introduce', arguments: { name: 'Ada', language: 'fr' } });
      expect(JSON.stringify(messages)).toContain('Introduce Ada');
    });

    it('reads its resource', async () => {
      const { contents } = await client.readResource({ uri: 'greetings://languages' });
      expect(contents).toEqual([{ uri: 'greetings://languages', mimeType: 'text/plain', text: 'en\nfr\nde' }]);
    });

    it('rejects bad arguments with a message naming them', async () => {
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'xx' } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('language: must be one of');
    });
  });
}
