/**
 * The spec's `auth` (the structure check has seen its fields and types): its URLs held to what a resource server
 * can check tokens against, and `scopes` refused on a spec that has no `auth` to enforce them.
 */
import { diagnostic, type Diagnostics } from '../../core/diagnostics.js';
import { parseDuration } from '../../core/duration.js';
import type { RawTool } from '../load/load.js';
import type { SourceFile } from '../load/source.js';
import type { AuthModel } from '../model.js';
import { authUrlProblem } from '../../../templates/runtime/uri-template.js';

export const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const DEFAULT_CLOCK_SKEW_S = 30;
const MAX_CLOCK_SKEW_S = 300;

const URLS = {
  issuer: 'the issuer',
  resource: 'the resource',
  jwksUri: 'the JWKS URL',
  introspection: 'the introspection endpoint',
} as const;

/** The spec's `auth`, resolved; undefined when there is none or it has an error. */
export function resolveAuth(raw: unknown, file: SourceFile, diags: Diagnostics): AuthModel | undefined {
  if (raw === undefined || typeof raw !== 'object' || raw === null) return undefined;
  const v = raw as Record<string, unknown>;
  let ok = true;
  const urls: Partial<Record<keyof typeof URLS, string>> = {};
  for (const [key, what] of Object.entries(URLS) as [keyof typeof URLS, string][]) {
    if (typeof v[key] !== 'string') continue;
    const problem = authUrlProblem(v[key], key === 'issuer' || key === 'resource');
    if (problem) {
      ok = false;
      diags.add(
        diagnostic('TS049', file.locate(['auth', key]), `auth.${key}: ${what} ${problem.message}`, problem.hint),
      );
    } else urls[key] = v[key];
  }
  const skew = v['clockSkew'] === undefined ? DEFAULT_CLOCK_SKEW_S * 1000 : parseDuration(v['clockSkew']);
  if (skew !== undefined && skew > MAX_CLOCK_SKEW_S * 1000) {
    ok = false;
    diags.add(
      diagnostic(
        'TS049',
        file.locate(['auth', 'clockSkew']),
        `auth.clockSkew ${String(v['clockSkew'])} is longer than 5m`,
        'a skew that long keeps expired tokens valid: synchronise the clocks (NTP) and allow seconds, e.g. 30s',
      ),
    );
  }
  if (!ok || urls.issuer === undefined || urls.resource === undefined || skew === undefined) return undefined;
  return {
    issuer: urls.issuer,
    resource: urls.resource,
    ...(urls.jwksUri === undefined ? {} : { jwksUri: urls.jwksUri }),
    algorithms: Array.isArray(v['algorithms']) ? (v['algorithms'] as string[]) : DEFAULT_ALGORITHMS,
    clockSkewSeconds: Math.ceil(skew / 1000),
    ...(urls.introspection === undefined ? {} : { introspection: urls.introspection }),
    scopes: Array.isArray(v['scopes']) ? (v['scopes'] as string[]) : [],
    filterList: v['filterList'] === true,
  };
}

/** `scopes` written on a tool, prompt or resource (`items` by kind): refused when the spec has no `auth` to enforce them. */
export function checkScopesNeedAuth(
  auth: unknown,
  items: Record<string, readonly RawTool[]>,
  diags: Diagnostics,
): void {
  if (auth !== undefined) return;
  for (const [kind, list] of Object.entries(items)) {
    for (const item of list) {
      if (item.value['scopes'] === undefined) continue;
      diags.add(
        diagnostic(
          'TS050',
          item.file.locate([...item.path, 'scopes'], { key: true }),
          `${kind} ${JSON.stringify(item.value['name'])} has scopes, but the spec has no auth: nothing would check them`,
          'add auth: { issuer: https://auth.example.com, resource: https://mcp.example.com/mcp }, or remove scopes',
        ),
      );
    }
  }
}

/** An element's own `scopes` for its model (the structure check has seen they are strings); none: {}. */
export function withScopes(value: Record<string, unknown>): { scopes?: string[] } {
  return Array.isArray(value['scopes']) ? { scopes: [...(value['scopes'] as string[])] } : {};
}
