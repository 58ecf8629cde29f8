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
  if (!o && n) return [changeOf('AUTH_ADDED', 'tool', null, ['auth'], `added (issuer ${n.issuer})`)];
  if (o && !n) return [changeOf('AUTH_REMOVED', 'tool', null, ['auth'], 'removed')];
  const out: Change[] = [];
  if (!o || !n) return out;
  for (const key of ['issuer', 'resource'] as const) {
    if (o[key] !== n[key])
      out.push(changeOf('AUTH_SERVER_CHANGED', 'tool', null, ['auth', key], `${o[key]} → ${n[key]}`, o[key], n[key]));
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
        out.push(changeOf('SCOPES_ADDED', 'tool', tool, at, `needs ${added.join(', ')} now`, before, now, message));
      }
      if (removed.length) {
        const message = `${what} takes tokens without ${removed.join(' or ')}`;
        out.push(
          changeOf('SCOPES_REMOVED', 'tool', tool, at, `no longer needs ${removed.join(', ')}`, before, now, message),
        );
      }
    }
  };
  pairs('tools', before.tools, after.tools);
  pairs('prompts', before.prompts, after.prompts);
  pairs('resources', before.resources, after.resources);
  return out;
}
