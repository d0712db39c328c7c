/**
 * The pool's file order (test/helpers/sequencer.ts): each project's files stay together, longest first, except its
 * waiting files, which a simulated pool starts, longest first, only while fewer than `cap` waiting files run.
 */
import { describe, expect, it } from 'vitest';
import { spread, type Estimate } from '../helpers/sequencer.js';

/** Waiting files start with w, the others take 1 s each. */
const SECONDS: Record<string, number> = { wA: 3, wB: 2, wC: 4 };
const estimate = (f: string): Estimate => ({ seconds: SECONDS[f] ?? 1, waits: f.startsWith('w') });

describe('spreading the waiting files', () => {
  it('starts one only while fewer than cap run, longest first, as early as that allows; projects stay together', () => {
    const groups = [
      ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'wA'],
      ['b1', 'b2', 'wB', 'wC'],
    ];
    // Three workers, one waiting file at a time: wA runs from 0 to 3 beside a1-a6; the longer wC takes its place at 3;
    // wB waits for it, until the project has no other file left to start.
    expect(spread(groups, estimate, 3, 1)).toEqual(['wA', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'wC', 'b1', 'b2', 'wB']);
  });

  it('with room for two, starts two waiting files together', () => {
    expect(spread([['a1', 'a2', 'wB', 'wA']], estimate, 3, 2)).toEqual(['wA', 'wB', 'a1', 'a2']);
  });

  it('runs the other files longest first, in their given order where equal', () => {
    const long = (f: string): Estimate => ({ seconds: f === 'b' ? 5 : 1, waits: false });
    expect(spread([['c', 'a', 'b'], ['z']], long, 4, 2)).toEqual(['b', 'c', 'a', 'z']);
    expect(spread([['c', 'a', 'b'], ['z']], estimate, 4, 2)).toEqual(['c', 'a', 'b', 'z']);
  });
});
