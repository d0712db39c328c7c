/** Table cells escape backslash, tab, newline, CR and other control characters. */
import { describe, expect, it } from 'vitest';
import { escapeCell, renderFields, renderTable } from '../../src/render/table.js';

describe('escapeCell', () => {
  it.each([
    ['a\\b', 'a\\\\b'],
    ['a\tb', 'a\\tb'],
    ['a\nb', 'a\\nb'],
    ['a\rb', 'a\\rb'],
    ['\u001b[31mred', '\\u001b[31mred'],
    ['nul\u0000bel\u0007del\u007f', 'nul\\u0000bel\\u0007del\\u007f'],
    ['c1\u009b', 'c1\\u009b'],
    ['ls\u2028ps\u2029', 'ls\\u2028ps\\u2029'],
    ['plain café ✓', 'plain café ✓'],
  ])('%j -> %j', (raw, escaped) => {
    expect(escapeCell(raw)).toBe(escaped);
  });
});

describe('renderTable', () => {
  it('keeps one line per row whatever the cells hold', () => {
    const text = renderTable(
      ['id', 'content'],
      [
        [1, 'rm -rf\tbuild\nthen\r\u001b[2Jreboot\\now'],
        [2, 'ok'],
      ],
    );
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('1   rm -rf\\tbuild\\nthen\\r\\u001b[2Jreboot\\\\now');
    expect(text).not.toMatch(/[\t\r]/);
    expect(text).not.toContain('\u001b');
  });
});

describe('renderFields', () => {
  it('one `key: value` line per field, values escaped', () => {
    expect(renderFields({ a: 'x\ny', b: null, c: 3 }).split('\n')).toEqual(['a: x\\ny', 'b: -', 'c: 3']);
  });
});
