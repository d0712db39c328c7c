import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERB_EXITS, verbExit } from '../../src/codes/exits.js';
import { ALL_CODES } from '../../src/codes/index.js';
import { errorOutput } from '../../src/cli/output.js';
import { EXIT, HandoffError } from '../../src/errors.js';

const verb = (id: string) => ({ id, usage: `handoff ${id}`, failOpen: id === 'contract gate' });

describe('exits from the code registry', () => {
  it('a HandoffError built from a code takes its exit from the registry', () => {
    for (const c of ALL_CODES) expect(new HandoffError(c.code as 'USAGE', 'm').exit, c.code).toBe(c.exit);
    expect(new HandoffError('DRAFT_NOT_FOUND', 'no draft').exit).toBe(EXIT.NOT_FOUND);
    expect(new HandoffError('STORE_BUSY', 'busy', { a: 1 }, 'again').status).toBe('error');
    expect(new HandoffError('DRAFT_EXISTS', 'exists').status).toBe('rejected');
  });

  it('the compiler rejects a code that is not registered', () => {
    // @ts-expect-error: NO_SUCH_CODE is not in src/codes/.
    const e = new HandoffError('NO_SUCH_CODE', 'message');
    expect(e.exit).toBe(EXIT.INTERNAL);
  });

  it('the old form with an explicit exit still builds the same error', () => {
    const e = new HandoffError('USAGE', EXIT.USAGE, 'bad flag', { flag: 'x' }, 'see --help');
    expect([e.code, e.exit, e.message, e.data, e.hint]).toEqual(['USAGE', 2, 'bad flag', { flag: 'x' }, 'see --help']);
  });
});

describe('per-verb exit overrides', () => {
  it('RECEIPT_NOT_FOUND is 1 (a rejection) by default and 3 in evidence show', () => {
    expect(new HandoffError('RECEIPT_NOT_FOUND', 'no receipt').exit).toBe(1);
    expect(verbExit('evidence show', 'RECEIPT_NOT_FOUND', 1)).toBe(3);
    expect(verbExit('contract finalize', 'RECEIPT_NOT_FOUND', 1)).toBe(1);
    expect(verbExit(undefined, 'RECEIPT_NOT_FOUND', 1)).toBe(1);
  });

  it('the gate turns every failure of its own into exit 1, a bug stays 70', () => {
    expect(verbExit('contract gate', 'USAGE', 2)).toBe(1);
    expect(verbExit('contract gate', 'STORE_UNREACHABLE', 4)).toBe(1);
    expect(verbExit('contract gate', 'INTERNAL', 70)).toBe(70);
    expect(verbExit('contract list', 'USAGE', 2)).toBe(2);
  });

  it('the override is applied where the failure becomes output, with the status of the exit it gives', () => {
    const e = new HandoffError('RECEIPT_NOT_FOUND', 'no receipt R-0123456789abcdef;', {
      receipt_id: 'R-0123456789abcdef',
    });
    const shown = errorOutput(e, true, verb('evidence show'), {});
    expect(shown.exit).toBe(3);
    expect(JSON.parse(shown.stdout ?? '')).toMatchObject({ status: 'error', code: 'RECEIPT_NOT_FOUND' });
    const elsewhere = errorOutput(e, false, verb('contract verify'), {});
    expect(elsewhere.exit).toBe(1);
    expect(elsewhere.stderr).toMatch(/^Rejected: .*\[RECEIPT_NOT_FOUND\]\n$/);
    const gate = errorOutput(new HandoffError('USAGE', 'bad flag'), false, verb('contract gate'), {});
    expect(gate.exit).toBe(1);
    expect(gate.stderr).toMatch(/Stop not gated\./);
  });

  it('every override names a registered code and an exit from the table', () => {
    const codes = new Set(ALL_CODES.map((c) => c.code));
    for (const [id, table] of Object.entries(VERB_EXITS)) {
      expect(id).toMatch(/^[a-z]+ [a-z]+$/);
      for (const [code, exit] of Object.entries(table)) {
        expect(code === '*' || codes.has(code), `${id}: ${code}`).toBe(true);
        expect([0, 1, 2, 3, 4]).toContain(exit);
      }
    }
  });
});

describe('throw sites', () => {
  it('no throw site restates an exit: the registry (and a verb override) gives it', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = join(dir, name);
        return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
      });
    const restated: string[] = [];
    for (const file of walk(join(import.meta.dirname, '..', '..', 'src'))) {
      const text = readFileSync(file, 'utf8');
      // The one rethrow that keeps an error's own exit while adding to its message passes `e.exit` on purpose.
      for (const m of text.matchAll(/new HandoffError\(\s*([^,]+),\s*(EXIT\.[A-Z_]+|\d+),/g))
        restated.push(`${file}: ${m[1].trim()} ${m[2]}`);
    }
    expect(restated).toEqual([]);
  });
});

describe('contract wait, the second exception to the exit table', () => {
  it('docs/errors.md shows its table: one exit per closing state, 14 degraded, 124 on timeout', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
    const rows = [
      ...doc.matchAll(
        /^\| (\d+) \| (COMPLETE|NEEDS_VERIFICATION|BLOCKED|NEEDS_INPUT|APPROVAL_REQUEST|closed degraded|the timeout)/gm,
      ),
    ];
    expect(rows.map((m) => [Number(m[1]), m[2]])).toEqual([
      [0, 'COMPLETE'],
      [10, 'NEEDS_VERIFICATION'],
      [11, 'BLOCKED'],
      [12, 'NEEDS_INPUT'],
      [13, 'APPROVAL_REQUEST'],
      [14, 'closed degraded'],
      [124, 'the timeout'],
    ]);
    expect(doc).toMatch(/`handoff contract wait` is the second exception/);
  });
});
