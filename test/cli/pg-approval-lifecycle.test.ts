/**
 * The approval lifecycle on the real PostgreSQL server: migration 0004's columns and triggers there, an approved
 * approval used once by the finalize of its executing turn (from a second host sharing the store), refused everywhere
 * else, and evidence linked to a contract.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { hostOk, pgCount, pgHost, pgRow, type PgHost } from '../helpers/pg-cli.js';
import { dropDatabase, freshDatabase, freshSchema, sql } from '../helpers/pg.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const CONTENT = 'git push origin main';
const pairs = (json: { errors: { code: string; path: string }[] }): [string, string][] =>
  json.errors.map((e) => [e.code, e.path]);

/** Runs a printed shell text on `host` with `handoff` on PATH (a shim for the built binary). */
function runShell(host: PgHost, text: string): { code: number | null; stdout: string; stderr: string } {
  const bin = join(host.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'handoff'), 0o755);
  const r = spawnSync('bash', ['-c', text], {
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HANDOFF_HOME: host.home,
      HANDOFF_STORE_URL: host.url,
      NO_COLOR: '1',
    },
    cwd: host.home,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The approvals row as the server holds it (its bigint as a number, as the store reads it). */
async function approvalOf(url: string, id: string): Promise<any> {
  const row: any = (await sql(url, 'SELECT * FROM approvals WHERE id = $1', [id]))[0];
  if (typeof row?.used_by_handoff_id === 'string') row.used_by_handoff_id = Number(row.used_by_handoff_id);
  return row;
}
const setState = (h: PgHost, id: string, state: string): void => {
  const r = h.run(['contract', 'set', 'agent_status.agent_state', state, '--draft-id', id]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
};

describe('the approval lifecycle on PostgreSQL', () => {
  it('request, approve, execute from another host, finalize: used once; every other citation refused', async () => {
    const url = await freshSchema(dbUrl);
    const a = pgHost(url);
    const id = hostOk(a, ['contract', 'init']).draft_id as string;
    const req = hostOk(a, ['approval', 'request', '--content', CONTENT, '--draft-id', id]);
    expect(runShell(a, req.fill_command).code).toBe(0);
    setState(a, id, 'APPROVAL_REQUEST');
    hostOk(a, ['contract', 'finalize', '--draft-id', id]);

    // A pending approval in an executing state: writes accept it, finalize does not.
    const early = a.run(['contract', 'fill', '--draft-id', id, '--json', '{"report_prose":"executing"}']);
    expect(early.code, early.stderr).toBe(0);
    const next = early.json.draft_id as string;
    expect(runShell(a, `${req.fill_command.replace(`--draft-id ${id}`, `--draft-id ${next}`)}`).code).toBe(0);
    setState(a, next, 'BLOCKED');
    const notYet = a.run(['contract', 'finalize', '--draft-id', next, '--json']);
    expect([notYet.code, pairs(notYet.json)]).toEqual([1, [['APPROVAL_NOT_APPROVED', 'approval_request.approval_id']]]);
    expect(await pgRow(url, next)).toMatchObject({ finalized_at: null });

    const decided = hostOk(a, ['approval', 'decide', req.approval_id, '--decision', 'approved', '--by', 'alice']);
    const decidedAt = (await approvalOf(url, req.approval_id)).decided_at as string;
    // The executing turn finalizes from a second data root sharing the store.
    const b = pgHost(url);
    const f = hostOk(b, ['contract', 'finalize', '--draft-id', next]);
    expect([f.created, f.agent_state]).toEqual([true, 'BLOCKED']);
    const used = await approvalOf(url, req.approval_id);
    expect(used).toMatchObject({
      status: 'used',
      decided_at: decidedAt,
      decided_by: 'alice',
      used_by_handoff_id: (await pgRow(url, next)).id,
    });
    expect(used.used_at >= decidedAt).toBe(true);
    expect(decided.fill_command).toBe(`handoff contract fill --draft-id ${id} --json-file -`);

    // A repeat of that finalize (from the host that wrote the draft) is a no-op; the gate allows the turn; show and
    // list report the use.
    expect(hostOk(a, ['contract', 'finalize', '--draft-id', next])).toMatchObject({
      created: false,
      unchanged_reason: 'identical',
    });
    const g = b.run(['contract', 'gate', '--draft-id', next, '--stop-reason', 'end_turn', '--json']);
    expect([g.code, g.json.decision]).toEqual([0, 'allow']);
    expect(hostOk(b, ['approval', 'show', req.approval_id]).approval).toMatchObject({
      approval_status: 'used',
      used_by_handoff_id: used.used_by_handoff_id,
    });
    expect(hostOk(b, ['approval', 'list', '--status', 'used']).count).toBe(1);

    // Citing it again from the next link: APPROVAL_ALREADY_USED, nothing written.
    const opened = b.run(['contract', 'fill', '--draft-id', next, '--json', '{"report_prose":"third"}']);
    expect(opened.code, opened.stderr).toBe(0);
    const third = opened.json.draft_id as string;
    const rows = await pgCount(url, 'handoffs');
    const again = b.run(['contract', 'fill', '--draft-id', third, '--json', decided.fill_input]);
    expect([again.code, pairs(again.json)]).toEqual([1, [['APPROVAL_ALREADY_USED', 'approval_request.approval_id']]]);
    expect(await pgCount(url, 'handoffs')).toBe(rows);

    // decide on used: refused (exit 1); --decision used: USAGE (exit 2); the row unchanged.
    const refused = b.run(['approval', 'decide', req.approval_id, '--decision', 'revoked', '--json']);
    expect([refused.code, refused.json.code]).toEqual([1, 'APPROVAL_TRANSITION_REFUSED']);
    const usage = b.run(['approval', 'decide', req.approval_id, '--decision', 'used', '--json']);
    expect([usage.code, usage.json.code]).toEqual([2, 'USAGE']);
    expect(await approvalOf(url, req.approval_id)).toEqual(used);
  });

  it("migration 0004's triggers on the server: used only from approved, final, keeping the decision", async () => {
    const url = await freshSchema(dbUrl);
    const h = pgHost(url);
    const id = hostOk(h, ['contract', 'init']).draft_id as string;
    setState(h, id, 'BLOCKED');
    hostOk(h, ['contract', 'finalize', '--draft-id', id]);
    const handoff = (await pgRow(url, id)).id as number;
    const pending = hostOk(h, ['approval', 'request', '--content', 'a']).approval_id as string;
    const approved = hostOk(h, ['approval', 'request', '--content', 'b']).approval_id as string;
    hostOk(h, ['approval', 'decide', approved, '--decision', 'approved']);
    const attempt = async (text: string, values: unknown[]): Promise<string> => {
      try {
        await sql(url, text, values);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    const use =
      "UPDATE approvals SET status = 'used', used_at = '2026-01-01T00:00:00.000Z', used_by_handoff_id = $1 WHERE id = $2";
    expect(await attempt(use, [handoff, pending])).toMatch(/transition refused/);
    expect(await attempt("UPDATE approvals SET status = 'used' WHERE id = $1", [approved])).toMatch(/check constraint/);
    expect(await attempt(`${use.replace('WHERE', ", decided_by = 'mallory' WHERE")}`, [handoff, approved])).toMatch(
      /keeps its decision/,
    );
    expect(await attempt(use, [handoff, approved])).toBe('accepted');
    expect(await attempt("UPDATE approvals SET status = 'revoked' WHERE id = $1", [approved])).toMatch(/refused|final/);
  });

  it('evidence add --draft-id links the row; evidence list --contract-id finds it', async () => {
    const url = await freshSchema(dbUrl);
    const h = pgHost(url);
    const id = hostOk(h, ['contract', 'init']).draft_id as string;
    hostOk(h, ['brief', 'add', 'pay', '--workspace', 'ws']);
    const e = hostOk(h, [
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
      '--draft-id',
      id,
      '--workspace',
      'ws',
    ]).evidence;
    hostOk(h, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'y',
      '--workspace',
      'ws',
    ]);
    expect(e.contract_id).toBe(id);
    const listed = hostOk(h, ['evidence', 'list', '--contract-id', id, '--workspace', 'ws']);
    expect(listed.evidence.map((r: any) => r.id)).toEqual([e.id]);
    expect(await sql(url, 'SELECT contract_id FROM evidence ORDER BY id')).toEqual([
      { contract_id: id },
      { contract_id: null },
    ]);
  });
});
