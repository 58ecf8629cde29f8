/**
 * Bearer token verification for the spec's `auth`, on the JOSE library `jose` (every runtime: Node, Workers, Deno,
 * Bun). A JWT must be signed with an accepted algorithm (never `none`, never HMAC) by a key of the issuer's JWKS,
 * name the issuer as `iss` and this server's resource in `aud` (RFC 8707), and be inside `exp`/`nbf` give or take
 * the clock skew. The JWKS comes from the issuer's metadata (RFC 8414, then OpenID discovery) unless auth.jwksUri
 * names it; keys are kept 10 minutes and fetched again for a `kid` not seen yet (at most every 30 s), so a
 * rotation needs no restart. A token that is not a JWT goes to auth.introspection (RFC 7662) when there is one. Everything fetched is
 * bounded in time and size; when it cannot be fetched the answer is 503, never a token accepted unchecked.
 */
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createLocalJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { AccessPolicy, AuthOptions } from './access.js';
import { authUrlProblem } from './uri-template.js';

/** How long a fetch from the authorization server may take, and how much it may send. */
const FETCH_TIMEOUT_MS = 5000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** After a failed discovery, requests meanwhile are answered 503 at once instead of each trying again. */
const RETRY_DISCOVERY_MS = 10_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Tokens kept verified (see createVerifier): at most this many, and only tokens that verified. */
export const MAX_REMEMBERED_TOKENS = 1000;
/** The keys are fetched again after this long (jose's default for a remote key set), */
const KEYS_MAX_AGE_MS = 10 * 60_000;
/** and for a `kid` they do not have, at most this often. */
const KEYS_COOLDOWN_MS = 30_000;

/** One fetch of the issuer's keys: every verification against it knows which one it used. */
interface KeySet {
  local: ReturnType<typeof createLocalJWKSet>;
  at: number;
}

/**
 * A token seen again is taken without checking its signature a second time (which costs more than the rest of a
 * call: bench/NOTES.md), only while the verdict cannot differ: it was verified against the key set still in use
 * (the same fetch, not yet due again), everything jose checks is a function of the token, that key set and the
 * options but the clock, and the clock's checks (nbf, exp, with the skew) run again in jose's arithmetic.
 * test/auth-verifier.test.ts holds the verdicts equal to a verifier that keeps nothing (`remember` 0), over random
 * tokens, clocks and key rotations.
 */
export function createVerifier(
  policy: AccessPolicy,
  options: AuthOptions,
  remember = MAX_REMEMBERED_TOKENS,
): OAuthTokenVerifier {
  const remembered = new Map<string, { keys: KeySet; payload: JWTPayload }>();
  let url: Promise<URL> | undefined;
  let failedAt = 0;
  let current: KeySet | undefined;
  let loading: Promise<KeySet> | undefined;
  /** The JWKS URL, found once; after a failure, requests within RETRY_DISCOVERY_MS are answered 503 at once. */
  const where = () => {
    if (!url && Date.now() - failedAt < RETRY_DISCOVERY_MS) throw unavailable('the issuer was unreachable');
    url ??= jwksUrl(policy).catch((error: unknown) => {
      url = undefined;
      failedAt = Date.now();
      throw error;
    });
    return url;
  };
  const reload = () =>
    (loading ??= (async () => {
      const json = await fetchJson((await where()).href);
      return (current = { local: createLocalJWKSet(json as Parameters<typeof createLocalJWKSet>[0]), at: Date.now() });
    })().finally(() => (loading = undefined)));
  const keySet = async () => (current && Date.now() - current.at < KEYS_MAX_AGE_MS ? current : reload());
  const check = (token: string, keys: KeySet) =>
    jwtVerify(token, keys.local, {
      issuer: policy.issuer,
      audience: policy.resource,
      algorithms: [...policy.algorithms],
      clockTolerance: policy.clockSkewSeconds,
      requiredClaims: ['exp'],
    });
  const introspect = policy.introspection === undefined ? undefined : introspection(policy, options);
  return {
    async verifyAccessToken(token) {
      if (!JWT.test(token)) {
        if (introspect) return introspect(token);
        throw invalid('the token is not a JWT, and this server has no introspection endpoint');
      }
      let payload: JWTPayload;
      try {
        let keys = await keySet();
        const kept = remembered.get(token);
        if (kept?.keys === keys) {
          payload = kept.payload;
          checkTimes(payload, policy.clockSkewSeconds);
        } else {
          try {
            ({ payload } = await check(token, keys));
          } catch (error) {
            // A key not seen yet: the issuer may have rotated; ask again, at most every KEYS_COOLDOWN_MS.
            if (!(error instanceof errors.JWKSNoMatchingKey) || Date.now() - keys.at < KEYS_COOLDOWN_MS) throw error;
            keys = await reload();
            ({ payload } = await check(token, keys));
          }
          if (remember > 0) {
            remembered.delete(token);
            if (remembered.size >= remember) remembered.delete(remembered.keys().next().value!);
            remembered.set(token, { keys, payload });
          }
        }
      } catch (error) {
        throw verdict(error);
      }
      return authInfo(token, payload, policy);
    },
  };
}

/** jose's checks of the clock (lib/jwt_claims_set.js), for a token it has verified before: nbf, then exp. */
function checkTimes(payload: JWTPayload, tolerance: number): void {
  const now = Math.floor(Date.now() / 1000);
  if (payload.nbf !== undefined && payload.nbf > now + tolerance)
    throw new errors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', payload, 'nbf', 'check_failed');
  if (payload.exp !== undefined && payload.exp <= now - tolerance)
    throw new errors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp', 'check_failed');
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
