/**
 * A stored row can say anything: `evidence show --verify`, finalize and the stop gate never read a file outside the
 * evidence root, whatever an evidence row or a receipt row names (EVIDENCE_PATH_ESCAPE, exit 1 / a block). The rows
 * are altered behind the store's triggers, their digests recomputed, as an agent with write access to the file could.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeRowSha256, type ReceiptRow } from '../../src/receipts/row.js';
import { closeWith, fillClose, freshHome, hf, newDraft, nodeCmd, receipt, WS } from '../helpers/receipts-cli.js';

/** A file outside every data root, with the digest a forger would write into the row. */
function outsideFile(): { path: string; sha256: string; size: number } {
  const path = join(mkdtempSync(join(tmpdir(), 'handoff-outside-')), 'secret.txt');
  writeFileSync(path, 'not yours\n');
  const bytes = readFileSync(path);
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

/** Points the receipt's stdout at `path` (digest and row digest recomputed), behind the immutability trigger. */
function forgeReceipt(home: string, receiptId: string, out: { path: string; sha256: string; size: number }): void {
  const db = new Database(join(home, 'handoff.db'));
  db.exec('DROP TRIGGER IF EXISTS receipts_no_update');
  const row = db.prepare('SELECT * FROM receipts WHERE receipt_id = ?').get(receiptId) as ReceiptRow;
  const forged = {
    ...row,
    stdout_text: null,
    stdout_path: out.path,
    stdout_sha256: out.sha256,
    stdout_bytes: out.size,
  };
  db.prepare(
    'UPDATE receipts SET stdout_text = NULL, stdout_path = ?, stdout_sha256 = ?, stdout_bytes = ?, row_sha256 = ? WHERE receipt_id = ?',
  ).run(out.path, out.sha256, out.size, computeRowSha256(forged), receiptId);
  db.close();
}

const gate = (home: string, d: string) =>
  hf(home, ['contract', 'gate', '--draft-id', d, '--stop-reason', 'end_turn', '--json'], {
    input: JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' }),
  });

describe("EVIDENCE_PATH_ESCAPE: nothing outside the evidence root is read on a row's word", () => {
  it('evidence show --verify of a row naming a file outside the root, directly or through a link inside it', () => {
    const home = freshHome();
    expect(hf(home, ['brief', 'add', 'pay', '--json']).code).toBe(0);
    const src = join(home, 'report.txt');
    writeFileSync(src, 'r'.repeat(5000)); // above the inline limit: a blob file
    const added = hf(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'file',
      '--artifact-file',
      src,
      '--json',
    ]).json;
    const id = String(added.evidence.id);
    const outside = outsideFile();
    const link = join(home, 'evidence', WS, 'pay', 'AC-1', 'link.txt');
    mkdirSync(join(home, 'evidence', WS, 'pay', 'AC-1'), { recursive: true });
    symlinkSync(outside.path, link);
    for (const path of [outside.path, link, join(home, 'evidence', '..', 'report.txt')]) {
      const db = new Database(join(home, 'handoff.db'));
      db.prepare('UPDATE evidence SET artifact_path = ?, sha256 = ? WHERE id = ?').run(
        path,
        outside.sha256,
        added.evidence.id,
      );
      db.close();
      const r = hf(home, ['evidence', 'show', id, '--verify', '--json']);
      expect([r.code, r.json.code], `${path}: ${r.stdout}${r.stderr}`).toEqual([1, 'EVIDENCE_PATH_ESCAPE']);
      const plain = hf(home, ['evidence', 'show', id, '--json']);
      expect([plain.code, plain.json.blob_exists]).toEqual([0, false]);
    }
  });

  it('a receipt whose output names a file outside the root: finalize rejects, show --verify refuses, the gate blocks', () => {
    const home = freshHome();
    const outside = outsideFile();
    // Finalize: the forged receipt is cited by the close.
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('process.stdout.write("o".repeat(5000))')).receipt;
    forgeReceipt(home, rc.receipt_id, outside);
    const r = closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    expect([r.code, r.json.codes], r.stdout).toEqual([1, ['EVIDENCE_PATH_ESCAPE']]);
    expect(r.json.errors[0].path).toBe('evidence_report.verification.receipt');
    const show = hf(home, ['evidence', 'show', rc.receipt_id, '--verify', '--json']);
    expect([show.code, show.json.code]).toEqual([1, 'EVIDENCE_PATH_ESCAPE']);

    // The gate: a row finalized while its receipt was intact, forged afterwards.
    const e = newDraft(home);
    const ok = receipt(home, e, nodeCmd('process.stdout.write("p".repeat(5000))')).receipt;
    fillClose(home, e, { type: 'command', command: ok.command, result: 'pass', receipt: ok.receipt_id });
    expect(hf(home, ['contract', 'finalize', '--draft-id', e, '--json']).code).toBe(0);
    forgeReceipt(home, ok.receipt_id, outside);
    const g = gate(home, e);
    expect([g.code, g.json.codes], g.stdout + g.stderr).toEqual([2, ['EVIDENCE_PATH_ESCAPE']]);
  });
});
