/**
 * The diff of two servers' authorization: `auth` added (every HTTP client now needs a token), removed, or moved to
 * another issuer or resource; and, with auth on both sides, each tool's, prompt's and resource's scopes, its own or
 * auth.scopes: a scope needed that was not is breaking (tokens issued before lack it), one no longer needed is not.
 * Elements are matched by name; added, removed and renamed ones are reported by their own rules. Pure.
 */
import { byName } from './primitives.js';
import { changeOf, type Change, type DiffSubject, type Segments } from './rules.js';

const q = JSON.stringify;

export function diffAccess(before: DiffSubject, after: DiffSubject): Change[] {
  const o = before.auth;
  const n = after.auth;
  if (!o && n) {
    const message = 'HTTP clients need a token from the issuer now; stdio is not affected';
    return [changeOf('AUTH_ADDED', 'tool', null, ['auth'], `added (issuer ${n.issuer})`, message)];
  }
  if (o && !n) {
    const message = 'the server no longer checks tokens: anyone who reaches it over HTTP may call it';
    return [changeOf('AUTH_REMOVED', 'tool', null, ['auth'], 'removed', message)];
  }
  const out: Change[] = [];
  if (!o || !n) return out;
  for (const key of ['issuer', 'resource'] as const) {
    if (o[key] === n[key]) continue;
    const message = 'clients must get new tokens, from the new issuer or for the new resource';
    out.push(
      changeOf('AUTH_SERVER_CHANGED', 'tool', null, ['auth', key], `${o[key]} → ${n[key]}`, message, o[key], n[key]),
    );
  }
  const pairs = (kind: string, a: readonly { name: string; scopes?: string[] }[] = [], b: typeof a = []) => {
    for (const [was, x] of byName(a, b)) {
      if (!was || !x) continue;
      const before = [...new Set(was.scopes ?? o.scopes)];
      const now = [...new Set(x.scopes ?? n.scopes)];
      const added = now.filter((s) => !before.includes(s));
      const removed = before.filter((s) => !now.includes(s));
      const tool = kind === 'tools' ? x.name : null;
      const at: Segments = kind === 'tools' ? ['scopes'] : [kind, x.name, 'scopes'];
      const what = kind === 'tools' ? `tool ${q(x.name)}` : `${kind.slice(0, -1)} ${q(x.name)}`;
      if (added.length) {
        const message = `tokens without ${added.join(' and ')} get 403 from ${what}; clients must ask for ${added.length > 1 ? 'them' : 'it'}`;
        out.push(changeOf('SCOPES_ADDED', 'tool', tool, at, `needs ${added.join(', ')} now`, message, before, now));
      }
      if (removed.length) {
        const message = `${what} takes tokens without ${removed.join(' or ')}`;
        out.push(
          changeOf('SCOPES_REMOVED', 'tool', tool, at, `no longer needs ${removed.join(', ')}`, message, before, now),
        );
      }
    }
  };
  pairs('tools', before.tools, after.tools);
  pairs('prompts', before.prompts, after.prompts);
  pairs('resources', before.resources, after.resources);
  return out;
}
