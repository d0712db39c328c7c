/**
 * The repository stands alone: a clone with nothing beside it builds, tests and documents itself. No file points at
 * a folder outside the repository or at section numbers of a document it does not contain, and the architecture page
 * shows every folder of src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

const ROOTS = ['README.md', 'docs', 'src', 'test', 'scripts', 'bin', 'schemas'];
const SKIP = new Set(['test/fixtures']);
const SELF = relative(REPO, import.meta.filename);

function files(path: string): string[] {
  const rel = relative(REPO, path);
  if (SKIP.has(rel)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

// Spelled in pieces so this file does not match itself.
const PATTERNS: [string, RegExp][] = [
  ['a path to a folder beside the repository', new RegExp(`\\.\\./${'shared'}\\b`)],
  ['a section sign', new RegExp('\u00a7')],
  ['the amendments files', new RegExp(`${'amend'}ments-\\d`)],
];

describe('the repository stands alone', () => {
  it('no file points outside the repository or at section numbers', () => {
    const found: string[] = [];
    for (const file of ROOTS.flatMap((r) => files(join(REPO, r)))) {
      const rel = relative(REPO, file);
      if (rel === SELF) continue;
      const bytes = readFileSync(file);
      // A binary file (a screenshot in docs/) holds NUL bytes and no text to point with.
      if (bytes.includes(0)) continue;
      const text = bytes.toString('utf8');
      for (const [what, re] of PATTERNS) {
        text.split('\n').forEach((line, i) => {
          if (re.test(line)) found.push(`${rel}:${i + 1}: ${what}`);
        });
      }
    }
    expect(found).toEqual([]);
  });

  it('docs/architecture.md shows every folder of src/', () => {
    const page = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
    const folders = readdirSync(join(REPO, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    for (const f of folders) expect(page, f).toMatch(new RegExp(`src/${f}/`));
  });
});
