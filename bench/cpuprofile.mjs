// A summary of a V8 CPU profile (node --cpu-prof): the functions with the most self time, and the inclusive time of
// named groups of frames (a sample counts for a group when any frame of its stack belongs to the group, once).
//
//   node bench/cpuprofile.mjs <file.cpuprofile> [top, default 30]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A frame as the groups' predicates see it: function name, script URL (file:// stripped), line (1-based). */
function frameOf(callFrame) {
  return {
    name: callFrame.functionName || '(anonymous)',
    url: callFrame.url.replace(/^file:\/\//, ''),
    line: callFrame.lineNumber + 1,
  };
}

/** Where a frame is, short: the package (node_modules/…) or the path from the last dist/ or bench/ folder on. */
function where(f) {
  if (!f.url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(f.url);
  if (pkg) return `${pkg[1]}/${path.basename(pkg[2])}:${f.line}`;
  const m = /(?:^|\/)((?:dist|bench)\/.*)$/.exec(f.url);
  return `${m ? m[1] : f.url.startsWith('node:') ? f.url : path.basename(f.url)}:${f.line}`;
}

/**
 * Exclusive time by layer: each sample goes to the nearest frame, from the leaf up, that `layerOf` names with a
 * string; a frame it names `{ weak: label }` (a runtime's internals, say) takes the sample only when no frame
 * above it is named with a string (so a stream made by a library is the library's); undefined passes the sample to
 * the caller. Samples nothing claims go to "(unclaimed)". The layers sum to the whole profile. Returns [label, µs]
 * pairs, largest first, and the total.
 * @param {{ nodes: any[], samples: number[], timeDeltas: number[] }} profile
 * @param {(frame: { name: string, url: string, line: number }) => string | { weak: string } | undefined} layerOf
 */
export function layers(profile, layerOf) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** Per node: the nearest string-named layer at or above it, and the nearest weak one. */
  const memo = new Map();
  const up = (id) => {
    if (memo.has(id)) return memo.get(id);
    const above = parent.has(id) ? up(parent.get(id)) : { strong: undefined, weak: undefined };
    const mine = layerOf(frameOf(nodes.get(id).callFrame));
    const here =
      typeof mine === 'string'
        ? { strong: mine, weak: above.weak }
        : { strong: above.strong, weak: mine?.weak ?? above.weak };
    memo.set(id, here);
    return here;
  };
  const by = new Map();
  let total = 0;
  for (const [i, id] of profile.samples.entries()) {
    const t = profile.timeDeltas[i] ?? 0;
    const { strong, weak } = up(id);
    const label = strong ?? weak ?? '(unclaimed)';
    by.set(label, (by.get(label) ?? 0) + t);
    total += t;
  }
  return { layers: [...by].sort((a, b) => b[1] - a[1]), total };
}

/** Line → `//#region` name of a bundled file (the SDK's dist files name each source file so), read once. */
const regionMaps = new Map();
export function regionOf(frame) {
  if (!frame.url.startsWith('/')) return undefined;
  let map = regionMaps.get(frame.url);
  if (!map) {
    map = [];
    try {
      for (const [i, line] of fs.readFileSync(frame.url, 'utf8').split('\n').entries()) {
        const m = /^\/\/#region (.*)$/.exec(line);
        if (m) map.push([i + 1, m[1].replace(/^(\.\.\/)+(core-internal\/)?/, '')]);
      }
    } catch {
      // not readable: no regions
    }
    regionMaps.set(frame.url, map);
  }
  let region;
  for (const [line, name] of map) {
    if (line > frame.line) break;
    region = name;
  }
  return region;
}

/**
 * The summary as text. `groups`: [label, (frame) => boolean] pairs; `calls`: how many requests the profile covers,
 * to give the time per call. Times are of the samples, ms (and µs per call).
 * @param {{ nodes: any[], samples: number[], timeDeltas: number[] }} profile
 * @param {[string, (frame: { name: string, url: string, line: number }) => boolean][]} [groups]
 * @param {{ top?: number, calls?: number, layerOf?: (frame: { name: string, url: string, line: number }) => string | { weak: string } | undefined }} [options]
 *   layerOf: also the exclusive time by layer (see layers).
 */
export function summarizeProfile(profile, groups = [], { top = 30, calls = undefined, layerOf = undefined } = {}) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  let total = 0;
  for (const t of self.values()) total += t;
  /** Per node: the indexes of the groups on its stack, computed once. */
  const memo = new Map();
  const groupsOf = (id) => {
    if (memo.has(id)) return memo.get(id);
    const up = parent.has(id) ? groupsOf(parent.get(id)) : new Set();
    const f = frameOf(nodes.get(id).callFrame);
    const mine = groups.map(([, match], g) => (match(f) ? g : -1)).filter((g) => g >= 0);
    const set = mine.length ? new Set([...up, ...mine]) : up;
    memo.set(id, set);
    return set;
  };
  const inclusive = groups.map(() => 0);
  const byFunction = new Map();
  for (const [id, t] of self) {
    for (const g of groupsOf(id)) inclusive[g] += t;
    const f = frameOf(nodes.get(id).callFrame);
    const key = `${f.name} ${where(f)}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
  }
  const ms = (us) => `${(us / 1000).toFixed(0)} ms`;
  const share = (us) => `${((100 * us) / total).toFixed(1)} %`;
  const perCall = (us) => (calls ? `, ${(us / calls).toFixed(1)} µs/call` : '');
  const out = [`${ms(total)} of samples${calls ? ` over ${calls} calls (${(total / calls).toFixed(0)} µs/call)` : ''}`];
  out.push('', `Top ${top} functions by self time:`);
  for (const [key, t] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    out.push(`  ${share(t).padStart(7)}  ${ms(t).padStart(8)}  ${key}`);
  if (layerOf) {
    out.push('', 'Exclusive time by layer (each sample to the nearest frame a layer claims; sums to the whole):');
    for (const [label, t] of layers(profile, layerOf).layers)
      out.push(`  ${share(t).padStart(7)}  ${ms(t).padStart(8)}${perCall(t)}  ${label}`);
  }
  if (groups.length) {
    out.push('', 'Inclusive time by group (a sample counts once per group; groups overlap):');
    for (const [g, [label]] of groups.entries())
      out.push(
        `  ${share(inclusive[g]).padStart(7)}  ${ms(inclusive[g]).padStart(8)}${perCall(inclusive[g])}  ${label}`,
      );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/cpuprofile.mjs <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')), [], { top: top ? Number(top) : 30 }));
}
