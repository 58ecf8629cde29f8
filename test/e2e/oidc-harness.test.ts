/**
 * The OpenID provider harness (test/helpers/oidc.ts), proven: a real oidc-provider issues client-credentials JWT
 * access tokens for resource indicators, refuses what it must, publishes the keys they verify with, and the SDK v2
 * client's own OAuth flow works against it: 401, protected resource metadata, authorization server metadata, a
 * token for the `resource`, the call; and step-up on 403 insufficient_scope. The resource server here is the
 * SDK's own helpers (requireBearerAuth, oauthMetadataResponse, createMcpHandler, toNodeHandler) with a jose
 * verifier: what a generated server acting as a resource server will be measured against.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  oauthMetadataResponse,
  requireBearerAuth,
  requireScopes,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, decodeProtectedHeader, importJWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installOidcProvider, jwtVerifier, sdkOAuthClient, startProvider, type Provider } from '../helpers/oidc.js';

const READER = { id: 'reader', secret: 'reader-secret', scopes: ['notes.read'] };
const WRITER = { id: 'writer', secret: 'writer-secret', scopes: ['notes.read', 'notes.write'] };
const TTL = 120;

let as: Provider;
let rs: http.Server;
let origin: string;
/** Two resources on one origin: /mcp challenges for notes.read on its 401, /bare challenges with no scope. */
let MCP: string;
let BARE: string;

/** A notes server: `read` for anyone with a token, `write` only with notes.write (the SDK's per-tool challenge). */
function notesServer() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool('read', { description: 'Who is asking.' }, (ctx) => {
    const auth = ctx.http?.authInfo;
    return { content: [{ type: 'text', text: `${auth?.clientId}: ${auth?.scopes.join(' ')}` }] };
  });
  server.registerTool(
    'write',
    {
      description: 'Writes a note.',
      inputSchema: z.object({ text: z.string() }),
      scopeChallenge: requireScopes('notes.write'),
    },
    ({ text }) => ({ content: [{ type: 'text', text: `wrote ${text}` }] }),
  );
  return server;
}

/** The SDK's resource-server pieces for one resource URL, as a fetch handler; undefined for other paths. */
function resourceServer(resource: string, gateScopes: string[], oauthMetadata: OAuthMetadata) {
  const resourceServerUrl = new URL(resource);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceServerUrl);
  const metadata = { oauthMetadata, resourceServerUrl, scopesSupported: ['notes.read', 'notes.write'] };
  const gate = requireBearerAuth({
    verifier: jwtVerifier(as, resource),
    requiredScopes: gateScopes,
    resourceMetadataUrl,
    expectedResource: resourceServerUrl,
  });
  const mcp = createMcpHandler(() => notesServer());
  return async (request: Request): Promise<Response | undefined> => {
    const document = oauthMetadataResponse(request, metadata);
    if (document) return document;
    if (new URL(request.url).pathname !== resourceServerUrl.pathname) return undefined;
    const auth = await gate(request);
    return auth instanceof Response ? auth : mcp.fetch(request, { authInfo: auth });
  };
}

beforeAll(async () => {
  installOidcProvider();
  // The resource server's port first: its URLs are the resource indicators the provider is started with.
  let handle: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  const node = toNodeHandler({ fetch: (request) => handle(request) });
  rs = http.createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => rs.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(rs.address() as AddressInfo).port}`;
  MCP = `${origin}/mcp`;
  BARE = `${origin}/bare`;

  as = await startProvider({ resources: [MCP, BARE], clients: [READER, WRITER], accessTokenTtlSeconds: TTL });
  const oauthMetadata = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as OAuthMetadata;
  const servers = [resourceServer(MCP, ['notes.read'], oauthMetadata), resourceServer(BARE, [], oauthMetadata)];
  handle = async (request) => {
    for (const serve of servers) {
      const response = await serve(request);
      if (response) return response;
    }
    return new Response('not found', { status: 404 });
  };
}, 300_000);

afterAll(async () => {
  await as?.close();
  rs?.closeAllConnections();
  await new Promise((resolve) => rs?.close(resolve));
});

describe('the provider', () => {
  it('publishes its metadata (OpenID discovery and RFC 8414, one document) with the token endpoint and JWKS', async () => {
    const oidc = await fetch(`${as.issuer}/.well-known/openid-configuration`);
    expect(oidc.status).toBe(200);
    const document = await oidc.json();
    expect(document).toMatchObject({
      issuer: as.issuer,
      token_endpoint: `${as.issuer}/token`,
      jwks_uri: `${as.issuer}/jwks`,
      grant_types_supported: expect.arrayContaining(['client_credentials']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic']),
      scopes_supported: expect.arrayContaining(['notes.read', 'notes.write']),
    });
    expect(as.jwksUri).toBe(`${as.issuer}/jwks`);
    // The RFC 8414 route, which the SDK client asks first, serves the same document.
    expect(await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()).toEqual(document);

    const jwks = (await (await fetch(as.jwksUri)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([
      { kty: 'RSA', kid: as.kid, alg: 'RS256', use: 'sig', e: as.privateJwk.e, n: as.privateJwk.n },
    ]);
  });

  it('issues each client a JWT for the resource with its scopes, verified against the published keys', async () => {
    const jwks = createRemoteJWKSet(new URL(as.jwksUri));
    for (const [client, scope] of [
      [READER, 'notes.read'],
      [WRITER, 'notes.read notes.write'],
    ] as const) {
      const token = await as.token(client.id, { scope, resource: MCP });
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: as.kid, typ: 'at+jwt' });
      const { payload } = await jwtVerify(token, jwks, { issuer: as.issuer, audience: MCP, algorithms: ['RS256'] });
      expect(payload).toEqual({
        iss: as.issuer,
        aud: MCP,
        sub: client.id, // client credentials: the client's own id
        client_id: client.id,
        scope,
        jti: expect.any(String),
        iat: expect.any(Number),
        exp: payload.iat! + TTL,
      });
    }
    // Narrower than allowed is fine.
    const { payload } = await jwtVerify(await as.token(WRITER.id, { scope: 'notes.write', resource: BARE }), jwks, {
      audience: BARE,
    });
    expect(payload['scope']).toBe('notes.write');
  });

  it('refuses a scope the client was not given, a resource it does not know, a wrong secret', async () => {
    await expect(as.token(READER.id, { scope: 'notes.read notes.write', resource: MCP })).rejects.toThrow(
      /400: invalid_scope \(requested scope is not allowed\)/,
    );
    await expect(as.token(READER.id, { scope: 'notes.read', resource: 'http://127.0.0.1:1/other' })).rejects.toThrow(
      /400: invalid_target/,
    );
    const bad = await fetch(as.tokenEndpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('reader:wrong').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'notes.read', resource: MCP }),
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('without a resource parameter: the one resource when there is one, otherwise an opaque token', async () => {
    const ask = (provider: Provider, scope: string) =>
      fetch(provider.tokenEndpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${WRITER.id}:${WRITER.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const single = await startProvider({ resources: [MCP], clients: [WRITER] });
    try {
      const { access_token, scope } = await ask(single, 'notes.write');
      expect(scope).toBe('notes.write');
      const { payload } = await jwtVerify(access_token!, createRemoteJWKSet(new URL(single.jwksUri)), {
        issuer: single.issuer,
        audience: MCP,
      });
      expect(payload['scope']).toBe('notes.write');
    } finally {
      await single.close();
    }
    // Two resources, none chosen: an opaque token (for the provider's introspection, which is off), not a JWT.
    const { access_token, scope } = await ask(as, 'notes.write');
    expect(scope).toBe('notes.write');
    expect(access_token).toMatch(/^[\w-]{43}$/);
  });

  it('hands out its signing key: forged tokens verify when right and fail on wrong iss, aud, exp', async () => {
    const key = await importJWK(as.privateJwk as Parameters<typeof importJWK>[0], 'RS256');
    const forge = (claims: Record<string, unknown>, exp = '1m') =>
      new SignJWT({ client_id: 'writer', scope: 'notes.read', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: as.kid, typ: 'at+jwt' })
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(key);
    const verifier = jwtVerifier(as, MCP);
    expect(await verifier.verifyAccessToken(await forge({ iss: as.issuer, aud: MCP }))).toMatchObject({
      clientId: 'writer',
      scopes: ['notes.read'],
    });
    await expect(verifier.verifyAccessToken(await forge({ iss: 'http://127.0.0.1:1', aud: MCP }))).rejects.toThrow(
      /"iss" claim/,
    );
    await expect(verifier.verifyAccessToken(await forge({ iss: as.issuer, aud: BARE }))).rejects.toThrow(/"aud" claim/);
    await expect(verifier.verifyAccessToken(await forge({ iss: as.issuer, aud: MCP }, '-1m'))).rejects.toThrow(
      /"exp" claim/,
    );
  });
});

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe.each(['legacy', 'modern'] as const)('the SDK client (%s era), client credentials', (era) => {
  it('starts with no token: 401, resource metadata, provider metadata, a token for the resource, the call', async () => {
    const { client, requests } = await sdkOAuthClient(MCP, WRITER, { issuer: as.issuer, era });
    try {
      expect(text(await client.callTool({ name: 'read', arguments: {} }))).toBe('writer: notes.read');
      const first = requests.findIndex((r) => r.status === 401);
      expect(requests.slice(first, first + 5)).toEqual([
        {
          method: 'POST',
          url: MCP,
          status: 401,
          challenge: `Bearer error="invalid_token", error_description="Missing Authorization header", scope="notes.read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
        { method: 'GET', url: `${origin}/.well-known/oauth-protected-resource/mcp`, status: 200 },
        { method: 'GET', url: `${as.issuer}/.well-known/oauth-authorization-server`, status: 200 },
        {
          method: 'POST',
          url: `${as.issuer}/token`,
          status: 200,
          // The 401's scope, not the metadata's scopes_supported; the resource is the metadata's `resource`.
          form: new URLSearchParams({
            grant_type: 'client_credentials',
            scope: 'notes.read',
            resource: MCP,
          }).toString(),
          authorization: 'Basic',
        },
        { method: 'POST', url: MCP, status: 200, authorization: 'Bearer' },
      ]);
      // One 401, one token: every other request carries the token.
      expect(requests.filter((r) => r.status === 401 || r.url.endsWith('/token'))).toHaveLength(2);
      expect(requests.slice(first + 4).every((r) => r.authorization === 'Bearer')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('steps up on 403 insufficient_scope: a new token with the union of the scopes, the call retried', async () => {
    const { client, requests } = await sdkOAuthClient(MCP, WRITER, { issuer: as.issuer, era });
    try {
      await client.callTool({ name: 'read', arguments: {} });
      const before = requests.length;
      expect(text(await client.callTool({ name: 'write', arguments: { text: 'hi' } }))).toBe('wrote hi');
      expect(requests.slice(before)).toEqual([
        {
          method: 'POST',
          url: MCP,
          status: 403,
          authorization: 'Bearer',
          challenge: `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="notes.write", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        },
        // Discovery again (the ClientCredentialsProvider keeps no discovery state), then the token.
        { method: 'GET', url: `${origin}/.well-known/oauth-protected-resource/mcp`, status: 200 },
        { method: 'GET', url: `${as.issuer}/.well-known/oauth-authorization-server`, status: 200 },
        {
          method: 'POST',
          url: `${as.issuer}/token`,
          status: 200,
          form: new URLSearchParams({
            grant_type: 'client_credentials',
            scope: 'notes.read notes.write',
            resource: MCP,
          }).toString(),
          authorization: 'Basic',
        },
        { method: 'POST', url: MCP, status: 200, authorization: 'Bearer' },
      ]);
      expect(text(await client.callTool({ name: 'read', arguments: {} }))).toBe('writer: notes.read notes.write');
    } finally {
      await client.close();
    }
  });

  it('a client the provider will not give the scope: step-up is refused, the error is the provider’s', async () => {
    const { client, requests } = await sdkOAuthClient(MCP, READER, { issuer: as.issuer, era });
    try {
      expect(text(await client.callTool({ name: 'read', arguments: {} }))).toBe('reader: notes.read');
      await expect(client.callTool({ name: 'write', arguments: { text: 'hi' } })).rejects.toMatchObject({
        name: 'OAuthError',
        code: 'invalid_scope',
        message: 'requested scope is not allowed',
      });
      expect(requests.at(-1)).toMatchObject({ url: `${as.issuer}/token`, status: 400 });
    } finally {
      await client.close();
    }
  });

  it('with onInsufficientScope "throw", a 403 is an InsufficientScopeError carrying the challenge', async () => {
    const { client } = await sdkOAuthClient(MCP, WRITER, { issuer: as.issuer, era, onInsufficientScope: 'throw' });
    try {
      await client.callTool({ name: 'read', arguments: {} });
      await expect(client.callTool({ name: 'write', arguments: { text: 'hi' } })).rejects.toMatchObject({
        name: 'InsufficientScopeError',
        requiredScope: 'notes.write',
      });
    } finally {
      await client.close();
    }
  });

  it('a 401 without scope: the client asks for all of scopes_supported, which a narrower client cannot get', async () => {
    // The writer is given everything the metadata lists…
    const writer = await sdkOAuthClient(BARE, { ...WRITER, scope: 'notes.read' }, { issuer: as.issuer, era });
    try {
      expect(text(await writer.client.callTool({ name: 'read', arguments: {} }))).toBe(
        'writer: notes.read notes.write',
      );
      expect(writer.requests.find((r) => r.form)?.form).toContain('scope=notes.read+notes.write&');
    } finally {
      await writer.client.close();
    }
    // …the reader is refused before its first call: its own `scope` is only the last resort.
    await expect(
      sdkOAuthClient(BARE, { ...READER, scope: 'notes.read' }, { issuer: as.issuer, era }),
    ).rejects.toMatchObject({ name: 'OAuthError', code: 'invalid_scope' });
  });
});
