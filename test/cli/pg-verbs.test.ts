/**
 * The rewired verbs on a PostgreSQL store: the built binary with HANDOFF_STORE_URL set to a
 * fresh schema of the suite's server. The same codes, exit codes and rows as on SQLite; nothing written on a refusal;
 * an unreachable server is STORE_UNREACHABLE (exit 4), a store condition for `contract gate --on-store-error block`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETE_PATCH, stopInput, subagentStop } from '../helpers/gate.js';
import { fill, noSqliteFile, hostOk, pgCount, pgHost, pgRow } from '../helpers/pg-cli.js';
import { dropDatabase, freshDatabase, freshSchema, sql } from '../helpers/pg.js';
import { run, tempHome } from '../helpers/cli.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const WS = ['--workspace', 'ws'];
const host = async () => pgHost(await freshSchema(dbUrl));

/** A loopback port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((done) => srv.close(() => done()));
  return port;
}

describe('dispatch and claim on PostgreSQL', () => {
  it('dispatch inserts the DISPATCHED row on the server; claim is set-once; HARNESS_ID_IN_USE / _CONFLICT write nothing', async () => {
    const h = await host();
    const a = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'a', '--harness-id', 'run-a', '--can-write', 'docs']);
    expect(await pgRow(h.url, a.contract_id)).toMatchObject({
      agent_state: 'DISPATCHED',
      harness_id: 'run-a',
      workspace: 'ws',
      can_write_json: '["docs"]',
    });
    const b = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'b']);

    const again = h.run(['contract', 'dispatch', ...WS, '--goal', 'c', '--harness-id', 'run-a', '--json']);
    expect([again.code, again.json.code]).toEqual([1, 'HARNESS_ID_IN_USE']);
    expect(await pgCount(h.url, 'handoffs')).toBe(2);

    for (const [args, code] of [
      [['--harness-id', 'run-x', '--draft-id', a.contract_id], 'HARNESS_ID_CONFLICT'],
      [['--harness-id', 'run-a', '--draft-id', b.contract_id], 'HARNESS_ID_IN_USE'],
    ] as const) {
      const token = args[3] === a.contract_id ? a.claim_token : b.claim_token;
      const r = h.run(['contract', 'claim', ...args, '--claim-token', token, '--json']);
      expect([r.code, r.json.code]).toEqual([1, code]);
    }
    expect((await pgRow(h.url, b.contract_id)).harness_id).toBeNull();
    const noToken = h.run(['contract', 'claim', '--harness-id', 'run-b', '--draft-id', b.contract_id, '--json']);
    expect([noToken.code, noToken.json.code]).toEqual([2, 'CLAIM_TOKEN_REQUIRED']);
    const wrong = h.run(['contract', 'claim', '--harness-id', 'run-b', '--draft-id', b.contract_id, '--json'], {
      env: { HANDOFF_CLAIM_TOKEN: a.claim_token },
    });
    expect([wrong.code, wrong.json.code]).toEqual([1, 'CLAIM_TOKEN_INVALID']);
    expect((await pgRow(h.url, b.contract_id)).harness_id).toBeNull();
    const tok = ['--claim-token', b.claim_token];
    expect(
      hostOk(h, ['contract', 'claim', '--harness-id', 'run-b', '--draft-id', b.contract_id, ...tok]),
    ).toMatchObject({
      changed: true,
      handoff_id: b.handoff_id,
    });
    expect(hostOk(h, ['contract', 'claim', '--harness-id', 'run-b', '--draft-id', b.contract_id, ...tok]).changed).toBe(
      false,
    );
    expect((await pgRow(h.url, b.contract_id)).harness_id).toBe('run-b');
    expect(noSqliteFile(h)).toBe(true);
  });

  it("an init contract's finalize stores its claim token's hash on the server; its claim needs the token", async () => {
    const h = await host();
    const init = hostOk(h, ['contract', 'init', ...WS]);
    const id = init.draft_id as string;
    fill(h, id, { ...COMPLETE_PATCH, agent_status: { ...COMPLETE_PATCH.agent_status, agent_state: 'COMPLETE' } });
    hostOk(h, ['contract', 'finalize', '--draft-id', id]);
    expect((await pgRow(h.url, id)).claim_token_sha256).toMatch(/^[0-9a-f]{64}$/);
    const bare = h.run(['contract', 'claim', '--harness-id', 'run-i', '--draft-id', id, '--json']);
    expect([bare.code, bare.json.code]).toEqual([2, 'CLAIM_TOKEN_REQUIRED']);
    expect((await pgRow(h.url, id)).harness_id).toBeNull();
    const tok = ['--claim-token', init.claim_token as string];
    expect(hostOk(h, ['contract', 'claim', '--harness-id', 'run-i', '--draft-id', id, ...tok]).changed).toBe(true);
  });

  it('BRIEF_NOT_FOUND (exit 3) and PARENT_HANDOFF_NOT_FOUND (exit 3): no row, no draft', async () => {
    const h = await host();
    hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'first']); // the store exists
    for (const [args, code] of [
      [['--brief', 'nope'], 'BRIEF_NOT_FOUND'],
      [['--parent-handoff-id', '999'], 'PARENT_HANDOFF_NOT_FOUND'],
    ] as const) {
      const r = h.run(['contract', 'dispatch', ...WS, '--goal', 'g', ...args, '--json']);
      expect([r.code, r.json.code], r.stdout).toEqual([3, code]);
    }
    expect(await pgCount(h.url, 'handoffs')).toBe(1);
    expect(h.drafts()).toHaveLength(1);
  });

  it('ROW_NOT_FOUND (exit 3) for claim on an empty database, which stays unmigrated', async () => {
    const h = await host();
    const r = h.run([
      'contract',
      'claim',
      '--harness-id',
      'x',
      '--draft-id',
      'a0123456789abcdef.0123456789ab',
      '--json',
    ]);
    expect([r.code, r.json.code]).toEqual([3, 'ROW_NOT_FOUND']);
    expect(
      await sql(h.url, "SELECT 1 FROM pg_tables WHERE tablename = 'handoffs' AND schemaname = current_schema()"),
    ).toEqual([]);
  });
});

describe('finalize on PostgreSQL', () => {
  it('creates the row once; a repeat is a no-op; COMPLETE is write-once', async () => {
    const h = await host();
    const id = hostOk(h, ['contract', 'init', ...WS]).draft_id as string;
    fill(h, id, COMPLETE_PATCH);
    hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    const first = hostOk(h, ['contract', 'finalize', '--draft-id', id]);
    expect(first).toMatchObject({ created: true, agent_state: 'COMPLETE' });
    expect(hostOk(h, ['contract', 'finalize', '--draft-id', id])).toMatchObject({
      created: false,
      unchanged_reason: 'complete_write_once',
    });
    const before = await pgRow(h.url, id);
    // The draft changed behind the verbs' back (a write would open a continuation): still nothing is written.
    const file = join(h.home, 'drafts', `${id}.json`);
    const draft = JSON.parse(readFileSync(file, 'utf8'));
    draft.agent_status.agent_state = 'BLOCKED';
    writeFileSync(file, JSON.stringify(draft));
    expect(hostOk(h, ['contract', 'finalize', '--draft-id', id])).toMatchObject({
      created: false,
      unchanged_reason: 'complete_write_once',
      agent_state: 'COMPLETE',
    });
    expect(await pgRow(h.url, id)).toEqual(before);
  });

  it('an escaped NUL in the envelope is stored verbatim; a raw NUL PostgreSQL cannot hold is STORE_WRITE_REFUSED (exit 4)', async () => {
    const h = await host();
    const id = hostOk(h, ['contract', 'init', ...WS]).draft_id as string;
    fill(h, id, {
      ...COMPLETE_PATCH,
      evidence_report: { verification: { type: 'command', command: 'npm\u0000test', result: 'pass' } },
    });
    hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    expect(hostOk(h, ['contract', 'finalize', '--draft-id', id]).created).toBe(true);
    expect(JSON.parse((await pgRow(h.url, id)).raw_handoff_json).evidence_report.verification.command).toBe(
      'npm\u0000test',
    );

    // Approval content is stored as text, byte for byte: a raw NUL is refused by the server, nothing written.
    const file = join(h.home, 'content.txt');
    writeFileSync(file, 'deploy\u0000v2');
    const r = h.run(['approval', 'request', '--content-file', file, '--draft-id', id, ...WS, '--json']);
    expect([r.code, r.json.code], r.stdout + r.stderr).toEqual([4, 'STORE_WRITE_REFUSED']);
    expect(await pgCount(h.url, 'approvals')).toBe(0);
  });
});

describe('approvals on PostgreSQL', () => {
  it('request, cite, validate, decide: a decided approval rejects validate and finalize (APPROVAL_ID_NOT_PENDING)', async () => {
    const h = await host();
    const d = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'g']);
    const id = d.contract_id as string;
    const req = hostOk(h, ['approval', 'request', '--content', 'deploy v2', '--draft-id', id, ...WS]);
    expect(req.approval_status).toBe('pending');
    fill(h, id, { approval_request: { exact_content: 'deploy v2', approval_id: req.approval_id } });
    hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id]);
    expect(hostOk(h, ['contract', 'validate', '--draft-id', id])).toEqual({ status: 'ok', draft_id: id });
    expect(hostOk(h, ['approval', 'list', '--contract-id', id]).approvals).toEqual([
      expect.objectContaining({ id: req.approval_id, approval_status: 'pending' }),
    ]);

    expect(hostOk(h, ['approval', 'decide', req.approval_id, '--decision', 'rejected', '--by', 'alice'])).toMatchObject(
      { changed: true, approval_status: 'rejected' },
    );
    const redo = h.run(['approval', 'decide', req.approval_id, '--decision', 'approved', '--json']);
    expect([redo.code, redo.json.code]).toEqual([1, 'APPROVAL_TRANSITION_REFUSED']);
    const v = h.run(['contract', 'validate', '--draft-id', id, '--json']);
    expect([v.code, v.json.codes]).toEqual([1, ['APPROVAL_ID_NOT_PENDING']]);
    const f = h.run(['contract', 'finalize', '--draft-id', id, '--json']);
    expect([f.code, f.json.codes]).toEqual([1, ['APPROVAL_ID_NOT_PENDING']]);
    expect((await pgRow(h.url, id)).agent_state).toBe('DISPATCHED');
  });

  it('finalize racing approval decide: whichever commits first, the other sees it; the gate agrees', async () => {
    const h = await host();
    for (let round = 0; round < 4; round++) {
      const id = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', `round ${round}`]).contract_id as string;
      const req = hostOk(h, ['approval', 'request', '--content', `step ${round}`, '--draft-id', id, ...WS]);
      fill(h, id, { approval_request: { exact_content: `step ${round}`, approval_id: req.approval_id } });
      hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id]);
      const [fin, dec] = await Promise.all([
        h.runAsync(['contract', 'finalize', '--draft-id', id, '--json']),
        h.runAsync(['approval', 'decide', req.approval_id, '--decision', 'rejected', '--json']),
      ]);
      expect(dec.code, dec.stdout + dec.stderr).toBe(0);
      const approval = (
        await sql<{ decided_at: string }>(h.url, 'SELECT decided_at FROM approvals WHERE id = $1', [req.approval_id])
      )[0];
      const row = await pgRow(h.url, id);
      if (fin.code === 0) {
        // Finalize committed first: the decision is dated after the turn ended, so the stop is not blocked by it.
        expect(JSON.parse(fin.stdout).created).toBe(true);
        expect(row.agent_state).toBe('APPROVAL_REQUEST');
        expect(approval.decided_at > row.finalized_at).toBe(true);
        const gate = h.run(['contract', 'gate', '--draft-id', id, '--json']);
        expect([gate.code, gate.json.decision], gate.stdout + gate.stderr).toEqual([0, 'allow']);
      } else {
        // The decision committed first: finalize's re-check saw it and wrote nothing.
        expect([fin.code, JSON.parse(fin.stdout).codes]).toEqual([1, ['APPROVAL_ID_NOT_PENDING']]);
        expect(row).toMatchObject({ agent_state: 'DISPATCHED', finalized_at: null });
      }
    }
  });

  it('decide on an unknown id is APPROVAL_NOT_FOUND (exit 3)', async () => {
    const h = await host();
    hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'g']);
    const r = h.run(['approval', 'decide', `P-${'0'.repeat(32)}`, '--decision', 'approved', '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'APPROVAL_NOT_FOUND']);
  });
});

describe('the stop gate on PostgreSQL', () => {
  it('blocks an unfinalized contract (capturing its draft, block 1), then allows once finalized', async () => {
    const h = await host();
    const d = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'g', '--harness-id', 'sub-1']);
    const id = d.contract_id as string;
    const input = subagentStop({ agentId: 'sub-1', extra: { stop_reason: 'end_turn' } });
    const blocked = h.run(['contract', 'gate', '--json'], { input });
    expect(blocked.code, blocked.stderr).toBe(2);
    expect(blocked.json).toMatchObject({
      decision: 'block',
      lane: 'harness_id',
      contract_id: id,
      codes: ['ROW_NOT_FINALIZED'],
      captured: true,
      attempt: 1,
    });
    expect(await pgRow(h.url, id)).toMatchObject({ agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
    // Claude Code records its hook feedback, so the count is by proof of delivery, kept in the host's files
    // (<root>/gate/), not in the server's gate_rejections.
    expect(await pgCount(h.url, 'gate_rejections')).toBe(0);
    expect((await pgRow(h.url, id)).gate_seen_at).not.toBeNull();

    fill(h, id, COMPLETE_PATCH);
    hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    expect(hostOk(h, ['contract', 'finalize', '--draft-id', id]).created).toBe(true);
    const allowed = h.run(['contract', 'gate', '--json'], { input });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.json).toMatchObject({ decision: 'allow', contract_id: id, agent_state: 'COMPLETE' });
    expect(await pgCount(h.url, 'gate_rejections')).toBe(0);
  });

  it('the prompt-block lane claims the contract for the run on the server', async () => {
    const h = await host();
    const d = hostOk(h, ['contract', 'dispatch', ...WS, '--goal', 'g']);
    const { writeTranscript } = await import('../helpers/gate.js');
    const transcript = writeTranscript(h.home, 't.jsonl', `contract_id: ${d.contract_id as string}\nDo it.`);
    const r = h.run(['contract', 'gate', '--json'], { input: stopInput({ session: 'sess-9', transcript }) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({ lane: 'prompt_block', claimed: true });
    expect((await pgRow(h.url, d.contract_id)).harness_id).toBe('sess-9');
  });
});

describe('an unreachable server', () => {
  it('is STORE_UNREACHABLE (exit 4) for the store verbs, and a store condition for --on-store-error block', async () => {
    const home = tempHome();
    const url = `postgres://nobody:secret@127.0.0.1:${await deadPort()}/handoff`;
    const env = { HANDOFF_STORE_URL: url };
    for (const args of [
      ['contract', 'list', '--json'],
      ['contract', 'chain', '--contract-id', 'a0123456789abcdef.0123456789ab', '--json'],
      ['contract', 'dispatch', ...WS, '--goal', 'g', '--json'],
      ['approval', 'list', '--json'],
    ]) {
      const r = run(home, args, { env });
      expect([r.code, r.json?.code], args.join(' ') + r.stderr).toEqual([4, 'STORE_UNREACHABLE']);
      expect(r.stdout + r.stderr).not.toContain('secret');
    }
    const id = 'a0123456789abcdef.0123456789ab';
    const input = subagentStop({ agentId: 'run-1', extra: { stop_reason: 'end_turn' } });
    const open = run(home, ['contract', 'gate', '--draft-id', id], { env, input });
    expect(open.code).toBe(1);
    const strict = run(home, ['contract', 'gate', '--draft-id', id, '--on-store-error', 'block', '--json'], {
      env,
      input,
    });
    expect(strict.code, strict.stderr).toBe(2);
    expect(strict.json).toMatchObject({ decision: 'block', source: 'store_error', codes: ['STORE_UNREACHABLE'] });
  });
});
