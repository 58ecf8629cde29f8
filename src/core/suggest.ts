/** "Did you mean …" for misspelt names: the closest candidate within a small edit distance. */

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The best match for `input` among `candidates`, or undefined when nothing is close enough. */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    // Case-only differences are the most likely typo of all.
    const score = c.toLowerCase() === lower ? 0.5 : editDistance(lower, c.toLowerCase());
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  const limit = Math.max(1, Math.floor(input.length / 3));
  return bestScore <= limit ? best : undefined;
}

/** `did you mean "x"?` or an empty string. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const c = closest(input, candidates);
  return c === undefined ? '' : `did you mean "${c}"?`;
}

export function quoteList(items: Iterable<string>): string {
  return [...items].map((i) => `"${i}"`).join(', ');
}
