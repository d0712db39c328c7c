/**
 * The split of vitest.config.ts holds: the `in-process` and `process` projects share modules between files (not
 * isolated), so a file that replaces a module or an export (`vi.mock`, `vi.doMock`, `vi.spyOn`) must run isolated,
 * in `mocking`, and `mocking` lists only files that do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONG, MOCKING, PROCESS, WAITING } from '../../vitest.config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REPLACES = /\bvi\.(mock|doMock|spyOn|stubGlobal|stubEnv)\(/;

/** Every test file, relative to the repository (`test/...`). */
const testFiles = (): string[] =>
  readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join('test', f));

/** A config entry as a pattern: `*` stands for any part of one file name. */
const matches = (entry: string, file: string): boolean =>
  new RegExp(`^${entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`).test(file);

describe('the vitest projects', () => {
  const files = testFiles();
  const replacing = files.filter((f) => REPLACES.test(readFileSync(join(ROOT, f), 'utf8')));

  it('finds the test files, some of which replace a module', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(replacing).toContain('test/ids.test.ts');
  });

  it('runs every file that replaces a module or an export isolated, in mocking', () => {
    expect(replacing.filter((f) => !MOCKING.includes(f))).toEqual([]);
  });

  it('lists in mocking only existing files that replace something, none of them also in process', () => {
    expect(MOCKING.filter((f) => !replacing.includes(f))).toEqual([]);
    expect(MOCKING.filter((f) => PROCESS.some((entry) => matches(entry, f)))).toEqual([]);
  });

  it('lists as waiting or long only existing files, each once, with a positive duration', () => {
    const listed = [...Object.entries(WAITING), ...Object.entries(LONG)];
    expect(Object.keys(WAITING).length).toBeGreaterThan(5);
    expect(listed.filter(([f, s]) => !files.includes(f) || !(s > 0))).toEqual([]);
    expect(Object.keys(LONG).filter((f) => f in WAITING)).toEqual([]);
  });
});
