/**
 * Help text reads as prose: no words glued together where a description is built from concatenated strings, and
 * the root help's environment list names every variable the tool reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, run, tempHome } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, unknown>;
};
const verbs = Object.keys(manifest.commands).filter((id) => id !== 'help');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('help text', () => {
  it('no verb description joins two string pieces without a space between the words', () => {
    const glued: string[] = [];
    for (const file of sources(join(REPO, 'src', 'commands'))) {
      const text = readFileSync(file, 'utf8');
      // 'text ends here' +\n 'next piece': a word character on both sides of the join means the words touch.
      for (const m of text.matchAll(/(?<!\\)([\w<>.,;:)])(['"`])\s*\+\s*\n\s*['"`]([\w<(])/g))
        glued.push(`${file}: …${m[1]}|${m[3]}…`);
    }
    expect(glued).toEqual([]);
  });

  it('the built help of every verb has none of the words that used to be glued', () => {
    const home = tempHome();
    for (const id of verbs) {
      const h = run(home, [...id.split(':'), '--help']);
      expect(h.code, id).toBe(0);
      const flat = h.stdout.replace(/\s+/g, ' ');
      for (const word of ['pasteinto', 'runsbefore', 'hookinput', 'at<root>', 'contract(', 'row.Exit', 'blocksit']) {
        expect(flat, `${id}: ${word}`).not.toContain(word);
      }
    }
  });

  it('the environment list of `handoff help` names HANDOFF_STORE_URL', () => {
    const h = run(tempHome(), ['help']);
    expect(h.stdout).toMatch(/^ {2}HANDOFF_STORE_URL +postgres:/m);
  });
});
