/**
 * Bearer token verification for the spec's `auth`, on the JOSE library `jose` (every runtime: Node, Workers, Deno,
 * Bun). A JWT must be signed with an accepted algorithm (never `none`, never HMAC) by a key of the issuer's JWKS,
 * name the issuer as `iss` and this server's resource in `aud` (RFC 8707), and be inside `exp`/`nbf` give or take
 * the clock skew. The JWKS comes from the issuer's metadata (RFC 8414, then OpenID discovery) unless auth.jwksUri
 * names it; keys are kept and fetched again for a `kid` not seen yet (at most every 30 s), so a rotation needs no
 * restart. A token that is not a JWT goes to auth.introspection (RFC 7662) when there is one. Everything fetched is
 * bounded in time and size; when it cannot be fetched the answer is 503, never a token accepted unchecked.
 */
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import type { AccessPolicy, AuthOptions } from './access.js';
import { authUrlProblem } from './uri-template.js';

/** How long a fetch from the authorization server may take, and how much it may send. */
const FETCH_TIMEOUT_MS = 5000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** After a failed discovery, requests meanwhile are answered 503 at once instead of each trying again. */
const RETRY_DISCOVERY_MS = 10_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function createVerifier(policy: AccessPolicy, options: AuthOptions): OAuthTokenVerifier {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  let failedAt = 0;
  const jwks = () => {
    if (!keys && Date.now() - failedAt < RETRY_DISCOVERY_MS) throw unavailable('the issuer was unreachable');
    keys ??= jwksUrl(policy).then(
      // jose's own fetch, bounded like every other: no redirect, at most MAX_DOCUMENT_BYTES.
      (url) =>
        createRemoteJWKSet(url, {
          timeoutDuration: FETCH_TIMEOUT_MS,
          [customFetch]: async (at, init) => Response.json(await fetchJson(at, init)),
        }),
      (error: unknown) => {
        keys = undefined;
        failedAt = Date.now();
        throw error;
      },
    );
    return keys;
  };
  const introspect = policy.introspection === undefined ? undefined : introspection(policy, options);
  return {
    async verifyAccessToken(token) {
      if (!JWT.test(token)) {
        if (introspect) return introspect(token);
        throw invalid('the token is not a JWT, and this server has no introspection endpoint');
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await jwks(), {
          issuer: policy.issuer,
          audience: policy.resource,
          algorithms: [...policy.algorithms],
          clockTolerance: policy.clockSkewSeconds,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        throw verdict(error);
      }
      return authInfo(token, payload, policy);
    },
  };
}

/** What a failed verification tells the client: why the token is refused, or 503 when the keys are out of reach. */
function verdict(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof errors.JWTExpired) return invalid('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const why: Record<string, string> = {
      iss: 'the token was issued by another authorization server',
      aud: 'the token is for another resource',
      nbf: 'the token is not valid yet',
      exp: 'the token has no expiry',
    };
    return invalid(why[error.claim] ?? `the token's ${error.claim} claim is not acceptable`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid("the token's signature algorithm is not accepted");
  if (error instanceof errors.JWKSNoMatchingKey)
    return invalid('the token is signed with a key the issuer does not publish');
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid("the token's signature does not verify");
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError)
  )
    return unavailable(error instanceof Error ? error.message : String(error));
  return invalid('the token is malformed');
}

function authInfo(token: string, claims: JWTPayload, policy: AccessPolicy): AuthInfo {
  const scope = claims['scope'] ?? claims['scp'];
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter(Boolean)
      : Array.isArray(scope)
        ? scope.filter((s): s is string => typeof s === 'string')
        : [];
  const client = claims['client_id'] ?? claims['azp'] ?? claims['cid'] ?? claims.sub;
  return {
    token,
    clientId: typeof client === 'string' ? client : '',
    scopes,
    expiresAt: claims.exp!,
    resource: new URL(policy.resource),
    extra: { sub: claims.sub, claims },
  };
}

/** The JWKS URL: auth.jwksUri, else the issuer's metadata's jwks_uri (checked like the spec's own URLs). */
async function jwksUrl(policy: AccessPolicy): Promise<URL> {
  if (policy.jwksUri !== undefined) return new URL(policy.jwksUri);
  const issuer = new URL(policy.issuer);
  const tail = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const candidates = [
    `${issuer.origin}/.well-known/oauth-authorization-server${tail}`,
    `${issuer.origin}${tail}/.well-known/openid-configuration`,
  ];
  let reason = '';
  for (const url of candidates) {
    let metadata: Record<string, unknown>;
    try {
      metadata = (await fetchJson(url)) as Record<string, unknown>;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      continue;
    }
    // RFC 8414 §3.3: metadata that names another issuer must not be used.
    if (metadata['issuer'] !== policy.issuer)
      throw unavailable(`${url} names the issuer ${String(metadata['issuer'])}`);
    const jwks = metadata['jwks_uri'];
    const problem = typeof jwks === 'string' ? authUrlProblem(jwks, false) : { message: 'is missing' };
    if (problem) throw unavailable(`the jwks_uri of ${url} ${problem.message}`);
    return new URL(jwks as string);
  }
  throw unavailable(`no authorization server metadata at ${candidates.join(' or ')}: ${reason}`);
}

/** RFC 7662: the authorization server says whether an opaque token is active, for whom and with which scopes. */
function introspection(policy: AccessPolicy, options: AuthOptions): (token: string) => Promise<AuthInfo> {
  const endpoint = policy.introspection!;
  return async (token) => {
    if (options.clientId === undefined || options.clientSecret === undefined)
      throw unavailable('introspection needs TOOLSPEC_AUTH_CLIENT_ID and TOOLSPEC_AUTH_CLIENT_SECRET');
    const basic = btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`);
    let answer: Record<string, unknown>;
    try {
      answer = (await fetchJson(endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      })) as Record<string, unknown>;
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : String(error));
    }
    if (answer['active'] !== true) throw invalid('the token is not active');
    const aud = answer['aud'];
    if (!(aud === policy.resource || (Array.isArray(aud) && aud.includes(policy.resource))))
      throw invalid('the token is for another resource');
    if (answer['iss'] !== undefined && answer['iss'] !== policy.issuer)
      throw invalid('the token was issued by another authorization server');
    const now = Date.now() / 1000;
    if (typeof answer['exp'] !== 'number') throw invalid('the token has no expiry');
    if (answer['exp'] + policy.clockSkewSeconds < now) throw invalid('the token has expired');
    if (typeof answer['nbf'] === 'number' && answer['nbf'] - policy.clockSkewSeconds > now)
      throw invalid('the token is not valid yet');
    return authInfo(token, answer as JWTPayload, policy);
  };
}

/** A JSON document from the authorization server, within FETCH_TIMEOUT_MS and MAX_DOCUMENT_BYTES. */
async function fetchJson(url: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    redirect: 'error',
    signal: init.signal ?? AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/json', ...(init.headers as Record<string, string>) },
  });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error(`${url} sent more than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

const invalid = (why: string) => new OAuthError(OAuthErrorCode.InvalidToken, why);
const unavailable = (why: string) => new OAuthError(OAuthErrorCode.ServerError, why);
