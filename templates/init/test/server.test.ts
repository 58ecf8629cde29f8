import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, handlers } from '../src/generated/index.js';

describe('the MCP server', () => {
  const client = new Client({ name: 'test', version: '1.0.0' });

  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createServer(handlers).connect(serverSide);
    await client.connect(clientSide);
  });
  afterAll(() => client.close());

  it('lists its tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['greet']);
  });

  it('greets, with the default language', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('rejects bad arguments with a message naming them', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'xx' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('language: must be one of');
  });
});
