/**
 * A real OpenID provider for the e2e tests of servers acting as OAuth 2.1 resource servers: `oidc-provider` (panva's,
 * OpenID certified), installed into test/e2e/oauth/node_modules, on 127.0.0.1 with a port of its own. It issues
 * client-credentials access tokens as RFC 9068 JWTs (RS256, typ at+jwt) for the RFC 8707 resource indicators it is
 * given, signed with a key made here, so a test can also forge tokens with that very key.
 *
 * Also: a jose verifier of those tokens for the SDK's bearer-auth helpers, and the SDK v2 client wired for the
 * client-credentials flow the way a machine client does it (no token up front: 401, protected resource metadata,
 * authorization server metadata, token request with `resource`, and step-up on 403 insufficient_scope).
 */
import crypto, { type JsonWebKey } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { repoRoot } from './cli.js';
import { installLocked } from './npm.js';

const tools = path.join(repoRoot, 'test/e2e/oauth');
const modules = path.join(tools, 'node_modules');

/** `npm ci` of test/e2e/oauth (installLocked). */
export function installOidcProvider(): void {
  installLocked(tools);
}

export interface OidcClient {
  id: string;
  secret: string;
  /** What the client may ask for; a request for another of the provider's scopes is refused (invalid_scope). */
  scopes: string[];
}

export interface Provider {
  /** `http://127.0.0.1:<port>`, no trailing slash: the `iss` of its tokens and the issuer of its metadata. */
  issuer: string;
  jwksUri: string;
  tokenEndpoint: string;
  /** RFC 7662, for any client of the provider that authenticates. */
  introspectionEndpoint: string;
  /** The RS256 key the provider signs access tokens with (private, with `kid`): for forging tokens in tests. */
  privateJwk: JsonWebKey;
  kid: string;
  /**
   * A client-credentials token (client_secret_basic) for one resource indicator: the JWT access token (opaque for an
   * opaque resource). Throws with
   * the provider's error (`invalid_scope`, `invalid_target`, `invalid_client`…) in the message when refused.
   */
  token(clientId: string, opts: { scope: string; resource: string }): Promise<string>;
  close(): Promise<void>;
}

/** The little of oidc-provider's surface used here (it ships no types). */
interface OidcProviderModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => { callback(): http.RequestListener };
  errors: { InvalidTarget: new (description?: string) => Error };
}

// oidc-provider 9 says, once, on load, that it wants Node 22 LTS; it runs on Node 20 (this file's tests prove the
// flows used), so the notice is kept out of the test output. Its other development notices are avoided by config:
// an in-memory adapter of its own per provider, own signing keys, no dev interactions.
type Loaded = { oidc: OidcProviderModule; createMemoryAdapter: (clockTolerance?: number) => unknown };
let loaded: Promise<Loaded> | undefined;
function loadOidcProvider(): Promise<Loaded> {
  installOidcProvider();
  return (loaded ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!(typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime'))) {
        warn(...args);
      }
    };
    try {
      const lib = path.join(modules, 'oidc-provider/lib');
      const oidc = (await import(pathToFileURL(path.join(lib, 'index.js')).href)) as OidcProviderModule;
      const memory = (await import(pathToFileURL(path.join(lib, 'adapters/memory_adapter.js')).href)) as Pick<
        Loaded,
        'createMemoryAdapter'
      >;
      return { oidc, createMemoryAdapter: memory.createMemoryAdapter };
    } finally {
      console.warn = warn;
    }
  })());
}

/**
 * Starts an oidc-provider on 127.0.0.1 (port 0): client credentials and resource indicators enabled, for each of
 * `resources` a JWT access token with that `aud`, every scope of the clients, and `accessTokenTtlSeconds` (300 by
 * default); any other resource is refused (invalid_target). Without a `resource` parameter the token is for the
 * only resource when there is exactly one, otherwise for none: an opaque token then, not a JWT (of no use to a server).
 */
export async function startProvider(options: {
  resources: string[];
  clients: OidcClient[];
  accessTokenTtlSeconds?: number;
  /** Resources whose access tokens are opaque (not JWTs): a resource server learns about them by introspection. */
  opaqueResources?: string[];
}): Promise<Provider> {
  const { oidc, createMemoryAdapter } = await loadOidcProvider();
  const { resources, clients } = options;
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const scopes = [...new Set(clients.flatMap((c) => c.scopes))];

  const kid = `harness-${crypto.randomBytes(6).toString('hex')}`;
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateJwk: JsonWebKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

  // The port first, for the issuer; the provider then answers on it.
  let listener: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new oidc.default(issuer, {
    adapter: createMemoryAdapter(),
    jwks: { keys: [privateJwk] },
    // Listed here, the scopes are checked against each client's own `scope`: a scope a client was not given is
    // refused, not silently dropped.
    scopes,
    clients: clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(c.scopes.length ? { scope: c.scopes.join(' ') } : {}),
    })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // RFC 7662, for any client that authenticates (a resource server introspects tokens issued to others).
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => (resources.length === 1 ? resources[0] : undefined),
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!resources.includes(resource)) throw new oidc.errors.InvalidTarget(`unknown resource ${resource}`);
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenFormat: options.opaqueResources?.includes(resource) ? 'opaque' : 'jwt',
            accessTokenTTL: ttl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    ttl: { ClientCredentials: ttl },
  });
  listener = provider.callback();

  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    jwks_uri: string;
    token_endpoint: string;
    introspection_endpoint: string;
  };
  const secrets = new Map(clients.map((c) => [c.id, c.secret]));

  return {
    issuer,
    jwksUri: discovery.jwks_uri,
    tokenEndpoint: discovery.token_endpoint,
    introspectionEndpoint: discovery.introspection_endpoint,
    privateJwk,
    kid,
    async token(clientId, { scope, resource }) {
      const secret = secrets.get(clientId);
      if (secret === undefined) throw new Error(`no client ${clientId}`);
      const res = await fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      if (!res.ok || typeof body['access_token'] !== 'string') {
        throw new Error(`token endpoint answered ${res.status}: ${body['error']} (${body['error_description']})`);
      }
      return body['access_token'];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An OAuthTokenVerifier (for the SDK's `requireBearerAuth`) of the provider's JWT access tokens for one resource:
 * RS256 only, typ at+jwt, the provider's `iss`, `aud` the resource, checked against its published JWKS.
 */
export function jwtVerifier(provider: Pick<Provider, 'issuer' | 'jwksUri'>, resource: string): OAuthTokenVerifier {
  const jwks = createRemoteJWKSet(new URL(provider.jwksUri));
  return {
    async verifyAccessToken(token): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: provider.issuer,
          audience: resource,
          algorithms: ['RS256'],
          typ: 'at+jwt',
        });
        return {
          token,
          clientId: String(payload['client_id']),
          scopes: typeof payload['scope'] === 'string' ? payload['scope'].split(' ').filter(Boolean) : [],
          ...(payload.exp !== undefined && { expiresAt: payload.exp }),
          resource: new URL(resource),
          extra: { sub: payload.sub },
        };
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, error instanceof Error ? error.message : String(error));
      }
    },
  };
}

/** One HTTP request the SDK client made (to the MCP server or the authorization server) and its answer's status. */
export interface SentRequest {
  method: string;
  url: string;
  status: number;
  /** The form body of a token request (`grant_type=…&scope=…&resource=…`); absent for other requests. */
  form?: string;
  /** The scheme of the Authorization header sent (`Basic`, `Bearer`), if any. */
  authorization?: string;
  /** The WWW-Authenticate header of the answer, if any. */
  challenge?: string;
}

/**
 * The SDK v2 client over Streamable HTTP with the SDK's ClientCredentialsProvider (client_secret_basic, bound to
 * `issuer`): connected, no token given up front, so the first request's 401 starts discovery and the token request.
 * `scope` is only the last resort of what it asks for (after the 401 challenge's `scope` and the protected resource
 * metadata's `scopes_supported`). `requests` logs every HTTP request it makes, OAuth ones included.
 */
export async function sdkOAuthClient(
  url: string | URL,
  client: { id: string; secret: string; scope?: string },
  options: {
    issuer: string;
    era?: 'legacy' | 'modern';
    onInsufficientScope?: 'reauthorize' | 'throw';
  },
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; requests: SentRequest[] }> {
  const requests: SentRequest[] = [];
  const logging: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    const entry: SentRequest = { method: init?.method ?? 'GET', url: String(input), status: response.status };
    if (init?.body instanceof URLSearchParams) entry.form = init.body.toString();
    const authorization = headers.get('authorization');
    if (authorization) entry.authorization = authorization.split(' ')[0]!;
    const challenge = response.headers.get('www-authenticate');
    if (challenge) entry.challenge = challenge;
    requests.push(entry);
    return response;
  };
  const authProvider = new ClientCredentialsProvider({
    clientId: client.id,
    clientSecret: client.secret,
    expectedIssuer: options.issuer,
    ...(client.scope !== undefined && { scope: client.scope }),
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider,
    fetch: logging,
    ...(options.onInsufficientScope && { onInsufficientScope: options.onInsufficientScope }),
  });
  const sdk = new Client(
    { name: 'oidc-harness', version: '1.0.0' },
    options.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await sdk.connect(transport);
  return { client: sdk, transport, requests };
}
