/**
 * Our own stderr lines come after the child's output, each on its own line: when the child's
 * last output on stderr (or, under --json, its stdout passed to stderr) did not end with a newline, one is written
 * before the notice or the `Receipt … recorded` line, and only then.
 */
import { describe, expect, it } from 'vitest';
import { closeWith, freshHome, hf, hfRaw, newDraft } from '../helpers/receipts-cli.js';

const RECORDED = /^Receipt R-[0-9a-f]{16} recorded: exit=0 outcome=pass \d+(\.\d+)?m?s$/;
const lines = (text: string): string[] => text.split('\n');

describe('evidence run: our lines start on a fresh stderr line', () => {
  it('human mode: child stderr without a final newline, then the recorded line on its own line', () => {
    const home = freshHome();
    const d = newDraft(home);
    const r = hf(home, ['evidence', 'run', '--draft-id', d, '--', 'sh', '-c', 'printf no-newline >&2']);
    expect(r.code, r.stderr).toBe(0);
    const [first, second, rest] = [lines(r.stderr)[0], lines(r.stderr)[1], lines(r.stderr).slice(2)];
    expect(first).toBe('no-newline');
    expect(second).toMatch(RECORDED);
    expect(rest).toEqual(['']);
  });

  it('human mode: a child whose stderr ends with a newline gets no extra blank line; stdout stays byte-exact', () => {
    const home = freshHome();
    const d = newDraft(home);
    const r = hfRaw(home, [
      'evidence',
      'run',
      '--draft-id',
      d,
      '--',
      'sh',
      '-c',
      'printf "out-no-newline"; printf "line\\n" >&2',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toBe('out-no-newline');
    const err = lines(r.stderr.toString());
    expect(err[0]).toBe('line');
    expect(err[1]).toMatch(RECORDED);
    expect(err.length).toBe(3);
  });

  it('--json: child stdout (passed to stderr) without a newline, then the closed-tip notice on its own line', () => {
    const home = freshHome();
    const d = newDraft(home);
    expect(closeWith(home, d, { type: 'self_review', reviewed: 'the diff', result: 'pass' }).code).toBe(0);
    const r = hf(home, ['evidence', 'run', '--json', '--draft-id', d, '--', 'sh', '-c', 'printf no-newline']);
    expect(r.code).toBe(0);
    const id = r.json.receipt.receipt_id as string;
    expect(r.stderr).toBe(`no-newline\n[RECEIPT NOT APPENDED: contract closed] ${id} ${d}\n`);
  });

  it('--json with no notice: stderr carries the child output unchanged (no newline added)', () => {
    const home = freshHome();
    const d = newDraft(home);
    const r = hfRaw(home, ['evidence', 'run', '--json', '--draft-id', d, '--', 'sh', '-c', 'printf no-newline']);
    expect(r.code).toBe(0);
    expect(r.stderr.toString()).toBe('no-newline');
    expect(JSON.parse(r.stdout.toString()).status).toBe('ok');
  });

  it('a timeout: [TIMED OUT] starts its own line after a partial child line (human and --json)', () => {
    const home = freshHome();
    const d = newDraft(home);
    const human = hf(home, [
      'evidence',
      'run',
      '--timeout',
      '1',
      '--draft-id',
      d,
      '--',
      'sh',
      '-c',
      'printf partial >&2; exec sleep 30',
    ]);
    expect(human.code).toBe(124);
    const h = lines(human.stderr);
    expect(h[0]).toBe('partial');
    expect(h[1]).toMatch(/^\[TIMED OUT\] after 1 s/);
    expect(h[2]).toMatch(/^Receipt R-[0-9a-f]{16} recorded: /);

    const json = hf(home, [
      'evidence',
      'run',
      '--json',
      '--timeout',
      '1',
      '--draft-id',
      d,
      '--',
      'sh',
      '-c',
      'printf partial; exec sleep 30',
    ]);
    expect(json.code).toBe(124);
    expect(lines(json.stderr).slice(0, 2)).toEqual(['partial', expect.stringMatching(/^\[TIMED OUT\] after 1 s/)]);
  });
});

describe('contract verify: the same rule', () => {
  it('human mode: the recorded line and the OK line each start a fresh line', () => {
    const home = freshHome();
    const d = newDraft(home);
    const patch = { evidence_report: { verification: { type: 'command', command: 'printf out; printf err >&2' } } };
    expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(patch)]).code).toBe(0);
    const r = hf(home, ['contract', 'verify', '--draft-id', d]);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stderr)[0]).toBe('err');
    expect(lines(r.stderr)[1]).toMatch(RECORDED);
    expect(lines(r.stdout)[0]).toBe('out');
    expect(lines(r.stdout)[1]).toMatch(/^OK: verification passed/);
  });
});
