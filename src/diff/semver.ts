/**
 * Which version bump a diff's changes need, and whether the new `server.version` made it. Breaking changes need a
 * major version, compatible ones (a tool added, a schema widened) a minor one, prompt changes (descriptions a model
 * reads) a patch. Below 1.0.0 each moves down one place, as npm's caret ranges read them: ^0.2.0 takes 0.2.9 but not
 * 0.3.0, so a breaking change of 0.2.x needs 0.3.0.
 */
import { CLASS_ORDER, type Change } from './rules.js';

/** The bump each class of change needs, gravest first, as CLASS_ORDER: breaking, compatible, prompt, nothing. */
const BUMPS = ['major', 'minor', 'patch', 'none'] as const;

export interface VersionVerdict {
  old: string;
  new: string;
  /** The least bump the changes need. */
  needed: (typeof BUMPS)[number];
  /** The least version that makes it, e.g. 2.0.0. */
  least: string;
  ok: boolean;
  /** Why not, in words, when not ok. */
  reason?: string;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** MAJOR, MINOR and PATCH; a pre-release or build does not count (see checkVersion). */
function parseVersion(v: string): [number, number, number] | undefined {
  const m = SEMVER.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** The verdict on `next` after `old`, or undefined when either is not a semantic version (the caller says so). */
export function checkVersion(changes: readonly Change[], old: string, next: string): VersionVerdict | undefined {
  const a = parseVersion(old);
  const b = parseVersion(next);
  if (!a || !b) return undefined;
  const gravest = CLASS_ORDER.findIndex((cls) => changes.some((c) => c.class === cls));
  // The place the bump raises (3: none). Below 1.0.0 the first non-zero place is the "major" one for npm's caret:
  // one place down.
  const place = gravest === -1 ? 3 : a[0] === 0 ? Math.min(gravest + 1, 2) : gravest;
  const needed = BUMPS[place]!;
  // The least version that makes it: the place the bump raises up by one, the places after it reset to 0.
  const [x = 0, y = 0, z = 0] = a.map((v, i) => (i < place ? v : i === place ? v + 1 : 0));
  const least = needed === 'none' ? old : `${x}.${y}.${z}`;
  // A pre-release of the least version (2.0.0-rc.1) is the bump on its way: it counts.
  const cmp = b[0] - x || b[1] - y || b[2] - z;
  const backwards = b[0] - a[0] || b[1] - a[1] || b[2] - a[2];
  const ok = backwards >= 0 && cmp >= 0;
  const verdict: VersionVerdict = { old, new: next, needed, least, ok };
  if (!ok)
    verdict.reason =
      backwards < 0
        ? `server.version went back from ${old} to ${next}`
        : `the changes need a ${needed} version: ${least} or later, not ${next}`;
  return verdict;
}
