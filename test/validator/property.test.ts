/**
 * Properties of the form layer and canonicalization over arbitrary JSON and over mutated valid envelopes:
 * never throws, well-formed result, codes consistent with errors and the registry, input untouched, and
 * canonicalization never changes a verdict. Fixed seed, a few thousand runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatorCodes } from '../../src/codes/validator.js';
import { canonicalizeEnvelope, validateEnvelope, type ValidationResult } from '../../src/validator/index.js';
import { BASES, ENVELOPE_KEYS, mutated } from '../helpers/validator-arbitraries.js';

const SEED = 424242;
const REGISTRY = new Set(validatorCodes.map((c) => c.code));

const options = fc.record(
  { consolidation: fc.boolean(), source: fc.constantFrom('declaration', 'row'), extra: fc.jsonValue() },
  { requiredKeys: [] },
);

/**
 * Deep equality plus byte-equal JSON (key order included). Not toStrictEqual: its type check reads `.constructor`,
 * which is an ordinary own key in these envelopes.
 */
function expectUntouched(value: unknown, clone: unknown, text: string): void {
  expect(value).toEqual(clone);
  expect(JSON.stringify(value)).toBe(text);
}

function checkResult(input: unknown, opts: unknown): ValidationResult {
  const before = structuredClone(input);
  const text = JSON.stringify(input);
  const r = validateEnvelope(input, opts as Record<string, unknown>);
  expectUntouched(input, before, text);
  expect(typeof r.ok).toBe('boolean');
  expect(typeof r.repair).toBe('string');
  expect(r.ok).toBe(r.errors.length === 0);
  expect(r.codes).toEqual([...new Set(r.errors.map((e) => e.code))]);
  for (const e of r.errors) {
    expect(Object.keys(e)).toEqual(['code', 'path', 'detail']);
    expect(REGISTRY.has(e.code)).toBe(true);
    expect(typeof e.path).toBe('string');
    expect(typeof e.detail).toBe('string');
    expect(e.detail.length).toBeGreaterThan(0);
  }
  return r;
}

const pairsOf = (r: ValidationResult) => r.errors.map((e) => [e.code, e.path]);

describe('validateEnvelope properties', () => {
  it('never throws on arbitrary JSON values and returns a well-formed result', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), options, (value, opts) => {
        checkResult(value, opts);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('never throws on arbitrary JSON objects dressed as envelopes', () => {
    const envelopeLike = fc.dictionary(fc.constantFrom(...ENVELOPE_KEYS), fc.jsonValue({ maxDepth: 3 }));
    fc.assert(
      fc.property(envelopeLike, options, (value, opts) => {
        checkResult(value, opts);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('never throws on mutated valid envelopes', () => {
    for (const base of BASES) expect(validateEnvelope(base).ok).toBe(true);
    const seen = new Set<string>();
    fc.assert(
      fc.property(mutated, options, (value, opts) => {
        for (const code of checkResult(value, opts).codes) seen.add(code);
      }),
      { seed: SEED, numRuns: 2500 },
    );
    // The generator must reach most of the form layer to be worth its runs.
    expect(seen.size).toBeGreaterThanOrEqual(14);
  });
});

describe('canonicalizeEnvelope properties', () => {
  it('never changes the verdict, never mutates its input, and is idempotent', () => {
    fc.assert(
      fc.property(mutated, fc.boolean(), (value, consolidation) => {
        const before = structuredClone(value);
        const text = JSON.stringify(value);
        const raw = checkResult(value, { consolidation });
        const { envelope, changes } = canonicalizeEnvelope(value);
        expectUntouched(value, before, text);
        const canonical = checkResult(envelope, { consolidation });
        expect(canonical.ok).toBe(raw.ok);
        expect(canonical.codes).toEqual(raw.codes);
        expect(pairsOf(canonical)).toEqual(pairsOf(raw));
        for (const c of changes) expect(c.from).not.toBe(c.to);
        expect(canonicalizeEnvelope(envelope).changes).toEqual([]);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('keeps valid envelopes valid', () => {
    for (const base of BASES) {
      const { envelope } = canonicalizeEnvelope(base);
      expect(validateEnvelope(envelope).ok).toBe(true);
    }
  });
});
