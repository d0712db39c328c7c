import { describe, expect, it } from 'vitest';
import {
  dispatchPatterns,
  envPatterns,
  matches,
  parsePattern,
  patternsFromBlockValue,
  splitPatternList,
  type NeutralCall,
} from '../../src/approvals/patterns.js';
import { isHandoffError } from '../../src/errors.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isHandoffError(e) ? `${e.code}/${e.exit}` : 'NOT_A_HANDOFF_ERROR';
  }
  return undefined;
};

describe('approval patterns', () => {
  it.each(['Bash(git push *)', 'Bash(rm -rf *)', 'Write(migrations/**)', 'Edit(src/*.ts)', 'mcp__*__deploy'])(
    'accepts %s',
    (p) => expect(parsePattern(p).text).toBe(p),
  );

  it.each([
    ['Read(secrets/**)', 'unknown class'],
    ['WebFetch', 'unknown class'],
    ['bash(git push *)', 'unknown class'],
    ['Bash()', 'needs a command'],
    ['mcp__deploy', 'mcp__SERVER__TOOL'],
    ['', 'blank'],
    ['Bash(git\u001b[2Jpush)', 'control character'],
    [`Bash(${'x'.repeat(1000)})`, 'longer than'],
  ])('refuses %j with APPROVAL_PATTERN_INVALID, exit 2 (%s)', (p, why) => {
    expect(codeOf(() => parsePattern(p))).toBe('APPROVAL_PATTERN_INVALID/2');
    expect(() => parsePattern(p)).toThrow(why);
  });

  it('splits the project default on ; and line breaks outside parentheses', () => {
    expect(splitPatternList('Bash(a; b);Write(x/**)\nmcp__s__t; ')).toEqual(['Bash(a; b)', 'Write(x/**)', 'mcp__s__t']);
    expect(envPatterns({ HANDOFF_APPROVAL_PATTERNS: 'Bash(git push *); Edit(docs/**)' }).map((p) => p.cls)).toEqual([
      'Bash',
      'Edit',
    ]);
    expect(envPatterns({})).toEqual([]);
    expect(codeOf(() => envPatterns({ HANDOFF_APPROVAL_PATTERNS: 'Bash(x); Grep(y)' }))).toBe(
      'APPROVAL_PATTERN_INVALID/2',
    );
  });

  it('a dispatch lists the flags first, then the project default, without duplicates, at most 64', () => {
    expect(dispatchPatterns(['Bash(x)', 'Bash(x)'], { HANDOFF_APPROVAL_PATTERNS: 'Bash(x);Write(y)' })).toEqual([
      'Bash(x)',
      'Write(y)',
    ]);
    const many = Array.from({ length: 65 }, (_, i) => `Bash(c${i})`);
    expect(codeOf(() => dispatchPatterns(many, {}))).toBe('APPROVAL_PATTERN_INVALID/2');
  });

  it('reads a block line back, dropping items that do not parse', () => {
    expect(patternsFromBlockValue('Bash(git push *); Nope(x); mcp__a__b').map((p) => p.text)).toEqual([
      'Bash(git push *)',
      'mcp__a__b',
    ]);
  });

  const bash = (command: string): NeutralCall => ({ cls: 'Bash', command });
  it.each<[string, NeutralCall, boolean]>([
    ['Bash(git push *)', bash('git push --force origin main'), true],
    ['Bash(git push *)', bash('  git   push origin'), true],
    ['Bash(git push *)', bash('cd repo && git push origin'), true],
    ['Bash(git push *)', bash('git status'), false],
    ['Bash(git push:*)', bash('git push'), true],
    ['Bash(rm -rf *)', bash('ls; rm -rf /tmp/x'), true],
    ['Bash(git push *)', { cls: 'Write', path: 'git push x' }, false],
    ['Write(migrations/**)', { cls: 'Write', path: 'migrations/0008_x.sql' }, true],
    ['Write(migrations/**)', { cls: 'Edit', path: 'migrations/sub/a.sql' }, true],
    ['Edit(src/*.ts)', { cls: 'Edit', path: 'src/a/b.ts' }, false],
    ['Edit(src/*.ts)', { cls: 'Write', path: 'src/b.ts' }, true],
    ['Write(**/*.sql)', { cls: 'Write', path: 'a.sql' }, true],
    ['Write(migrations/**)', { cls: 'Edit', path: 'src/a.ts', more: ['migrations/0009.sql'] }, true],
    ['Write(migrations/**)', { cls: 'Edit', path: 'src/a.ts', more: ['docs/x.md'] }, false],
    ['mcp__*__deploy', { cls: 'mcp', tool: 'mcp__prod__deploy' }, true],
    ['mcp__*__deploy', { cls: 'mcp', tool: 'mcp__prod__status' }, false],
    ['mcp__*__deploy', { cls: 'other', tool: 'mcp__prod__deploy' }, false],
  ])('%s on %j: %s', (p, call, want) => expect(matches(parsePattern(p), call)).toBe(want));
});
