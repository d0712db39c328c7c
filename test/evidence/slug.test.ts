import { describe, expect, it } from 'vitest';
import { checkSlug, isSafeSlug, workspaceSlug } from '../../src/evidence/slug.js';
import { HandoffError } from '../../src/errors.js';

const accepted = ['payments-hardening', 'AC-1', 'ac_2.b', 'v1.2', 'a', '9', 'x'.repeat(64)];
const refused = [
  '../x',
  '..',
  'a..b',
  'a/b',
  'a\\b',
  '.hidden',
  '-x',
  '_x',
  '',
  'a b',
  'AC-1\n',
  'é',
  'x'.repeat(65),
  'a\0b',
  ' a',
  'AC-1 ',
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as HandoffError).code;
  }
}

describe('safe slug', () => {
  it.each(accepted)('accepts %j', (v) => expect(isSafeSlug(v)).toBe(true));
  it.each(refused)('refuses %j', (v) => expect(isSafeSlug(v)).toBe(false));
  it('accepts a trailing dot (only ".." is forbidden)', () => expect(isSafeSlug('a.')).toBe(true));
  it('refuses non-strings', () => {
    for (const v of [5, null, undefined, ['a'], {}]) expect(isSafeSlug(v)).toBe(false);
  });
  it('checkSlug throws UNSAFE_SLUG exit 2 and never rewrites the value', () => {
    expect(checkSlug('AC-1', '--ac')).toBe('AC-1');
    const err = (() => {
      try {
        checkSlug('a b', '--ac');
      } catch (e) {
        return e as HandoffError;
      }
      return undefined;
    })();
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'UNSAFE_SLUG', exit: 2 });
    expect(err?.message).toContain('--ac');
  });
  it('workspace: flag, then $HANDOFF_WORKSPACE (each checked as is), then the folder name made into a slug', () => {
    expect(workspaceSlug('ws', {}, '/tmp')).toBe('ws');
    expect(workspaceSlug(undefined, { HANDOFF_WORKSPACE: 'env-ws' }, '/tmp')).toBe('env-ws');
    expect(workspaceSlug(undefined, {}, '/tmp/My Project')).toBe('My-Project');
    expect(codeOf(() => workspaceSlug('../x', {}, '/tmp'))).toBe('UNSAFE_SLUG');
    expect(codeOf(() => workspaceSlug(undefined, { HANDOFF_WORKSPACE: 'a b' }, '/tmp'))).toBe('UNSAFE_SLUG');
  });
});
