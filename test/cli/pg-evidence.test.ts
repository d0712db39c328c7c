/**
 * The brief, evidence and receipt verbs on a PostgreSQL store: the real binary with
 * HANDOFF_STORE_URL set to a fresh database. Blobs go into the store (blob:sha256: references, no file under the
 * data root) and verify from any data root; data the server cannot hold is STORE_WRITE_REFUSED with nothing written.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, runAsync, tempHome, type RunResult } from '../helpers/cli.js';
import { dropDatabase, freshDatabase, sql } from '../helpers/pg.js';

let url: string;
beforeEach(async () => {
  url = await freshDatabase();
});
afterEach(async () => {
  await dropDatabase(url);
});

const pg = (home: string, args: string[]): RunResult =>
  run(home, args, { env: { HANDOFF_STORE_URL: url, HANDOFF_WORKSPACE: 'ws' } });
const ok = (home: string, args: string[]): any => {
  const r = pg(home, [...args, '--json']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r.json;
};
const count = async (table: string): Promise<number> =>
  Number((await sql<{ n: string }>(url, `SELECT COUNT(*) AS n FROM ${table}`))[0].n);
const evidenceFiles = (home: string): string[] =>
  existsSync(join(home, 'evidence')) ? readdirSync(join(home, 'evidence'), { recursive: true }).map(String) : [];

describe('brief and evidence verbs on PostgreSQL', () => {
  it('brief add/list/show; evidence add inline and as a store blob; list; show --verify from another data root', async () => {
    const home = tempHome();
    expect(ok(home, ['brief', 'add', 'pay', '--ac', 'AC-1=works']).created).toBe(true);
    const again = pg(home, ['brief', 'add', 'PAY', '--ac', 'AC-1=works', '--json']);
    expect([again.code, again.json.code]).toEqual([1, 'BRIEF_EXISTS']);
    const file = join(home, 'report.bin');
    writeFileSync(file, Buffer.alloc(9000, 7));
    const blob = ok(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'file',
      '--artifact-file',
      file,
    ]);
    const inline = ok(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'tests pass',
    ]);
    expect(blob.storage).toBe('blob');
    expect(blob.evidence.artifact_path).toBe(`blob:sha256:${blob.evidence.sha256}`);
    expect(inline.storage).toBe('inline');
    expect(evidenceFiles(home)).toEqual([]);
    expect(await count('blobs')).toBe(1);

    expect(ok(home, ['brief', 'list']).briefs.map((b: any) => [b.name, b.ac_count, b.evidence_count])).toEqual([
      ['pay', 1, 2],
    ]);
    expect(ok(home, ['brief', 'show', 'pay']).acceptance_criteria[0].evidence_count).toBe(2);
    expect(ok(home, ['evidence', 'list', '--brief', 'pay']).evidence.map((e: any) => e.id)).toEqual([
      blob.evidence.id,
      inline.evidence.id,
    ]);

    const other = tempHome();
    const shown = ok(other, ['evidence', 'show', String(blob.evidence.id), '--verify']);
    expect([shown.blob_exists, shown.verified, shown.actual_sha256]).toEqual([true, true, blob.evidence.sha256]);
    expect(ok(other, ['evidence', 'orphans'])).toMatchObject({ count: 0, missing: [] });

    // A store blob that is gone: the row is reported missing and --verify fails (exit 1).
    await sql(url, 'DELETE FROM blobs');
    const missing = pg(other, ['evidence', 'show', String(blob.evidence.id), '--verify', '--json']);
    expect([missing.code, missing.json.code, missing.json.blob_exists]).toEqual([1, 'EVIDENCE_HASH_MISMATCH', false]);
    expect(ok(other, ['evidence', 'orphans']).missing).toEqual([
      { id: blob.evidence.id, artifact_path: blob.evidence.artifact_path },
    ]);
  });

  it('text the server cannot hold (a NUL character) is STORE_WRITE_REFUSED, exit 4, nothing written', async () => {
    const home = tempHome();
    ok(home, ['brief', 'add', 'pay']);
    const file = join(home, 'nul.txt');
    writeFileSync(file, 'a\0b');
    const r = pg(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'file',
      '--artifact-file',
      file,
      '--json',
    ]);
    expect([r.code, r.json.code]).toEqual([4, 'STORE_WRITE_REFUSED']);
    expect(r.stdout).not.toContain(url.split('@')[0]);
    expect(await count('evidence')).toBe(0);
  });

  it('a brief missing from the workspace is BRIEF_NOT_FOUND naming the workspace that has it; nothing written', async () => {
    const home = tempHome();
    ok(home, ['brief', 'add', 'pay', '--workspace', 'elsewhere']);
    const r = pg(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'x',
      '--json',
    ]);
    expect([r.code, r.json.code, r.json.workspaces]).toEqual([3, 'BRIEF_NOT_FOUND', ['elsewhere']]);
    expect(await count('evidence')).toBe(0);
  });
});

describe('brief add racing on PostgreSQL', () => {
  it('four hosts add the same brief at once: one created, the others BRIEF_EXISTS (exit 1), one row', async () => {
    const homes = [tempHome(), tempHome(), tempHome(), tempHome()];
    const results = await Promise.all(
      homes.map((home) =>
        runAsync(home, ['brief', 'add', 'race', '--ac', 'AC-1=x', '--json'], {
          env: { HANDOFF_STORE_URL: url, HANDOFF_WORKSPACE: 'ws' },
        }),
      ),
    );
    expect(results.map((r) => r.code).sort()).toEqual([0, 1, 1, 1]);
    expect(results.filter((r) => r.code === 1).map((r) => r.json.code)).toEqual([
      'BRIEF_EXISTS',
      'BRIEF_EXISTS',
      'BRIEF_EXISTS',
    ]);
    expect([await count('briefs'), await count('acceptance_criteria')]).toEqual([1, 1]);
  });
});

describe('evidence run and receipts on PostgreSQL', () => {
  it('an output with a NUL character (which PostgreSQL text cannot hold) is kept as a store blob; the receipt verifies', () => {
    const home = tempHome();
    const draft = ok(home, ['contract', 'init']).draft_id as string;
    const r = pg(home, [
      'evidence',
      'run',
      '--draft-id',
      draft,
      '--json',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('a\\0b')",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect([r.json.receipt.stdout_text, r.json.receipt.stdout_path, r.json.receipt.stdout_bytes]).toEqual([
      null,
      `blob:sha256:${r.json.receipt.stdout_sha256}`,
      3,
    ]);
    expect(ok(tempHome(), ['evidence', 'show', r.json.receipt.receipt_id, '--verify']).verified).toBe(true);
  });

  it('a large output is a store blob of the receipt and of its evidence row; receipt show --verify passes from another root', async () => {
    const home = tempHome();
    ok(home, ['brief', 'add', 'pay', '--ac', 'AC-1=works']);
    const draft = ok(home, ['contract', 'init']).draft_id as string;
    const r = pg(home, [
      'evidence',
      'run',
      '--draft-id',
      draft,
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--json',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('x'.repeat(6000))",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const receipt = r.json.receipt;
    expect(receipt.stdout_path).toBe(`blob:sha256:${receipt.stdout_sha256}`);
    expect(evidenceFiles(home)).toEqual([]);
    const rows = ok(home, ['evidence', 'list', '--brief', 'pay']).evidence;
    expect(rows.map((e: any) => [e.type, e.artifact_path, e.receipt_id])).toEqual([
      ['command_output', receipt.stdout_path, receipt.receipt_id],
    ]);
    expect(await count('blobs')).toBe(1);

    const other = tempHome();
    expect(ok(other, ['evidence', 'show', receipt.receipt_id, '--verify']).verified).toBe(true);
    expect(ok(other, ['evidence', 'receipts', '--draft-id', draft]).receipts.map((x: any) => x.receipt_id)).toEqual([
      receipt.receipt_id,
    ]);

    await sql(url, 'DELETE FROM evidence');
    await sql(url, 'DELETE FROM blobs');
    const tampered = pg(other, ['evidence', 'show', receipt.receipt_id, '--verify', '--json']);
    expect([tampered.code, tampered.json.code]).toEqual([1, 'RECEIPT_TAMPERED']);
  });
});
