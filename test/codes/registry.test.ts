import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_CODES } from '../../src/codes/index.js';
import { renderErrorsDoc } from '../../src/codes/doc.js';
import { REPO } from '../helpers/cli.js';

const EXITS = new Set([0, 1, 2, 3, 4, 70]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('code registry', () => {
  it('has each code once, with an exit code from the table and documentation text', () => {
    const seen = new Set<string>();
    for (const c of ALL_CODES) {
      expect(c.code, 'codes are UPPER_SNAKE').toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(seen.has(c.code), `duplicate registry entry ${c.code}`).toBe(false);
      seen.add(c.code);
      expect(EXITS.has(c.exit), `${c.code} exit ${c.exit}`).toBe(true);
      expect(c.when.trim().length, `${c.code} when`).toBeGreaterThan(10);
      expect(c.repair.trim().length, `${c.code} repair`).toBeGreaterThan(10);
    }
  });

  it('docs/errors.md is exactly what the registry renders (npm run docs:errors)', () => {
    const committed = readFileSync(join(REPO, 'docs', 'errors.md'), 'utf8');
    expect(committed).toBe(renderErrorsDoc());
  });

  it('docs/errors.md has one section per registered code and no other', () => {
    const doc = readFileSync(join(REPO, 'docs', 'errors.md'), 'utf8');
    const sections = [...doc.matchAll(/^### ([A-Z0-9_]+)$/gm)].map((m) => m[1]).sort();
    expect(sections).toEqual(ALL_CODES.map((c) => c.code).sort());
  });

  it('every code the source throws or returns is registered', () => {
    const registered = new Set(ALL_CODES.map((c) => c.code));
    const used = new Set<string>();
    for (const file of sourceFiles(join(REPO, 'src'))) {
      if (file.includes(`${join('src', 'codes')}`)) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/new HandoffError\(\s*'([A-Z][A-Z0-9_]+)'/g)) used.add(m[1]);
      for (const m of text.matchAll(/\bcode: '([A-Z][A-Z0-9_]+)'/g)) used.add(m[1]);
    }
    const missing = [...used].filter((c) => !registered.has(c)).sort();
    expect(missing).toEqual([]);
    expect(used.size).toBeGreaterThan(20);
  });
});
