/**
 * The generated server as an OAuth 2.1 resource server, end to end: the auth fixture (test/fixtures/auth) served
 * over real HTTP on 127.0.0.1 behind a real OpenID provider (oidc-provider, test/helpers/oidc.ts) that issues tokens
 * to two clients: `reader` (notes.read) and `writer` (notes.read notes.write). The SDK v2 client's own OAuth flow
 * (401 → protected resource metadata → authorization server metadata → token with `resource`) on both eras; step-up
 * on 403; and every kind of bad token, each with the status and challenge the protocol's authorization section
 * requires and no handler reached. Then the Node entry point with its TOOLSPEC_AUTH_* environment, and stdio.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { freePort } from '../helpers/serve.js';
import { sdkOAuthClient, startProvider, type Provider } from '../helpers/oidc.js';
import {
  generateAndCompile,
  importGenerated,
  scratchCopy,
  type GeneratedIndex,
  type GeneratedServer,
} from '../helpers/project.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/auth'), 'e2e-auth');
const dist = path.join(project.dir, 'dist');
const OTHER_RESOURCE = 'https://other.example/mcp';
/** The server that introspects (RFC 7662): its tokens are opaque. */
const INTROSPECTOR = { id: 'mcp-server', secret: 'mcp-server-secret' };

type Generated = GeneratedIndex;

let provider: Provider;
let server: GeneratedServer;
let resource: string;
let opaqueServer: GeneratedServer;
let opaqueResource: string;
let calls: string[];

beforeAll(async () => {
  generateAndCompile(project.dir);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const opaquePort = await freePort();
  opaqueResource = `http://127.0.0.1:${opaquePort}/mcp`;
  provider = await startProvider({
    resources: [resource, OTHER_RESOURCE, opaqueResource],
    opaqueResources: [opaqueResource],
    clients: [
      { id: 'reader', secret: 'reader-secret', scopes: ['notes.read'] },
      { id: 'writer', secret: 'writer-secret', scopes: ['notes.read', 'notes.write'] },
      { ...INTROSPECTOR, scopes: [] },
    ],
  });
  const g = await importGenerated<Generated>(dist);
  server = await g.serveHttp(g.handlers, { port, auth: { issuer: provider.issuer, resource } });
  opaqueServer = await g.serveHttp(g.handlers, {
    port: opaquePort,
    auth: {
      issuer: provider.issuer,
      resource: opaqueResource,
      introspection: provider.introspectionEndpoint,
      clientId: INTROSPECTOR.id,
      clientSecret: INTROSPECTOR.secret,
    },
  });
  ({ calls } = (await import(pathToFileURL(path.join(dist, 'handlers/calls.js')).href)) as { calls: string[] });
}, 180_000);
afterAll(async () => {
  await server?.close();
  await opaqueServer?.close();
  await provider?.close();
  project.cleanup();
});

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const metadataUrl = () => new URL('/.well-known/oauth-protected-resource/mcp', resource).href;

/** A raw 2025 tools/call with this Authorization header (none: no header). */
function post(authorization: string | undefined, body: unknown = call('create_note', { title: 'x' }), to = resource) {
  return fetch(to, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify(body),
  });
}
const call = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A token signed with the provider's own key: claims a test chooses (over right ones), on the key the server trusts. */
async function forged(claims: JWTPayload): Promise<string> {
  const key = await importJWK(provider.privateJwk as Parameters<typeof importJWK>[0], 'RS256');
  const now = Math.floor(Date.now() / 1000);
  const right = { iss: provider.issuer, aud: resource, sub: 'writer', client_id: 'writer', iat: now, exp: now + 300 };
  return new SignJWT({ ...right, scope: 'notes.read notes.write', ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: provider.kid })
    .sign(key);
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};

describe('discovery', () => {
  it('serves the protected resource metadata (RFC 9728) at the well-known path of the resource', async () => {
    const res = await fetch(metadataUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      resource,
      authorization_servers: [provider.issuer],
      scopes_supported: ['notes.read'],
      bearer_methods_supported: ['header'],
      resource_name: 'notes',
    });
  });

  it('answers a request without a token 401, saying where the metadata is and what scope to ask for', async () => {
    const before = calls.length;
    const res = await post(undefined);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="notes.read"`);
    expect(calls.length).toBe(before);
  });
});

describe.each(['legacy', 'modern'] as const)('the SDK client, %s era, with client credentials', (era) => {
  it('obtains a token by itself and calls; the handler sees who calls (ctx.caller)', async () => {
    const { client, requests } = await sdkOAuthClient(
      resource,
      { id: 'writer', secret: 'writer-secret' },
      { issuer: provider.issuer, era },
    );
    try {
      expect(text(await client.callTool({ name: 'create_note', arguments: { title: `by-${era}` } }))).toBe(
        `created by-${era}`,
      );
      // create_note needed notes.write: the client stepped up, and the token now carries both.
      expect(JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })))).toEqual({
        subject: 'writer',
        clientId: 'writer',
        scopes: ['notes.read', 'notes.write'],
      });
      // It asked first for the scope the 401 named, for this resource.
      const token = requests.find((r) => r.form?.includes('grant_type=client_credentials'));
      expect(new URLSearchParams(token!.form).get('resource')).toBe(resource);
      expect(new URLSearchParams(token!.form).get('scope')).toBe('notes.read');
    } finally {
      await client.close();
    }
  });

  it('steps up on 403 insufficient_scope: asks again with the union of scopes, and the call succeeds', async () => {
    const { client, requests } = await sdkOAuthClient(
      resource,
      { id: 'writer', secret: 'writer-secret' },
      { issuer: provider.issuer, era },
    );
    try {
      // The first token holds notes.read (what the 401 named): create_note needs notes.write.
      expect(text(await client.callTool({ name: 'list_notes', arguments: {} }))).not.toBe('');
      const before = calls.filter((c) => c === 'create_note').length;
      expect(text(await client.callTool({ name: 'create_note', arguments: { title: `up-${era}` } }))).toBe(
        `created up-${era}`,
      );
      expect(calls.filter((c) => c === 'create_note').length).toBe(before + 1);
      const refused = requests.find((r) => r.status === 403);
      expect(refused?.challenge).toBe(
        `Bearer error="insufficient_scope", error_description="tools/call create_note needs more scopes", ` +
          `scope="notes.write", resource_metadata="${metadataUrl()}"`,
      );
      const forms = requests.flatMap((r) => (r.form ? [new URLSearchParams(r.form).get('scope')] : []));
      expect(forms).toEqual(['notes.read', 'notes.read notes.write']);
    } finally {
      await client.close();
    }
  });

  it('shows the reader only the tools its scopes can call (auth.filterList), and refuses the others', async () => {
    const { client } = await sdkOAuthClient(
      resource,
      { id: 'reader', secret: 'reader-secret' },
      { issuer: provider.issuer, era, onInsufficientScope: 'throw' },
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_notes', 'whoami']);
      const before = calls.length;
      await expect(client.callTool({ name: 'create_note', arguments: { title: 'no' } })).rejects.toThrow(
        /notes\.write/,
      );
      await expect(client.getPrompt({ name: 'draft' })).rejects.toThrow(/notes\.write/);
      expect(calls.length).toBe(before);
      // A resource needs auth.scopes, which the reader has.
      await expect(client.readResource({ uri: 'note://by-legacy' })).resolves.toBeDefined();
    } finally {
      await client.close();
    }
  });
});

describe('tokens that must not pass: 401 invalid_token, and no handler reached', () => {
  const cases: [string, () => Promise<string>, RegExp][] = [
    ['expired', () => forged({ exp: Math.floor(Date.now() / 1000) - 120 }), /has expired/],
    ['for another audience', () => forged({ aud: 'https://elsewhere.example/mcp' }), /another resource/],
    [
      'for another resource, issued by the provider',
      () => provider.token('writer', { scope: 'notes.write', resource: OTHER_RESOURCE }),
      /another resource/,
    ],
    ['from another issuer', () => forged({ iss: 'https://evil.example' }), /another authorization server/],
    [
      'unsigned (alg: none)',
      async () => {
        const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        const claims = { iss: provider.issuer, aud: resource, sub: 'writer', scope: 'notes.write', exp: 9999999999 };
        return `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
      },
      /algorithm is not accepted/,
    ],
    [
      'signed with a key not in the JWKS',
      async () => {
        const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ scope: 'notes.write', client_id: 'writer' })
          .setProtectedHeader({ alg: 'RS256', kid: 'not-published' })
          .setIssuer(provider.issuer)
          .setAudience(resource)
          .setExpirationTime(now + 300)
          .sign(privateKey);
      },
      /a key the issuer does not publish/,
    ],
    [
      'signed with another key under the published kid',
      async () => {
        const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ scope: 'notes.write', client_id: 'writer' })
          .setProtectedHeader({ alg: 'RS256', kid: provider.kid })
          .setIssuer(provider.issuer)
          .setAudience(resource)
          .setExpirationTime(now + 300)
          .sign(privateKey);
      },
      /signature does not verify/,
    ],
    ['not a JWT', async () => 'opaque-token-value', /not a JWT/],
  ];
  it.each(cases)('%s', async (_name, token, why) => {
    const before = calls.length;
    const res = await post(`Bearer ${await token()}`);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"/);
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(challenge).toMatch(why);
    expect(calls.length).toBe(before);
  });

  it('accepts the same forged claims when they are right (the cases above fail for their reason alone)', async () => {
    const res = await post(`Bearer ${await forged({})}`, INITIALIZE);
    expect(res.status).toBe(200);
  });

  it('answers a token without the scope 403 insufficient_scope naming it, for tools, prompts and batches', async () => {
    const reader = await provider.token('reader', { scope: 'notes.read', resource });
    const before = calls.length;
    const res = await post(`Bearer ${reader}`);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="notes.write"');
    const prompt = { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'draft' } };
    expect((await post(`Bearer ${reader}`, prompt)).status).toBe(403);
    // A request that needs notes.write hidden in a batch with one that does not: the batch is refused whole.
    expect(
      (await post(`Bearer ${reader}`, [call('list_notes', {}), { ...call('create_note', { title: 'b' }), id: 3 }]))
        .status,
    ).toBe(403);
    expect(calls.length).toBe(before);
  });

  it("keeps a 2025 session its opener's: another client's valid token on it finds no session", async () => {
    const writer = await provider.token('writer', { scope: 'notes.read notes.write', resource });
    const reader = await provider.token('reader', { scope: 'notes.read', resource });
    const opened = await post(`Bearer ${writer}`, INITIALIZE);
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const on = (token: string) =>
      fetch(resource, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'mcp-session-id': session,
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(call('list_notes', {})),
      });
    expect((await on(reader)).status).toBe(404);
    expect((await on(writer)).status).toBe(200);
  });

  it('refuses an oversized Authorization header before parsing it', async () => {
    const res = await post(`Bearer ${'a'.repeat(10_000)}`);
    expect(res.status).toBe(401);
  });
});

describe('opaque tokens, by introspection (RFC 7662)', () => {
  it('accepts an active token for this resource, with its scopes, and still refuses what they do not cover', async () => {
    const reader = await provider.token('reader', { scope: 'notes.read', resource: opaqueResource });
    expect(reader.split('.')).toHaveLength(1);
    expect((await post(`Bearer ${reader}`, INITIALIZE, opaqueResource)).status).toBe(200);
    const before = calls.length;
    const refused = await post(`Bearer ${reader}`, call('create_note', { title: 'o' }), opaqueResource);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="notes.write"');
    expect(calls.length).toBe(before);
  });

  it('refuses a token the provider does not know, and an opaque token for another resource', async () => {
    const unknown = await post('Bearer not-a-token-the-provider-issued', INITIALIZE, opaqueResource);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('the token is not active');
    // Opaque, but for the first server: this one must not take it (its audience is another resource).
    const other = await provider.token('writer', { scope: 'notes.read', resource: OTHER_RESOURCE });
    expect(other.split('.')).toHaveLength(3); // OTHER_RESOURCE's are JWTs: checked by signature and audience
    expect((await post(`Bearer ${other}`, INITIALIZE, opaqueResource)).status).toBe(401);
  });
});

describe('keys out of reach: 503 with Retry-After, never a token taken unchecked', () => {
  it.each([
    [
      'a JWKS larger than 256 KiB',
      (res: http.ServerResponse) => res.end(JSON.stringify({ keys: [], pad: 'x'.repeat(300_000) })),
    ],
    ['a JWKS that redirects', (res: http.ServerResponse) => res.writeHead(302, { location: provider.jwksUri }).end()],
    ['a JWKS endpoint that fails', (res: http.ServerResponse) => res.writeHead(500).end()],
  ])('%s', async (_name, answer) => {
    const keys = http.createServer((_req, res) => answer(res));
    await new Promise<void>((r) => keys.listen(0, '127.0.0.1', r));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const g = await importGenerated<Generated>(dist);
    const jwksUri = `http://127.0.0.1:${(keys.address() as net.AddressInfo).port}/jwks`;
    const broken = await g.serveHttp(g.handlers, { port, auth: { issuer: provider.issuer, resource: url, jwksUri } });
    try {
      const before = calls.length;
      const res = await post(`Bearer ${await forged({ aud: url })}`, INITIALIZE, url);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(calls.length).toBe(before);
    } finally {
      await broken.close();
      keys.closeAllConnections();
      await new Promise<void>((r) => keys.close(() => r()));
    }
  });
});

describe('stateless (--stateless): the body the gate read reaches the SDK', () => {
  it('serves 2025 and 2026-07-28 clients with a token, and still refuses what the token lacks', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const g = await importGenerated(dist);
    const stateless = await g.serveHttp(g.handlers, {
      port,
      stateless: true,
      auth: { issuer: provider.issuer, resource: url },
    });
    try {
      const writer = await forged({ aud: url });
      const answer = await post(`Bearer ${writer}`, call('create_note', { title: 'stateless' }), url);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('created stateless');
      const reader = await forged({ aud: url, scope: 'notes.read' });
      expect((await post(`Bearer ${reader}`, call('create_note', { title: 'no' }), url)).status).toBe(403);
      // 2026-07-28: the same body, read by the gate, reaches the SDK's stateless handler.
      const modern = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'create_note',
          authorization: `Bearer ${writer}`,
        },
        body: JSON.stringify({
          ...call('create_note', { title: 'modern' }),
          params: {
            name: 'create_note',
            arguments: { title: 'modern' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      expect(modern.status).toBe(200);
      expect(await modern.text()).toContain('created modern');
    } finally {
      await stateless.close();
    }
  });
});

describe('the Node entry point', () => {
  const main = () => path.join(dist, 'generated/main.js');

  it('takes the issuer and resource from TOOLSPEC_AUTH_* and serves with them', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const child = spawn(process.execPath, [main(), '--http', '--port', String(port)], {
      env: { ...process.env, TOOLSPEC_AUTH_ISSUER: provider.issuer, TOOLSPEC_AUTH_RESOURCE: url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => (d.toString().includes('listening on') ? resolve() : undefined));
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const meta = (await (
        await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
      ).json()) as {
        resource: string;
      };
      expect(meta.resource).toBe(url);
      const writer = await provider.token('writer', { scope: 'notes.read notes.write', resource: OTHER_RESOURCE });
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${writer}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(401);
    } finally {
      child.kill();
    }
  });

  it('exits 2 with one line when TOOLSPEC_AUTH_ISSUER is plain http off loopback', () => {
    const r = spawnSync(process.execPath, [main(), '--http', '--port', '0'], {
      env: { ...process.env, TOOLSPEC_AUTH_ISSUER: 'http://auth.example.com' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'error: auth issuer "http://auth.example.com" must be https, not http: tokens and keys travel over it: http ' +
        'is accepted only on loopback (localhost, 127.0.0.1, [::1])\n',
    );
  });

  it('serves stdio without tokens, as the protocol says (the environment is the authority there)', async () => {
    const client = new Client({ name: 'stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [main()] }));
    try {
      expect(text(await client.callTool({ name: 'create_note', arguments: { title: 'local' } }))).toBe('created local');
      expect((await client.listTools()).tools).toHaveLength(3);
    } finally {
      await client.close();
    }
  });
});
