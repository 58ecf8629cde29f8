/**
 * Who may call what over HTTP: the spec's `auth` and `scopes`. With `auth`, the endpoint is an OAuth 2.1 resource
 * server (the protocol's authorization section): it serves its Protected Resource Metadata (RFC 9728) at the
 * well-known path of its resource URL; a request without a bearer token gets 401 with
 * `WWW-Authenticate: Bearer resource_metadata="…"`; a token that does not verify (signature, issuer, audience,
 * expiry: auth.ts) gets 401 `invalid_token`; a request whose token lacks a scope that the tool, prompt or resource
 * it names needs gets 403 `insufficient_scope` naming every scope that operation needs, so the client can step up
 * (asking for those with the ones it has). All before any handler runs. stdio is not authenticated: the protocol
 * leaves it to the environment. No Node modules here: the web handler uses it on every runtime.
 */
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type ListToolsResult,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { resourceRules } from './primitives.js';
import { MAX_URI_LENGTH, resourceFinder } from './resources.js';
import { authUrlProblem } from './uri-template.js';
import { serverInfo } from './tools.js';

/** The spec's `auth` and every tool's, prompt's and resource's scopes (theirs, or auth.scopes): tools.ts has it. */
export interface AccessPolicy {
  issuer: string;
  /** The server's canonical URL: its tokens' audience (RFC 8707), and where its metadata's path comes from. */
  resource: string;
  jwksUri?: string;
  algorithms: readonly string[];
  clockSkewSeconds: number;
  introspection?: string;
  /** Advertised as scopes_supported (and in a 401's `scope`): what an element that names none needs. */
  scopes: readonly string[];
  /** tools/list shows a caller the tools its scopes can call, and no others. */
  filterList: boolean;
  tools: Readonly<Record<string, readonly string[]>>;
  prompts: Readonly<Record<string, readonly string[]>>;
  /** By resource (or template) name. */
  resources: Readonly<Record<string, readonly string[]>>;
}

/**
 * The deployment's part, never the spec's: URLs that differ per environment and the introspection client's
 * credentials. main.js and fetch.js read them from the variables of AUTH_VARIABLES.
 */
export type AuthOptions = { -readonly [K in keyof typeof AUTH_VARIABLES]?: string };

/** Where the entry points read AuthOptions from: the environment (or a Worker's bindings). */
export const AUTH_VARIABLES = {
  issuer: 'TOOLSPEC_AUTH_ISSUER',
  resource: 'TOOLSPEC_AUTH_RESOURCE',
  jwksUri: 'TOOLSPEC_AUTH_JWKS_URI',
  introspection: 'TOOLSPEC_AUTH_INTROSPECTION',
  clientId: 'TOOLSPEC_AUTH_CLIENT_ID',
  clientSecret: 'TOOLSPEC_AUTH_CLIENT_SECRET',
} as const;

/** The AuthOptions that `read` (a variable's value, or undefined) gives. */
export function authOptionsFrom(read: (variable: string) => string | undefined): AuthOptions {
  const options: AuthOptions = {};
  for (const [key, variable] of Object.entries(AUTH_VARIABLES)) {
    const value = read(variable);
    if (value) options[key as keyof AuthOptions] = value;
  }
  return options;
}

/** What auth.ts exports. It is generated only for a spec with `auth`, and loaded on the first request. */
export interface AuthModule {
  createVerifier(policy: AccessPolicy, options: AuthOptions): OAuthTokenVerifier;
}

export interface AuthGate {
  /** The well-known metadata path (RFC 9728) of the resource. */
  readonly metadataPath: string;
  /** The metadata document (GET), or the answer to a browser's preflight. */
  metadata(request: Request): Response;
  /** The verified caller, or the 401 (503 when the keys cannot be fetched) to answer instead. */
  authenticate(request: Request): Promise<AuthInfo | Response>;
  /** 403 when the token lacks a scope that one of the body's requests needs; undefined when it may go on. */
  challenge(body: unknown, authInfo: AuthInfo): Response | undefined;
}

/** An Authorization header longer than this is refused before anything parses it (JWTs run to 1–2 KiB). */
export const MAX_AUTHORIZATION_LENGTH = 8192;

/**
 * The gate of an endpoint, from the spec's policy and the deployment's options. Throws a RangeError, at startup,
 * for a URL from the environment that the spec would have refused.
 */
export function createAuthGate(spec: AccessPolicy, options: AuthOptions, load: () => Promise<AuthModule>): AuthGate {
  const policy: AccessPolicy = { ...spec };
  for (const key of ['issuer', 'resource', 'jwksUri', 'introspection'] as const) {
    const given = options[key];
    if (given !== undefined) policy[key] = given;
  }
  for (const key of ['issuer', 'resource', 'jwksUri', 'introspection'] as const) {
    const value = policy[key];
    const problem = value === undefined ? undefined : authUrlProblem(value, key === 'issuer' || key === 'resource');
    if (problem) throw new RangeError(`auth ${key} ${JSON.stringify(value)} ${problem.message}: ${problem.hint}`);
  }
  const resourceUrl = new URL(policy.resource);
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  const document = JSON.stringify({
    resource: policy.resource,
    authorization_servers: [policy.issuer],
    ...(policy.scopes.length ? { scopes_supported: policy.scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: serverInfo.title ?? serverInfo.name,
  });
  let verifier: Promise<OAuthTokenVerifier> | undefined;
  const { find, byRef } = resourceFinder(resourceRules);
  const scopesOf = (map: AccessPolicy['tools'], name: unknown): readonly string[] =>
    typeof name === 'string' && Object.hasOwn(map, name) ? map[name]! : [];
  const resourceScopes = (rule: { name: string } | undefined) => (rule ? scopesOf(policy.resources, rule.name) : []);
  /** The scopes one message needs: an unknown tool, prompt or resource needs none (its answer says it is unknown). */
  const needs = (message: unknown): readonly string[] => {
    if (!isRecord(message) || !('id' in message) || typeof message['method'] !== 'string') return [];
    const params = isRecord(message['params']) ? message['params'] : {};
    switch (message['method']) {
      case 'tools/call':
        return scopesOf(policy.tools, params['name']);
      case 'prompts/get':
        return scopesOf(policy.prompts, params['name']);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = params['uri'];
        return typeof uri === 'string' && uri.length <= MAX_URI_LENGTH ? resourceScopes(find(uri)?.rule) : [];
      }
      case 'completion/complete': {
        const ref = isRecord(params['ref']) ? params['ref'] : {};
        if (ref['type'] === 'ref/prompt') return scopesOf(policy.prompts, ref['name']);
        return ref['type'] === 'ref/resource' ? resourceScopes(byRef(ref['uri'])) : [];
      }
      default:
        return [];
    }
  };

  return {
    metadataPath: new URL(metadataUrl).pathname,
    metadata(request) {
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return new Response(null, { status: 405, headers: { ...cors, allow: 'GET, OPTIONS' } });
      return new Response(document, {
        headers: { ...cors, 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      });
    },
    async authenticate(request) {
      const header = request.headers.get('authorization');
      // No credentials at all: the challenge names no error (RFC 6750 §3.1), only where to learn how to get some.
      if (header === null || !header.trim()) {
        const scope = policy.scopes.length ? `, scope="${policy.scopes.join(' ')}"` : '';
        return Response.json(
          { error: 'invalid_request', error_description: 'This server needs a bearer token' },
          { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${metadataUrl}"${scope}` } },
        );
      }
      const refuse = (error: unknown) => bearerAuthChallengeResponse(error, { resourceMetadataUrl: metadataUrl });
      if (header.length > MAX_AUTHORIZATION_LENGTH)
        return refuse(new OAuthError(OAuthErrorCode.InvalidToken, 'The Authorization header is too long'));
      try {
        verifier ??= load().then((m) => m.createVerifier(policy, options));
        return await verifyBearerToken(header, {
          verifier: await verifier,
          expectedResource: resourceUrl,
          resourceMetadataUrl: metadataUrl,
        });
      } catch (error) {
        if (error instanceof OAuthError && error.code === OAuthErrorCode.ServerError) {
          // The keys or the introspection endpoint are out of reach: not the client's fault, and not for long.
          console.error('[toolspec] cannot verify tokens:', error.message);
          return Response.json(
            { error: 'temporarily_unavailable', error_description: 'Tokens cannot be verified right now' },
            { status: 503, headers: { 'retry-after': '5' } },
          );
        }
        if (!(error instanceof OAuthError)) console.error('[toolspec] token verification failed:', error);
        return refuse(error);
      }
    },
    challenge(body, authInfo) {
      const messages = Array.isArray(body) ? body : [body];
      const granted = new Set(authInfo.scopes);
      const required = new Set<string>();
      const short: string[] = [];
      for (const message of messages) {
        const scopes = needs(message);
        for (const s of scopes) required.add(s);
        if (scopes.some((s) => !granted.has(s))) short.push(describe(message));
      }
      if (!short.length) return undefined;
      // Every scope the operation needs, in one challenge: the client asks for them with those it has (step-up).
      const error = new OAuthError(OAuthErrorCode.InsufficientScope, `${short.join(', ')} needs more scopes`);
      return bearerAuthChallengeResponse(error, { requiredScopes: [...required], resourceMetadataUrl: metadataUrl });
    },
  };
}

/** "tools/call create_note": what a refused request was, in the challenge's description (printable ASCII). */
function describe(message: unknown): string {
  const m = message as { method: string; params?: { name?: unknown; uri?: unknown } };
  const what = m.params?.name ?? m.params?.uri;
  return typeof what === 'string' ? `${m.method} ${what.slice(0, 100)}` : m.method;
}

/** The page of tools/list a caller's scopes can call (auth.filterList); without a verified caller, all of it. */
export function visibleTools(
  list: ListToolsResult,
  policy: AccessPolicy | undefined,
  authInfo: AuthInfo | undefined,
): ListToolsResult {
  if (!policy?.filterList || !authInfo) return list;
  const granted = new Set(authInfo.scopes);
  const own = (name: string) => (Object.hasOwn(policy.tools, name) ? policy.tools[name]! : []);
  const tools = list.tools.filter((t) => own(t.name).every((s) => granted.has(s)));
  return tools.length === list.tools.length ? list : { ...list, tools };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
