/** Statements on the PostgreSQL store: stored in the write's transaction, exported and verified as on SQLite. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { freshDatabase, sql } from '../helpers/pg.js';
import { runOk, signedChain } from '../helpers/attest.js';

describe('attestations on PostgreSQL', () => {
  it('finalize, evidence run and approval decide store signed statements; the export verifies; the approver policy holds', async () => {
    const url = await freshDatabase();
    const c = signedChain({ env: { HANDOFF_STORE_URL: url } });
    const rows = await sql<{ kind: string; signer: string }>(url, 'SELECT kind, signer FROM attestations ORDER BY id');
    expect(rows.map((r) => [r.kind, r.signer])).toEqual([
      ['handoff', 'store'],
      ['approval', 'approver'],
      ['receipt', 'store'],
      ['handoff', 'store'],
      ['handoff', 'store'],
    ]);
    await expect(sql(url, 'DELETE FROM attestations')).rejects.toThrow(/append-only/);
    const file = join(c.home, 'chain.jsonl');
    const e = runOk(c.home, ['attest', 'export', '--chain', c.first, '--out', file, '--json'], c.env);
    expect(e.json).toMatchObject({ counts: { handoff: 3, receipt: 1, approval: 1 }, signed_now: 1 });
    const v = run(c.home, ['attest', 'verify', file, '--key', c.storeKey.public_key, '--json'], {
      env: { HANDOFF_APPROVER_KEYS: c.approverKey.public_key },
    });
    expect([v.code, v.json]).toMatchObject([0, { verified: true, lines: 6 }]);
    // A turn ending on APPROVAL_REQUEST, decided by the approver's key: the gate reads the signature from PostgreSQL.
    const id = (runOk(c.home, ['contract', 'init', '--json'], c.env).json as { draft_id: string }).draft_id;
    const ap = (
      runOk(c.home, ['approval', 'request', '--content', 'ship it', '--draft-id', id, '--json'], c.env).json as {
        approval_id: string;
      }
    ).approval_id;
    runOk(
      c.home,
      [
        'contract',
        'fill',
        '--draft-id',
        id,
        '--json',
        JSON.stringify({ approval_request: { exact_content: 'ship it', approval_id: ap } }),
      ],
      c.env,
    );
    runOk(c.home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id], c.env);
    runOk(c.home, ['contract', 'finalize', '--draft-id', id], c.env);
    runOk(c.home, ['approval', 'decide', ap, '--decision', 'approved', '--key', c.approverKey.private_key], c.env);
    const gate = (trusted: string) =>
      (
        run(c.home, ['contract', 'gate', '--draft-id', id, '--stop-reason', 'end_turn', '--json'], {
          env: { ...c.env, HANDOFF_APPROVER_KEYS: trusted },
        }).json as { codes: string[] }
      ).codes;
    expect(gate(c.approverKey.public_key)).toEqual([]);
    // Signed by the approver, not by the store key: with only the store key trusted it counts as unsigned.
    expect(gate(c.storeKey.public_key)).toEqual(['APPROVAL_UNSIGNED']);
  });
});
