/**
 * Approvals signed by their approver: with HANDOFF_APPROVER_KEYS set, an approval in force needs a valid signature
 * by a trusted key on its latest signed decision. The forgeries of a database writer (an approved row inserted, or
 * the content and fingerprint rewritten with the trigger dropped) are refused at the gate and by attest verify.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { generate, runOk } from '../helpers/attest.js';

const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

function sql(home: string, fn: (db: Database.Database) => void): void {
  const db = new Database(join(home, 'handoff.db'));
  try {
    fn(db);
  } finally {
    db.close();
  }
}

/** A finalized APPROVAL_REQUEST turn citing a pending approval of `content`. */
function turn(home: string, content: string, env: Record<string, string> = {}): { id: string; approval: string } {
  const id = (runOk(home, ['contract', 'init', '--json'], env).json as { draft_id: string }).draft_id;
  const approval = (
    runOk(home, ['approval', 'request', '--content', content, '--draft-id', id, '--json'], env).json as {
      approval_id: string;
    }
  ).approval_id;
  runOk(
    home,
    [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ approval_request: { exact_content: content, approval_id: approval } }),
    ],
    env,
  );
  runOk(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id], env);
  runOk(home, ['contract', 'finalize', '--draft-id', id], env);
  return { id, approval };
}

const gate = (home: string, id: string, env: Record<string, string> = {}) =>
  run(home, ['contract', 'gate', '--draft-id', id, '--stop-reason', 'end_turn', '--json'], { env });

const codesOf = (r: ReturnType<typeof gate>): string[] => (r.json as { codes: string[] }).codes;

describe('the approver policy at the gate', () => {
  it('an approval decided with a trusted key passes; decided without one is APPROVAL_UNSIGNED (a block)', () => {
    const home = tempHome();
    const approver = generate(home, 'approver', 'ed25519');
    const policy = { HANDOFF_APPROVER_KEYS: approver.public_key };
    const signedTurn = turn(home, 'deploy v1');
    runOk(home, ['approval', 'decide', signedTurn.approval, '--decision', 'approved', '--key', approver.private_key]);
    const g = gate(home, signedTurn.id, policy);
    expect([g.code, codesOf(g)], g.stdout + g.stderr).toEqual([0, []]);

    const plain = turn(home, 'deploy v2');
    runOk(home, ['approval', 'decide', plain.approval, '--decision', 'approved']);
    expect(codesOf(gate(home, plain.id))).toEqual([]);
    const blocked = gate(home, plain.id, policy);
    expect([blocked.code, (blocked.json as { decision: string }).decision, codesOf(blocked)]).toEqual([
      2,
      'block',
      ['APPROVAL_UNSIGNED'],
    ]);
  });

  it('forgery 1: an approved row inserted into the database and cited is refused (APPROVAL_UNSIGNED)', () => {
    const home = tempHome();
    const approver = generate(home, 'approver', 'ed25519');
    const { id } = turn(home, 'deploy v1');
    const forged = `P-${'ab'.repeat(16)}`;
    sql(home, (db) => {
      db.prepare(
        `INSERT INTO approvals (id, workspace, contract_id, status, exact_content, fingerprint, decided_at, decided_by)
         VALUES (?, (SELECT workspace FROM handoffs WHERE contract_id = ?), ?, 'approved', 'rm -rf /', ?, '2999-01-01T00:00:00.000Z', 'mallory')`,
      ).run(forged, id, id, sha('rm -rf /'));
      const row = db.prepare('SELECT raw_handoff_json FROM handoffs WHERE contract_id = ?').get(id) as {
        raw_handoff_json: string;
      };
      const e = JSON.parse(row.raw_handoff_json);
      e.approval_request = { exact_content: 'rm -rf /', approval_id: forged };
      db.prepare('UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?').run(JSON.stringify(e), id);
    });
    expect(codesOf(gate(home, id))).toEqual([]);
    expect(codesOf(gate(home, id, { HANDOFF_APPROVER_KEYS: approver.public_key }))).toEqual(['APPROVAL_UNSIGNED']);
  });

  it('forgery 2: the trigger dropped, content and fingerprint rewritten after a signed approval: APPROVAL_SIGNATURE_INVALID', () => {
    const home = tempHome();
    const approver = generate(home, 'approver', 'ecdsa-p256');
    const { id, approval } = turn(home, 'deploy v1');
    runOk(home, ['approval', 'decide', approval, '--decision', 'approved', '--key', approver.private_key]);
    sql(home, (db) => {
      db.exec('DROP TRIGGER approvals_immutable');
      db.prepare('UPDATE approvals SET exact_content = ?, fingerprint = ? WHERE id = ?').run(
        'rm -rf /',
        sha('rm -rf /'),
        approval,
      );
      const row = db.prepare('SELECT raw_handoff_json FROM handoffs WHERE contract_id = ?').get(id) as {
        raw_handoff_json: string;
      };
      const e = JSON.parse(row.raw_handoff_json);
      e.approval_request.exact_content = 'rm -rf /';
      db.prepare('UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?').run(JSON.stringify(e), id);
    });
    // Without the policy the forgery passes (what the trial saw); with it, refused.
    expect(codesOf(gate(home, id))).toEqual([]);
    expect(codesOf(gate(home, id, { HANDOFF_APPROVER_KEYS: approver.public_key }))).toEqual([
      'APPROVAL_SIGNATURE_INVALID',
    ]);
  });

  it('a signed revocation wins over a status rewritten back to approved (the latest signed decision counts)', () => {
    const home = tempHome();
    const approver = generate(home, 'approver', 'ed25519');
    const { id, approval } = turn(home, 'deploy v1');
    runOk(home, ['approval', 'decide', approval, '--decision', 'approved', '--key', approver.private_key]);
    runOk(home, ['approval', 'decide', approval, '--decision', 'revoked', '--key', approver.private_key]);
    sql(home, (db) => {
      db.exec('DROP TRIGGER approvals_transition');
      db.prepare("UPDATE approvals SET status = 'approved' WHERE id = ?").run(approval);
    });
    expect(codesOf(gate(home, id, { HANDOFF_APPROVER_KEYS: approver.public_key }))).toEqual([
      'APPROVAL_SIGNATURE_INVALID',
    ]);
  });

  it('a signature by a key that is not trusted counts as none; an approver key file that is missing is UNREADABLE_INPUT', () => {
    const home = tempHome();
    const approver = generate(home, 'approver', 'ed25519');
    const other = generate(home, 'other', 'ed25519');
    const { id, approval } = turn(home, 'deploy v1');
    runOk(home, ['approval', 'decide', approval, '--decision', 'approved', '--key', other.private_key]);
    expect(codesOf(gate(home, id, { HANDOFF_APPROVER_KEYS: approver.public_key }))).toEqual(['APPROVAL_UNSIGNED']);
    const d = run(home, [
      'approval',
      'decide',
      approval,
      '--decision',
      'revoked',
      '--key',
      join(home, 'nope.key'),
      '--json',
    ]);
    expect([d.code, (d.json as { code: string }).code]).toEqual([2, 'UNREADABLE_INPUT']);
  });
});

describe('the approver policy in attest verify', () => {
  it('an approval line in force not signed by an approver key is APPROVAL_UNSIGNED at its line', () => {
    const home = tempHome();
    const store = generate(home, 'store');
    const approver = generate(home, 'approver', 'ed25519');
    const env = { HANDOFF_SIGNING_KEY: store.private_key };
    const { id, approval } = turn(home, 'deploy v1', env);
    runOk(home, ['approval', 'decide', approval, '--decision', 'approved'], env);
    const file = join(home, 'x.jsonl');
    runOk(home, ['attest', 'export', '--chain', id, '--out', file], env);
    expect(run(home, ['attest', 'verify', file, '--key', store.public_key]).code).toBe(0);
    const r = run(home, ['attest', 'verify', file, '--key', store.public_key, '--json'], {
      env: { HANDOFF_APPROVER_KEYS: approver.public_key },
    });
    expect([r.code, r.json]).toMatchObject([1, { code: 'APPROVAL_UNSIGNED', line: 2 }]);
  });

  it('a signed revocation exported beside a row forged back to approved is APPROVAL_SIGNATURE_INVALID at the revocation', () => {
    const home = tempHome();
    const store = generate(home, 'store');
    const approver = generate(home, 'approver', 'ed25519');
    const env = { HANDOFF_SIGNING_KEY: store.private_key };
    const { id, approval } = turn(home, 'deploy v1', env);
    runOk(home, ['approval', 'decide', approval, '--decision', 'approved', '--key', approver.private_key], env);
    runOk(home, ['approval', 'decide', approval, '--decision', 'revoked', '--key', approver.private_key], env);
    sql(home, (db) => {
      db.exec('DROP TRIGGER approvals_transition');
      db.prepare("UPDATE approvals SET status = 'approved' WHERE id = ?").run(approval);
    });
    const file = join(home, 'x.jsonl');
    expect(runOk(home, ['attest', 'export', '--chain', id, '--out', file, '--json'], env).json).toMatchObject({
      counts: { approval: 3 },
    });
    const keys = ['--key', store.public_key, '--key', approver.public_key];
    expect(run(home, ['attest', 'verify', file, ...keys]).code).toBe(0);
    const r = run(home, ['attest', 'verify', file, ...keys, '--json'], {
      env: { HANDOFF_APPROVER_KEYS: approver.public_key },
    });
    expect([r.code, r.json]).toMatchObject([1, { code: 'APPROVAL_SIGNATURE_INVALID', line: 3 }]);
  });
});
