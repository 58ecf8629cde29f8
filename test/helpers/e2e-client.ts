/**
 * The SDK's real client as the e2e fixture's (test/fixtures/e2e) user: over Streamable HTTP, on 2026-07-28 or the
 * 2025 handshake, answering the `confirm` tool's two questions (sure: yes; why: outdated).
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';

/** The text of a tool result's content. */
export const toolText = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

export async function connectFixtureClient(url: string, era: 'modern' | 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    {
      capabilities: { elicitation: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request): Promise<ElicitResult> =>
    request.params.message.startsWith('Delete')
      ? { action: 'accept', content: { sure: true } }
      : { action: 'accept', content: { reason: 'outdated' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
