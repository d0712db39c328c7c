/**
 * One finalize path on both stores: on PostgreSQL, finalize and the stop gate read cited store blobs through the
 * store, exactly as `evidence show --verify` does. An update_contracts entry citing the `blob:sha256:` reference that
 * `evidence add --artifact-file` printed is accepted, and a receipt whose 10 KB stdout is a store blob verifies, from
 * the data root that wrote them and from a second data root sharing the store.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostOk, pgCount, pgHost, type PgHost } from '../helpers/pg-cli.js';
import { dropDatabase, freshDatabase, freshSchema, sql } from '../helpers/pg.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const WS = { HANDOFF_WORKSPACE: 'ws' };
const hf = (h: PgHost, args: string[], input?: string) =>
  h.run(args, { env: WS, ...(input === undefined ? {} : { input }) });
const okWs = (h: PgHost, args: string[]): any => {
  const r = hf(h, [...args, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
};

/** A draft of `h` with a receipt of 10 KB stdout (a store blob); returns the draft id and the receipt. */
function draftWithReceipt(h: PgHost): { draft: string; receipt: any } {
  const draft = okWs(h, ['contract', 'init']).draft_id as string;
  const r = hf(h, [
    'evidence',
    'run',
    '--json',
    '--draft-id',
    draft,
    '--',
    process.execPath,
    '-e',
    "process.stdout.write('o'.repeat(10240))",
  ]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const receipt = r.json.receipt;
  expect(receipt.stdout_path).toBe(`blob:sha256:${receipt.stdout_sha256}`);
  return { draft, receipt };
}

/** Fills a COMPLETE close citing the receipt and the evidence blob, then finalizes it from `h`. */
function close(h: PgHost, draft: string, receipt: any, briefId: number, artifact: string) {
  const patch = {
    agent_status: { agent_state: 'COMPLETE', next_action: 'done' },
    evidence_report: {
      verification: { type: 'command', command: receipt.command, result: 'pass', receipt: receipt.receipt_id },
    },
    update_contracts: [
      { contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-1', type: 'file', artifact_path: artifact } },
    ],
  };
  const fill = hf(h, ['contract', 'fill', '--draft-id', draft, '--json', JSON.stringify(patch)]);
  expect(fill.code, fill.stdout + fill.stderr).toBe(0);
  return hf(h, ['contract', 'finalize', '--draft-id', draft, '--json']);
}

const gate = (h: PgHost, draft: string) =>
  hf(
    h,
    ['contract', 'gate', '--draft-id', draft, '--stop-reason', 'end_turn', '--json'],
    JSON.stringify({ hook_event_name: 'Stop', session_id: 's1' }),
  );

describe('finalize and the gate on PostgreSQL read store blobs through the store', () => {
  it('a blob artifact and a 10 KB store-blob receipt pass finalize and the gate, from the writing host and a second one', async () => {
    const url = await freshSchema(dbUrl);
    const a = pgHost(url);
    const b = pgHost(url);
    const brief = okWs(a, ['brief', 'add', 'pay', '--ac', 'AC-1=works']);
    const file = join(a.home, 'report.bin');
    writeFileSync(file, Buffer.alloc(9000, 7));
    const added = okWs(a, [
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
    const artifact = added.evidence.artifact_path as string;
    expect(artifact).toBe(`blob:sha256:${added.evidence.sha256}`);

    // The host that wrote them.
    const one = draftWithReceipt(a);
    const done = close(a, one.draft, one.receipt, brief.brief.id, artifact);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.json).toMatchObject({ created: true, evidence_inserted: 1 });
    const stored = await sql<{ artifact_path: string; size_bytes: string }>(
      url,
      'SELECT artifact_path, size_bytes FROM evidence WHERE handoff_id IS NOT NULL',
    );
    expect(stored.map((r) => [r.artifact_path, Number(r.size_bytes)])).toEqual([[artifact, 9000]]);
    for (const h of [a, b]) {
      const g = gate(h, one.draft);
      expect([g.code, g.json.decision], g.stdout + g.stderr).toEqual([0, 'allow']);
    }
    expect(hostOk(b, ['evidence', 'show', one.receipt.receipt_id, '--verify']).verified).toBe(true);

    // A second data root citing the first one's blob, with a receipt of its own.
    const two = draftWithReceipt(b);
    const other = close(b, two.draft, two.receipt, brief.brief.id, artifact);
    expect(other.code, other.stdout + other.stderr).toBe(0);
    expect(other.json).toMatchObject({ created: true, evidence_inserted: 1 });
    for (const h of [a, b]) {
      const g = gate(h, two.draft);
      expect([g.code, g.json.decision], g.stdout + g.stderr).toEqual([0, 'allow']);
    }
  });

  it('a blob the store lost: finalize rejects (EVIDENCE_ARTIFACT_PATH, RECEIPT_TAMPERED) and writes nothing', async () => {
    const url = await freshSchema(dbUrl);
    const a = pgHost(url);
    const brief = okWs(a, ['brief', 'add', 'pay', '--ac', 'AC-1=works']);
    const file = join(a.home, 'report.bin');
    writeFileSync(file, Buffer.alloc(9000, 7));
    const artifact = okWs(a, [
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
    ]).evidence.artifact_path;
    const one = draftWithReceipt(a);
    await sql(url, 'DELETE FROM blobs');
    const r = close(a, one.draft, one.receipt, brief.brief.id, artifact);
    expect([r.code, r.json.codes]).toEqual([1, ['RECEIPT_TAMPERED']]);
    expect(await pgCount(url, 'handoffs')).toBe(0);
    // Without the receipt, the lost evidence blob is what finalize names.
    const set = hf(a, [
      'contract',
      'set',
      'evidence_report.verification',
      '{"result":"pass"}',
      '--draft-id',
      one.draft,
    ]);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    const again = hf(a, ['contract', 'finalize', '--draft-id', one.draft, '--json']);
    expect([again.code, again.json.codes], again.stdout).toEqual([1, ['EVIDENCE_ARTIFACT_PATH']]);
    expect(again.json.errors[0].detail).toContain('the store does not hold it');
    expect(await pgCount(url, 'handoffs')).toBe(0);
  });
});
