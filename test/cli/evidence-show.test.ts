import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite.js';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { addBrief, expectRefusal } from '../helpers/evidence.js';
import { freshHome, hf, newDraft, nodeCmd, receipt } from '../helpers/receipts-cli.js';

const W = ['--workspace', 'ws', '--json'];
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function withEvidence(): { home: string; inline: any; blob: any } {
  const home = tempHome();
  addBrief(home, 'pay', ['AC-1']);
  const add = (text: string) =>
    run(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', text, ...W]).json
      .evidence;
  return { home, inline: add('short'), blob: add('L'.repeat(5000)) };
}

describe('evidence show', () => {
  it('prints the row; a blob adds blob_exists; --verify adds verified and actual_sha256', () => {
    const { home, inline, blob } = withEvidence();
    expect(run(home, ['evidence', 'show', '1', '--json']).json).toEqual({ status: 'ok', evidence: inline });
    expect(run(home, ['evidence', 'show', '2', '--json']).json).toEqual({
      status: 'ok',
      evidence: blob,
      blob_exists: true,
    });
    expect(run(home, ['evidence', 'show', '1', '--verify', '--json']).json).toEqual({
      status: 'ok',
      evidence: inline,
      verified: true,
      actual_sha256: sha('short'),
    });
    const v = run(home, ['evidence', 'show', '2', '--verify', '--json']);
    expect(v.code).toBe(0);
    expect(v.json).toMatchObject({ verified: true, blob_exists: true, actual_sha256: sha('L'.repeat(5000)) });
    expect(run(home, ['evidence', 'show', '2']).stdout).toContain('blob_exists: true');
  });

  it('--verify detects a blob changed on disk: EVIDENCE_HASH_MISMATCH exit 1, object still printed as rejected (--json only)', () => {
    const { home, blob } = withEvidence();
    writeFileSync(blob.artifact_path, 'L'.repeat(4999) + 'X');
    const r = run(home, ['evidence', 'show', '2', '--verify', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      status: 'rejected',
      code: 'EVIDENCE_HASH_MISMATCH',
      evidence: blob,
      blob_exists: true,
      verified: false,
      actual_sha256: sha('L'.repeat(4999) + 'X'),
    });
    expect(typeof r.json.error).toBe('string');
    // Human mode: a failure prints nothing on stdout, one Rejected: line on stderr.
    const human = run(home, ['evidence', 'show', '2', '--verify']);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^Rejected: evidence 2 failed verification/);
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run(home, ['evidence', 'show', '1', '--verify']).stdout).toContain('verified: true');
    expect(run(home, ['evidence', 'show', '2', '--json']).code).toBe(0);
  });

  it('--verify of a missing blob: EVIDENCE_HASH_MISMATCH, blob_exists false, actual_sha256 null', () => {
    const { home } = withEvidence();
    rmSync(run(home, ['evidence', 'show', '2', '--json']).json.evidence.artifact_path);
    const r = run(home, ['evidence', 'show', '2', '--verify', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      status: 'rejected',
      code: 'EVIDENCE_HASH_MISMATCH',
      blob_exists: false,
      verified: false,
      actual_sha256: null,
    });
  });

  it('--verify of altered inline text (edited in the DB) is a mismatch too', () => {
    const { home } = withEvidence();
    const db = new (loadSqlite())(join(home, 'handoff.db'));
    db.prepare("UPDATE evidence SET text = 'changed' WHERE id = 1").run();
    db.close();
    expect(run(home, ['evidence', 'show', '1', '--verify', '--json']).json).toMatchObject({
      code: 'EVIDENCE_HASH_MISMATCH',
      verified: false,
      actual_sha256: sha('changed'),
    });
  });

  it('EVIDENCE_NOT_FOUND (exit 3) for an unknown id and without a DB (nothing created)', () => {
    const home = tempHome();
    expectRefusal(run(home, ['evidence', 'show', '1', '--json']), 'EVIDENCE_NOT_FOUND', 3);
    expect(snapshot(home)).toEqual({});
    const { home: h2 } = withEvidence();
    expectRefusal(run(h2, ['evidence', 'show', '3', '--json']), 'EVIDENCE_NOT_FOUND', 3);
    expectRefusal(run(h2, ['evidence', 'show', String(2 ** 53 - 1), '--json']), 'EVIDENCE_NOT_FOUND', 3);
  });

  it.each([
    '0',
    '-1',
    '1.5',
    '1e3',
    'abc',
    '007',
    '',
    ' 1',
    '9007199254740992',
    'R-0123',
    'R-0123456789ABCDEF',
    'r-0123456789abcdef',
    'R-0123456789abcdef0',
  ])('row 22: ID %j -> exit 2', (id) => {
    const home = tempHome();
    const r = run(home, ['evidence', 'show', '--json', '--', id]);
    expectRefusal(r, 'USAGE', 2);
    expect(snapshot(home)).toEqual({});
  });

  it('a receipt id without a store, or without a row, is RECEIPT_NOT_FOUND (exit 3)', () => {
    const home = tempHome();
    expectRefusal(run(home, ['evidence', 'show', 'R-0123456789abcdef', '--json']), 'RECEIPT_NOT_FOUND', 3);
    expect(snapshot(home)).toEqual({});
    addBrief(home, 'pay');
    expectRefusal(run(home, ['evidence', 'show', 'R-0123456789abcdef', '--json']), 'RECEIPT_NOT_FOUND', 3);
  });

  it('a tampered receipt in human mode: exit 1, nothing on stdout, one Rejected: line; --json keeps the object', () => {
    const home = freshHome();
    const { receipt: rc } = receipt(home, newDraft(home), nodeCmd('process.stdout.write("z".repeat(5000))'));
    expect(hf(home, ['evidence', 'show', rc.receipt_id, '--verify']).stdout).toContain('verified: true');
    writeFileSync(rc.stdout_path, 'z'.repeat(4999));
    const human = hf(home, ['evidence', 'show', rc.receipt_id, '--verify']);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(new RegExp(`^Rejected: receipt ${rc.receipt_id} failed verification`));
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
    const json = hf(home, ['evidence', 'show', rc.receipt_id, '--verify', '--json']);
    expect(json.json).toMatchObject({ status: 'rejected', code: 'RECEIPT_TAMPERED', verified: false, receipt: rc });
  });

  it('a receipt prints its command so that pasting it into a shell gives the same argv', () => {
    const home = freshHome();
    const id = newDraft(home);
    const words = ['node', '-e', '0', '--', 'a b', "it's", 'back\\slash', '$HOME', 'line\nbreak', 'tab\there', ''];
    const r = hf(home, ['evidence', 'run', '--draft-id', id, '--json', '--', ...words]);
    expect(r.code, r.stdout).toBe(0);
    const shown = hf(home, ['evidence', 'show', r.json.receipt.receipt_id]);
    expect(shown.code).toBe(0);
    const line = shown.stdout
      .split('\n')
      .find((l) => l.startsWith('command: '))!
      .slice('command: '.length);
    // The shell splits the line back into words: printed NUL-separated, they are the receipt's argv.
    const sh = spawnSync('bash', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8', env: {} });
    expect(sh.status, sh.stderr).toBe(0);
    expect(sh.stdout.split('\0').slice(0, -1)).toEqual(words);
  });
});
