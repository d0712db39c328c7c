/**
 * The validator's public cases are test data kept in this repository (test/fixtures/validator-public.jsonl, refreshed
 * by scripts/vendor-cases.mjs). Their hash is pinned, so a changed file is a deliberate change of this test too. When
 * an upstream copy of the cases is present (HANDOFF_CASES_UPSTREAM names the file, or the team's case folder is
 * checked out beside this repository), it must still match: a drift check for maintainers; nobody else needs it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASES_PATH, loadValidatorCases, repoRoot } from '../helpers/validator-corpus.js';

export const CASES_SHA256 = 'e54baaa4ddde289f2bb9eee732c66f18677368dd5a881e3d116838f6de14c87b';
const CASES_COUNT = 153;

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The upstream file, when this machine has one. */
function upstream(): string | undefined {
  const named = process.env.HANDOFF_CASES_UPSTREAM;
  if (named !== undefined && named !== '') return named;
  // Maintainers only: where the team keeps the upstream cases beside its checkout. Users never need this folder.
  const beside = resolve(repoRoot, '..', 'shared', 'cases', 'validator-public.jsonl');
  return existsSync(beside) ? beside : undefined;
}

describe('the vendored validator cases', () => {
  it('have the pinned sha256 and case count', () => {
    expect(sha256(CASES_PATH)).toBe(CASES_SHA256);
    expect(loadValidatorCases()).toHaveLength(CASES_COUNT);
  });

  it('still match the upstream copy when one is present (optional drift check)', () => {
    const source = upstream();
    if (source === undefined) return; // no upstream here: the pinned hash above is the check
    expect(
      sha256(source),
      `${source} differs from test/fixtures: run node scripts/vendor-cases.mjs ${source} and update CASES_SHA256`,
    ).toBe(CASES_SHA256);
  });

  it('live in the repository, not outside it', () => {
    expect(CASES_PATH).toBe(join(repoRoot, 'test', 'fixtures', 'validator-public.jsonl'));
  });
});
