/** Loads the validator's public case file, kept as test data in test/fixtures/ (its hash is pinned in cases-pin.test.ts). */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ValidatorCase {
  name: string;
  envelope: unknown;
  expected_codes: string[];
  expected_errors: [string, string][];
  ok: boolean;
  context?: Record<string, unknown>;
  divergence?: string;
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CASES_PATH = resolve(repoRoot, 'test/fixtures/validator-public.jsonl');

export function loadValidatorCases(): ValidatorCase[] {
  return readFileSync(CASES_PATH, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ValidatorCase);
}
