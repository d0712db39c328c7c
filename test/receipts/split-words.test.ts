/** A claimed command is compared with a receipt's argv under POSIX quoting (quotes and backslashes, no expansion). */
import { describe, expect, it } from 'vitest';
import { claimMatchesReceipt, splitWords } from '../../src/receipts/split-words.js';

describe('splitWords', () => {
  it.each([
    ['echo "a b"', ['echo', 'a b']],
    ["echo 'a b'", ['echo', 'a b']],
    ['echo a\\ b', ['echo', 'a b']],
    ['  npm   test  ', ['npm', 'test']],
    ['echo "x\\"y" \'$HOME\' "$HOME"', ['echo', 'x"y', '$HOME', '$HOME']],
    ['echo "a\\nb"', ['echo', 'a\\nb']],
    ['a\'\'b ""', ['ab', '']],
    ['a \\\nb', ['a', 'b']],
    ['', []],
  ])('%j splits into %j', (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });

  it.each(['echo "a', "echo 'a", 'echo a\\'])('%j is not complete: undefined', (text) => {
    expect(splitWords(text)).toBeUndefined();
  });
});

describe('claimMatchesReceipt', () => {
  const argvReceipt = { command: "echo 'a b'", shell: false, argv: ['echo', 'a b'] };
  it('a row whose argv does not show as its command matches by string only', () => {
    expect(
      claimMatchesReceipt('npm test', { command: 'npm test -- --grep x', shell: false, argv: ['npm', 'test'] }),
    ).toBe(false);
  });
  it('an argv receipt matches every quoting of its argv, and the trimmed string itself', () => {
    for (const claim of ['echo "a b"', "echo 'a b'", 'echo a\\ b', "  echo 'a b' "])
      expect(claimMatchesReceipt(claim, argvReceipt), claim).toBe(true);
    for (const claim of ['echo a b', 'echo "a b" c', 'echo "a b', 'echo'])
      expect(claimMatchesReceipt(claim, argvReceipt), claim).toBe(false);
  });

  it('a shell receipt compares strings only', () => {
    const shell = { command: "echo 'a b'", shell: true, argv: ["echo 'a b'"] };
    expect(claimMatchesReceipt("echo 'a b'", shell)).toBe(true);
    expect(claimMatchesReceipt('echo "a b"', shell)).toBe(false);
  });
});
