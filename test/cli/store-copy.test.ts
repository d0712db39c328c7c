/**
 * `handoff store copy --to <url>`: a populated SQLite store (briefs, evidence with file blobs,
 * receipts with outputs, approvals, handoff rows) copied into an empty PostgreSQL database, counts and hashes
 * verified, then read and verified from another data root through HANDOFF_STORE_URL; a non-empty target and a
 * missing blob refused with nothing written.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite.js';
import { run, tempHome, type RunResult } from '../helpers/cli.js';
import { dropDatabase, freshDatabase, sql } from '../helpers/pg.js';
import { envelopeIn, mintDraft, prefix, writeDraft } from '../helpers/store-cli.js';

const TABLES = [
  'briefs',
  'acceptance_criteria',
  'handoffs',
  'receipts',
  'evidence',
  'approvals',
  'gate_rejections',
  'attestations',
];

let url: string;
beforeEach(async () => {
  url = await freshDatabase();
});
afterEach(async () => {
  await dropDatabase(url);
});

const env = { HANDOFF_WORKSPACE: 'ws' };
const ok = (home: string, args: string[], extra: Record<string, string> = {}): any => {
  const dash = args.indexOf('--');
  const argv = dash < 0 ? [...args, '--json'] : [...args.slice(0, dash), '--json', ...args.slice(dash)];
  const r = run(home, argv, { env: { ...env, ...extra } });
  expect(r.code, `${args.join(' ')}\n${r.stderr}${r.stdout}`).toBe(0);
  return r.json;
};
const onPg = (home: string, args: string[]): RunResult =>
  run(home, [...args, '--json'], { env: { ...env, HANDOFF_STORE_URL: url } });

function sqliteCounts(home: string): Record<string, number> {
  const db = new (loadSqlite())(join(home, 'handoff.db'), { readonly: true });
  try {
    return Object.fromEntries(
      TABLES.map((t) => [t, (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

async function pgCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [...TABLES, 'blobs'])
    out[t] = Number((await sql<{ n: string }>(url, `SELECT COUNT(*) AS n FROM ${t}`))[0].n);
  return out;
}

/** A SQLite store with every kind of row; returns what the checks need. */
function populate(home: string): {
  blobEvidence: number;
  inlineEvidence: number;
  receipt: string;
  draft: string;
  dispatched: { contract_id: string; claim_token: string };
} {
  ok(home, ['brief', 'add', 'pay', '--ac', 'AC-1=works', '--ac', 'AC-2=fast']);
  const file = join(home, 'report.bin');
  writeFileSync(file, Buffer.alloc(7000, 3));
  const blobEvidence = ok(home, [
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
  ]).evidence.id as number;
  const draft = ok(home, ['contract', 'init']).draft_id as string;
  const inlineEvidence = ok(home, [
    'evidence',
    'add',
    '--brief',
    'pay',
    '--ac',
    'AC-2',
    '--type',
    'text',
    '--text',
    'fast enough',
    '--draft-id',
    draft,
  ]).evidence.id as number;
  const receipt = ok(home, [
    'evidence',
    'run',
    '--draft-id',
    draft,
    '--brief',
    'pay',
    '--ac',
    'AC-1',
    '--',
    process.execPath,
    '-e',
    "process.stdout.write('o'.repeat(5000)); process.stderr.write('e'.repeat(4500))",
  ]).receipt.receipt_id as string;
  ok(home, ['approval', 'request', '--content', 'DROP TABLE payments_old;', '--draft-id', draft]);
  const closed = mintDraft();
  writeDraft(home, closed, envelopeIn(prefix(closed), 'COMPLETE'));
  ok(home, ['contract', 'finalize', '--draft-id', closed]);
  // A used approval (as the finalize of its executing turn leaves it): its used columns travel too.
  const used = ok(home, ['approval', 'request', '--content', 'deploy', '--draft-id', closed]).approval_id as string;
  ok(home, ['approval', 'decide', used, '--decision', 'approved']);
  const db = new (loadSqlite())(join(home, 'handoff.db'));
  db.prepare(
    "UPDATE approvals SET status = 'used', used_at = decided_at, used_by_handoff_id = (SELECT id FROM handoffs WHERE contract_id = ?) WHERE id = ?",
  ).run(closed, used);
  db.close();
  // A dispatched contract: its row keeps the sha256 of its claim token.
  const dispatched = ok(home, ['contract', 'dispatch', '--goal', 'g']) as { contract_id: string; claim_token: string };
  return { blobEvidence, inlineEvidence, receipt, draft, dispatched };
}

describe('store copy', () => {
  it('copies every table, receipts and blobs; counts and hashes verified; the copy verifies from another data root', async () => {
    const home = tempHome();
    const p = populate(home);
    const before = sqliteCounts(home);
    expect(Object.values(before).filter((n) => n > 0).length).toBeGreaterThanOrEqual(6);
    const r = ok(home, ['store', 'copy', '--to', url]);
    expect(r.verified).toBe(true);
    expect(r.to).not.toContain(new URL(url).password);
    expect(Object.fromEntries(r.tables.map((t: any) => [t.name, t.rows]))).toEqual(before);
    // The evidence file and the two receipt outputs; the command_output evidence rows share the outputs' bytes.
    expect(r.blobs.count).toBe(3);
    expect(r.rewritten.evidence_artifact_path).toBe(3);
    expect(await pgCounts()).toEqual({ ...before, blobs: 3 });

    // ids preserved and sequences reset: the next brief on PostgreSQL takes the next id.
    const other = tempHome();
    const pgBriefs = onPg(other, ['brief', 'list']).json.briefs;
    expect(pgBriefs.map((b: any) => [b.id, b.name])).toEqual([[1, 'pay']]);
    expect(onPg(other, ['brief', 'add', 'next']).json.brief.id).toBe(2);

    const shown = onPg(other, ['evidence', 'show', String(p.blobEvidence), '--verify']);
    expect([shown.code, shown.json.verified, shown.json.evidence.artifact_path]).toEqual([
      0,
      true,
      `blob:sha256:${shown.json.evidence.sha256}`,
    ]);
    expect(onPg(other, ['evidence', 'show', String(p.inlineEvidence), '--verify']).json.verified).toBe(true);
    const receipt = onPg(other, ['evidence', 'show', p.receipt, '--verify']);
    expect([receipt.code, receipt.json.verified]).toEqual([0, true]);
    // Receipts are copied verbatim: the row (its paths included) is the SQLite one.
    const local = ok(home, ['evidence', 'show', p.receipt]).receipt;
    expect(receipt.json.receipt).toEqual(local);
    // Approvals and handoff rows arrive verbatim (their verbs read through the other half of the store rewiring).
    const db = new (loadSqlite())(join(home, 'handoff.db'), { readonly: true });
    try {
      for (const [table, cols, key] of [
        ['approvals', '*', 'id'],
        ['handoffs', '*', 'id'],
        ['evidence', 'id, contract_id', 'id'],
      ]) {
        const want = db.prepare(`SELECT ${cols} FROM ${table} ORDER BY ${key}`).all();
        const got = await sql(url, `SELECT ${cols} FROM ${table} ORDER BY ${key}`);
        // bigint columns arrive as strings from the test's driver: compare numbers as numbers.
        expect(
          JSON.parse(
            JSON.stringify(got, (_k, v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v)),
          ),
        ).toEqual(
          JSON.parse(
            JSON.stringify(want, (_k, v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v)),
          ),
        );
      }
      expect(db.prepare("SELECT COUNT(*) AS n FROM approvals WHERE status = 'used'").get()).toEqual({ n: 1 });
      // The claim token's hash travels with its row, and the copy asks for the token as the SQLite store did.
      const hash = createHash('sha256').update(p.dispatched.claim_token).digest('hex');
      expect(
        await sql(url, 'SELECT claim_token_sha256 FROM handoffs WHERE contract_id = $1', [p.dispatched.contract_id]),
      ).toEqual([{ claim_token_sha256: hash }]);
      const claim = ['contract', 'claim', '--harness-id', 'run-1', '--draft-id', p.dispatched.contract_id];
      expect(onPg(other, claim).json.code).toBe('CLAIM_TOKEN_REQUIRED');
      expect(onPg(other, [...claim, '--claim-token', p.dispatched.claim_token]).json).toMatchObject({ changed: true });
      expect(onPg(other, ['approval', 'list', '--status', 'used']).json.count).toBe(1);
      expect(onPg(other, ['evidence', 'list', '--contract-id', p.draft]).json.evidence.map((e: any) => e.id)).toEqual([
        p.inlineEvidence,
      ]);
    } finally {
      db.close();
    }
  });

  it('a target that already holds rows is refused: STORE_COPY_TARGET_NOT_EMPTY, exit 1, nothing written', async () => {
    const home = tempHome();
    populate(home);
    ok(home, ['brief', 'add', 'already', '--ac', 'AC-1=x'], { HANDOFF_STORE_URL: url });
    const before = await pgCounts();
    const r = run(home, ['store', 'copy', '--to', url, '--json'], { env });
    expect([r.code, r.json.code]).toEqual([1, 'STORE_COPY_TARGET_NOT_EMPTY']);
    expect(await pgCounts()).toEqual(before);
  });

  it('a blob missing from the data root stops the copy before the target is touched: STORE_COPY_FAILED, exit 4', async () => {
    const home = tempHome();
    const p = populate(home);
    const path = ok(home, ['evidence', 'show', String(p.blobEvidence)]).evidence.artifact_path as string;
    rmSync(path);
    const r = run(home, ['store', 'copy', '--to', url, '--json'], { env });
    expect([r.code, r.json.code]).toEqual([4, 'STORE_COPY_FAILED']);
    expect(r.json.error).toContain(path);
    // Not even migrated: the database has no table.
    expect(await sql(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).toEqual([]);
  });

  it('no SQLite store: NO_STORE, exit 3; a URL of another scheme: USAGE, exit 2', () => {
    const home = tempHome();
    expect(run(home, ['store', 'copy', '--to', url, '--json']).json.code).toBe('NO_STORE');
    const r = run(home, ['store', 'copy', '--to', 'mysql://x/y', '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
  });
});
