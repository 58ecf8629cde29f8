/**
 * The token verifier's memory of verified tokens (templates/runtime/auth.ts) never changes a verdict: over random
 * tokens (signed by a published key, a withdrawn one, one never published; right and wrong issuer and audience;
 * expiring, not yet valid), random clocks and random rotations of the issuer's keys, a verifier that remembers
 * answers exactly as one that remembers nothing, token after token. The keys come from a JWKS served on
 * 127.0.0.1 by the test; Date is the test's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AccessPolicy } from '../templates/runtime/access.js';
import { createVerifier } from '../templates/runtime/auth.js';

const ISSUER = 'https://auth.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);

interface Key {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  jwk: JWK;
}
let keys: Key[] = [];
/** Which keys the JWKS publishes now (indexes into keys); the last of keys is never published. */
let published = [0, 1];
let server: http.Server;
let jwksUri: string;

beforeAll(async () => {
  const make = async (kid: string, alg: Key['alg']): Promise<Key> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  keys = [await make('a', 'RS256'), await make('b', 'ES256'), await make('c', 'RS256'), await make('never', 'RS256')];
  server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: published.map((i) => keys[i]!.jwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  vi.useRealTimers();
  await new Promise<void>((r) => server.close(() => r()));
});

const policy = (): AccessPolicy => ({
  issuer: ISSUER,
  resource: RESOURCE,
  jwksUri,
  algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
  clockSkewSeconds: 30,
  scopes: [],
  filterList: false,
  tools: {},
  prompts: {},
  resources: {},
});

/** A token description: which key signs it, under which kid, and its claims relative to T0 (seconds). */
/** Weighted towards tokens that verify, so that both verdicts come often. */
const tokenArb = fc.record({
  key: fc.constantFrom(0, 0, 1, 1, 2, 3),
  kid: fc.constantFrom('own', 'own', 'own', 'other', 'none'),
  iss: fc.constantFrom(ISSUER, ISSUER, ISSUER, 'https://evil.example'),
  aud: fc.constantFrom<string | string[]>(RESOURCE, RESOURCE, [RESOURCE, 'x'], 'https://other.example/mcp'),
  exp: fc.integer({ min: -120, max: 1800 }),
  nbf: fc.option(fc.integer({ min: -60, max: 600 }), { nil: undefined }),
});
type TokenSpec = typeof tokenArb extends fc.Arbitrary<infer T> ? T : never;

async function sign(t: TokenSpec): Promise<string> {
  const key = keys[t.key]!;
  const kid = t.kid === 'own' ? key.kid : t.kid === 'other' ? keys[(t.key + 1) % keys.length]!.kid : undefined;
  const s = Math.floor(T0 / 1000);
  return new SignJWT({
    iss: t.iss,
    aud: t.aud,
    sub: 'user',
    client_id: 'client',
    scope: 'notes.read',
    iat: s,
    exp: s + t.exp,
    ...(t.nbf === undefined ? {} : { nbf: s + t.nbf }),
  })
    .setProtectedHeader({ alg: key.alg, ...(kid ? { kid } : {}) })
    .sign(key.privateKey);
}

/** One step: maybe the issuer rotates (a new published subset), the clock moves, one token is verified. */
const stepArb = fc.record({
  rotate: fc.option(fc.subarray([0, 1, 2], { minLength: 1 }), { nil: undefined }),
  advance: fc.integer({ min: 0, max: 200 }),
  token: fc.integer({ min: 0, max: 5 }),
});

/** The verdict as a client would see it: the caller, or the error's code and description. */
async function verdictOf(verify: Promise<{ clientId: string; scopes: string[]; expiresAt?: number }>) {
  try {
    const info = await verify;
    return { ok: info.clientId, scopes: info.scopes, expiresAt: info.expiresAt };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { error: e.code, message: e.message };
  }
}

describe('the verifier that remembers verified tokens', () => {
  it('answers every token exactly as one that remembers nothing, over rotations and clocks', async () => {
    const seen = { accepted: 0, refused: 0 };
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(tokenArb, { minLength: 6, maxLength: 6 }),
          fc.array(stepArb, { maxLength: 14 }),
          async (specs, steps) => {
            vi.setSystemTime(T0);
            published = [0, 1];
            const tokens = await Promise.all(specs.map(sign));
            const remembering = createVerifier(policy(), {});
            const plain = createVerifier(policy(), {}, 0);
            // Each token twice at the start: the second is the remembered path, if it verified.
            const plan: { token: number; advance: number; rotate?: number[] | undefined }[] = [
              ...tokens.map((_, i) => ({ token: i, advance: 0 })),
              ...tokens.map((_, i) => ({ token: i, advance: 1 })),
              ...steps,
            ];
            for (const step of plan) {
              if (step.rotate) published = step.rotate;
              vi.setSystemTime(Date.now() + step.advance * 1000);
              const a = await verdictOf(remembering.verifyAccessToken(tokens[step.token]!));
              const b = await verdictOf(plain.verifyAccessToken(tokens[step.token]!));
              expect(a).toEqual(b);
              seen['ok' in a ? 'accepted' : 'refused']++;
            }
          },
        ),
        { numRuns: 40 },
      );
      // Both verdicts, often: a property over refusals alone would hold for a verifier that refuses everything.
      expect(seen.accepted).toBeGreaterThan(20);
      expect(seen.refused).toBeGreaterThan(40);
    } finally {
      vi.useRealTimers();
    }
  }, 120_000);

  it('refuses a remembered token once the issuer no longer publishes its key and the keys are fetched again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(T0);
      published = [0, 1];
      const verifier = createVerifier(policy(), {});
      const token = await sign({ key: 0, kid: 'own', iss: ISSUER, aud: RESOURCE, exp: 3600, nbf: undefined });
      await expect(verifier.verifyAccessToken(token)).resolves.toMatchObject({ clientId: 'client' });
      published = [1, 2];
      // Within the keys' 10 minutes the set in use is the one it verified against: still taken, as without memory.
      vi.setSystemTime(T0 + 60_000);
      await expect(verifier.verifyAccessToken(token)).resolves.toMatchObject({ clientId: 'client' });
      vi.setSystemTime(T0 + 11 * 60_000);
      await expect(verifier.verifyAccessToken(token)).rejects.toThrow(/a key the issuer does not publish/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('re-checks the clock on a remembered token: it expires on time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(T0);
      published = [0, 1];
      const verifier = createVerifier(policy(), {});
      const token = await sign({ key: 0, kid: 'own', iss: ISSUER, aud: RESOURCE, exp: 60, nbf: undefined });
      await expect(verifier.verifyAccessToken(token)).resolves.toBeDefined();
      vi.setSystemTime(T0 + 89_000); // exp + skew − 1 s
      await expect(verifier.verifyAccessToken(token)).resolves.toBeDefined();
      vi.setSystemTime(T0 + 90_000);
      await expect(verifier.verifyAccessToken(token)).rejects.toThrow(/has expired/);
    } finally {
      vi.useRealTimers();
    }
  });
});
