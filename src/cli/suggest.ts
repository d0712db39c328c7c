/** "Did you mean" for mistyped topics, verbs and flags, by the validator's similarity measure. */
import { similarity } from '../validator/similarity.js';

/** Looser than UNKNOWN_FIELD's 0.7: command words are short, and one typo in `set` is already 0.86. */
const THRESHOLD = 0.6;

/** The candidate most similar to `word` (first on ties), or undefined when none reaches the threshold. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let score = THRESHOLD;
  for (const c of candidates) {
    const s = similarity(word.toLowerCase(), c.toLowerCase());
    if (s >= score && (best === undefined || s > score)) {
      best = c;
      score = s;
    }
  }
  return best;
}

/** `. Did you mean "x"?` to append to a message, or nothing. */
export const didYouMean = (suggestion: string | undefined): string =>
  suggestion === undefined ? '' : `. Did you mean "${suggestion}"?`;
