/** `contract gate --timeout`: a duration with its unit, 100ms to 600s, default 20 s; anything else is bad input. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_TIMEOUT_MS, parseGateTimeout } from '../../src/gate/budget.js';
import { run, tempHome } from '../helpers/cli.js';

describe('--timeout', () => {
  it('takes 20s or 1500ms forms; the default is 20 s', () => {
    expect(parseGateTimeout(undefined)).toBe(DEFAULT_GATE_TIMEOUT_MS);
    expect(DEFAULT_GATE_TIMEOUT_MS).toBe(20_000);
    expect(parseGateTimeout('20s')).toBe(20_000);
    expect(parseGateTimeout('1500ms')).toBe(1500);
    expect(parseGateTimeout('600s')).toBe(600_000);
  });

  it('refuses a bare number, a fraction, another unit, and values outside 100ms..600s (USAGE)', () => {
    for (const bad of ['20', '1.5s', '2m', '99ms', '601s', '0s', '', ' 20s', '20S']) {
      expect(() => parseGateTimeout(bad), bad).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });

  it('a bad --timeout fails open: exit 1, stop not gated', () => {
    const r = run(tempHome(), ['contract', 'gate', '--draft-id', 'a0123456789abcdef.0123456789ab', '--timeout', '20']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--timeout "20" must be a duration.*stop not gated/);
  });
});
