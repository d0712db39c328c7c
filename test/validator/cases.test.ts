/** The validator's public case file: every case must yield exactly its ordered [code, path] pairs and its ok. */
import { describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/validator/index.js';
import { loadValidatorCases } from '../helpers/validator-corpus.js';

const cases = loadValidatorCases();

describe('validator-public.jsonl', () => {
  it('holds the expected corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(153);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = validateEnvelope(c.envelope, c.context ?? {});
    expect(result.errors.map((e) => [e.code, e.path])).toEqual(c.expected_errors);
    expect(result.ok).toBe(c.ok);
    expect([...new Set(result.codes)].sort()).toEqual(c.expected_codes);
  });
});
