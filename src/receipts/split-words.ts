import { displayCommand } from './quote.js';

/**
 * POSIX shell word splitting with quotes and backslashes only (no expansion of any kind): how a claimed
 * `verification.command` is read as an argv, so `echo "a b"` and `echo 'a b'` name the same command. Returns
 * undefined for a text a shell would not accept as complete (an open quote, a trailing backslash).
 */
export function splitWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (ch === '\\') {
      if (i + 1 >= text.length) return undefined;
      // A backslash-newline is a line continuation: both go.
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i++;
      inWord = true;
      for (;;) {
        if (i >= text.length) return undefined;
        const c = text[i];
        if (c === '"') break;
        if (c === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1])) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
        } else {
          word += c;
          i++;
        }
      }
      i++;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * A claimed command matches a receipt when the trimmed strings are equal or, for a receipt that ran an argv (not a
 * shell string), when the claim splits into exactly that argv. A shell receipt compares strings only.
 */
export function claimMatchesReceipt(
  claimed: string,
  receipt: { command: string; shell: boolean; argv: readonly string[] | undefined },
): boolean {
  if (receipt.command.trim() === claimed.trim()) return true;
  if (receipt.shell || receipt.argv === undefined) return false;
  // The argv must be the one the receipt's command shows (a row whose two columns disagree matches by string only).
  if (displayCommand(receipt.argv, false) !== receipt.command) return false;
  const words = splitWords(claimed);
  return words !== undefined && words.length === receipt.argv.length && words.every((w, k) => w === receipt.argv![k]);
}
