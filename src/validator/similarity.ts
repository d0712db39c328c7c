/**
 * Nearest-key suggestion for UNKNOWN_FIELD: Ratcliff–Obershelp similarity 2·M/(|a|+|b|), where M counts
 * the characters of the matching blocks found by taking the longest common block (leftmost in `a`, then in `b`, on
 * ties) and recursing on both sides. This is what Python's difflib computes without its junk heuristics.
 */

export const SUGGESTION_THRESHOLD = 0.7;

/** Longest common block of a[aLo,aHi) and b[bLo,bHi): [i, j, size]; leftmost in a, then in b, on ties. */
function longestBlock(
  a: string,
  b: string,
  aLo: number,
  aHi: number,
  bLo: number,
  bHi: number,
): [number, number, number] {
  let bestI = aLo;
  let bestJ = bLo;
  let bestSize = 0;
  // lengths[j + 1] = length of the common suffix ending at a[i-1], b[j] (rolling DP row).
  let prev = new Array<number>(bHi - bLo + 1).fill(0);
  let curr = new Array<number>(bHi - bLo + 1).fill(0);
  for (let i = aLo; i < aHi; i++) {
    for (let j = bLo; j < bHi; j++) {
      const k = j - bLo + 1;
      if (a[i] === b[j]) {
        const size = prev[k - 1] + 1;
        curr[k] = size;
        // Strictly greater keeps the earliest start in a (then in b): ends are visited in increasing order, and a
        // block of equal size ending later also starts later.
        if (size > bestSize) {
          bestSize = size;
          bestI = i - size + 1;
          bestJ = j - size + 1;
        }
      } else {
        curr[k] = 0;
      }
    }
    [prev, curr] = [curr, prev];
  }
  return [bestI, bestJ, bestSize];
}

function matchingCharacters(a: string, b: string): number {
  let total = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [aLo, aHi, bLo, bHi] = queue.pop() as [number, number, number, number];
    if (aLo >= aHi || bLo >= bHi) continue;
    const [i, j, size] = longestBlock(a, b, aLo, aHi, bLo, bHi);
    if (size === 0) continue;
    total += size;
    queue.push([aLo, i, bLo, j], [i + size, aHi, j + size, bHi]);
  }
  return total;
}

export function similarity(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, b)) / total;
}

/**
 * Characters the two strings share as multisets: an upper bound on M (difflib's quick_ratio). Counted in UTF-16
 * code units, like the block matcher, so the bound holds for surrogate halves too.
 */
function sharedCharacters(a: string, b: string): number {
  const counts = new Map<number, number>();
  for (let j = 0; j < b.length; j++) counts.set(b.charCodeAt(j), (counts.get(b.charCodeAt(j)) ?? 0) + 1);
  let shared = 0;
  for (let i = 0; i < a.length; i++) {
    const n = counts.get(a.charCodeAt(i)) ?? 0;
    if (n > 0) {
      counts.set(a.charCodeAt(i), n - 1);
      shared++;
    }
  }
  return shared;
}

/** Whether a candidate whose score is at most `bound` could still win: reach the threshold, or beat the best. */
const canReach = (bound: number, bestScore: number, best: string | undefined): boolean =>
  best === undefined ? bound >= bestScore : bound > bestScore;

/** The candidate most similar to `key` if its similarity reaches the threshold; ties go to the earlier candidate. */
export function nearestKey(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = SUGGESTION_THRESHOLD;
  for (const candidate of candidates) {
    // Upper bounds on the score let most candidates (and any huge key) skip the quadratic scan; being bounds,
    // they never change the answer.
    const total = key.length + candidate.length;
    if (!canReach((2 * Math.min(key.length, candidate.length)) / total, bestScore, best)) continue;
    if (!canReach((2 * sharedCharacters(key, candidate)) / total, bestScore, best)) continue;
    const score = similarity(key, candidate);
    if (score > bestScore || (best === undefined && score === bestScore)) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}
