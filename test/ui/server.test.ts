/** `handoff ui`'s server, in-process: the token, the host and origin checks, the CSP, its reads and its one write. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Signer } from '../../src/attest/record.js';
import { decisionSigner } from '../../src/attest/signer.js';
import type { UiServer } from '../../src/ui/server.js';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { envelopeIn, insertRow, mintDraft, prefix, withStore } from '../helpers/store-cli.js';
import {
  CONTENT,
  GOAL,
  HOSTILE_GOAL,
  RISK,
  WORKSPACE,
  decideRequest,
  request,
  seed,
  uiEnv,
  serve,
  type Seeded,
} from '../helpers/ui.js';

let seeded: Seeded;
const servers: UiServer[] = [];
const start = async (home = seeded.home, port = 0, signer?: Signer): Promise<UiServer> => {
  const s = await serve(home, port, signer);
  servers.push(s);
  return s;
};

beforeAll(() => {
  seeded = seed(tempHome());
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const approvals = (home: string, status: string) =>
  run(home, ['approval', 'list', '--status', status, '--json'], { env: { HANDOFF_WORKSPACE: WORKSPACE } }).json
    .approvals as any[];

describe('handoff ui: access', () => {
  it('listens on 127.0.0.1 only, under a random token: without it, or with another, every path is 403', async () => {
    const s = await start();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
    const base = `http://127.0.0.1:${s.port}/`;
    for (const path of ['', 'app.js', 'api/chains', 'api/approvals', `x${s.url.slice(base.length)}api/chains`]) {
      expect((await request(base + path)).status, path).toBe(403);
    }
    const other = await start();
    expect(other.url).not.toBe(s.url);
    expect((await request(`${base}${other.url.split('/')[3]}/api/chains`)).status).toBe(403);
    expect((await request(`${s.url}api/chains`)).status).toBe(200);
  });

  it('refuses a request naming another host (DNS rebinding) even with the token', async () => {
    const s = await start();
    const r = await request(`${s.url}api/chains`, { headers: { Host: `evil.example:${s.port}` } });
    expect(r.status).toBe(403);
    expect((await request(`${s.url}api/chains`, { headers: { Host: `localhost:${s.port}` } })).status).toBe(200);
  });

  it('every answer carries a CSP that runs only the page own script, and the page has no inline script', async () => {
    const s = await start();
    for (const path of ['', 'app.js', 'app.css', 'api/chains', 'nope']) {
      const r = await request(s.url + path);
      const csp = r.headers['content-security-policy'] as string;
      expect(csp, path).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
    const html = (await request(s.url)).text;
    expect(html).toMatch(/<script src="app.js" defer><\/script>/);
    expect(html.match(/<script/g)).toHaveLength(1);
    const js = (await request(`${s.url}app.js`)).text;
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  });

  it('a port in use is UI_PORT_IN_USE', async () => {
    const s = await start();
    await expect(start(seeded.home, s.port)).rejects.toMatchObject({ code: 'UI_PORT_IN_USE', exit: 2 });
  });
});

describe('handoff ui: reads', () => {
  it("lists the workspace's chains newest first, one per chain, with state, liveness and cut marks", async () => {
    const s = await start();
    const r = await request(`${s.url}api/chains`);
    expect(r.json.workspace).toBe(WORKSPACE);
    const chains = r.json.chains as any[];
    expect(chains.map((c) => c.live_contract_id)).toEqual([seeded.requester, seeded.hostile, seeded.next]);
    expect(chains[2]).toMatchObject({ root_contract_id: seeded.first, links: 2, goal: GOAL, degraded: false });
    expect(chains[1]).toMatchObject({
      goal: HOSTILE_GOAL,
      agent_state: 'DISPATCHED',
      liveness: 'running',
      cut_reason: 'never_finalized',
    });
  });

  it('shows a chain root to tip with envelopes, the same merge patches as `contract chain --diff`, and receipts', async () => {
    const s = await start();
    const r = await request(`${s.url}api/chain?contract=${seeded.first}`);
    expect(r.status).toBe(200);
    expect(r.json.links.map((l: any) => l.contract_id)).toEqual([seeded.first, seeded.next]);
    expect(r.json.links[1].envelope.report_prose).toBe('second turn');
    const cli = run(seeded.home, ['contract', 'chain', '--contract-id', seeded.next, '--diff', '--json']);
    expect(r.json.steps).toEqual(cli.json.steps);
    expect(r.json.receipts).toHaveLength(1);
    expect(r.json.receipts[0]).toMatchObject({
      contract_id: seeded.next,
      exit_code: 0,
      outcome: 'pass',
      freshness: 'unknown',
      stdout_tail: '3 tests passed\n',
    });
  });

  it("shows each link's evidence and declared test changes, and marks a captured link degraded and cut", async () => {
    const home = tempHome();
    const env = { HANDOFF_WORKSPACE: WORKSPACE };
    const id = run(home, ['contract', 'dispatch', '--goal', 'g', '--json'], { env }).json.contract_id as string;
    expect(run(home, ['brief', 'add', 'payments', '--ac', 'AC-1=replays are idempotent'], { env }).code).toBe(0);
    const text = '<b>replayed twice</b>';
    const added = ['evidence', 'add', '--brief', 'payments', '--ac', 'AC-1', '--type', 'text', '--text', text];
    expect(run(home, [...added, '--draft-id', id], { env }).code).toBe(0);
    const changes = [{ path: 'test/pay.test.ts', reason: 'new case' }];
    const fill = { evidence_report: { verification: { test_changes: changes } } };
    expect(run(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(fill)], { env }).code).toBe(0);
    const captured = mintDraft();
    withStore(home, (db) =>
      insertRow(db, {
        contract_id: captured,
        agent_state: 'IN_PROGRESS',
        workspace: WORKSPACE,
        raw: { ...envelopeIn(prefix(captured), 'IN_PROGRESS'), degraded: true, auto_captured: true },
      }),
    );
    const s = await start(home);
    const link = (await request(`${s.url}api/chain?contract=${id}`)).json.links[0];
    expect(link.evidence).toEqual([expect.objectContaining({ type: 'text', text, ac_id: 'AC-1', brief: 'payments' })]);
    expect(link.test_changes).toEqual(changes);
    const chains = (await request(`${s.url}api/chains`)).json.chains as any[];
    expect(chains.find((c) => c.live_contract_id === captured)).toMatchObject({
      degraded: true,
      liveness: 'cut',
      cut_reason: 'backstop_capture',
    });
    expect(chains.find((c) => c.live_contract_id === id)).toMatchObject({ degraded: false, liveness: 'running' });
  });

  it("judges a receipt's freshness against the work tree now: fresh, then stale once a file changes", async () => {
    const home = tempHome();
    const repo = join(home, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: repo });
    git('init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'one');
    const env = { HANDOFF_WORKSPACE: WORKSPACE };
    const id = run(home, ['contract', 'dispatch', '--goal', 'g', '--json'], { env }).json.contract_id as string;
    const ran = run(home, ['evidence', 'run', '--draft-id', id, '--', 'true'], { env, cwd: repo });
    expect(ran.code, ran.stderr).toBe(0);
    const s = await start(home);
    const freshness = async () =>
      (await request(`${s.url}api/chain?contract=${id}`)).json.receipts.map((r: any) => r.freshness);
    expect(await freshness()).toEqual(['fresh']);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    expect(await freshness()).toEqual(['stale']);
  });

  it('a chain of another workspace or an id that is not one is refused with a code', async () => {
    const s = await start();
    const other = run(seeded.home, ['contract', 'dispatch', '--goal', 'elsewhere', '--json'], {
      env: { HANDOFF_WORKSPACE: 'other' },
    }).json.contract_id as string;
    const foreign = await request(`${s.url}api/chain?contract=${other}`);
    expect({ status: foreign.status, code: foreign.json.code }).toEqual({ status: 404, code: 'ROW_NOT_FOUND' });
    expect((await request(`${s.url}api/chains`)).json.chains.map((c: any) => c.live_contract_id)).not.toContain(other);
    expect((await request(`${s.url}api/chain?contract=../../etc`)).json).toMatchObject({ code: 'INVALID_DRAFT_ID' });
    const unknown = await request(`${s.url}api/chain?contract=a0123456789abcdef.0123456789ab`);
    expect({ status: unknown.status, code: unknown.json.code }).toEqual({ status: 404, code: 'ROW_NOT_FOUND' });
  });

  it('lists pending approvals with exact content, risk and the requesting contract', async () => {
    const s = await start();
    const r = await request(`${s.url}api/approvals`);
    expect(r.json.approvals).toEqual([
      expect.objectContaining({
        id: seeded.approvalId,
        exact_content: CONTENT,
        risk: RISK,
        contract_id: seeded.requester,
        contract_goal: 'Release 2.0',
        contract_state: 'DISPATCHED',
      }),
    ]);
    expect(r.json.signing).toBe('unsigned');
  });

  it('takes the risk only from the request that names this approval: another approval of the contract has none', async () => {
    const home = tempHome();
    const { requester, approvalId } = seed(home);
    const env = { HANDOFF_WORKSPACE: WORKSPACE };
    const other = run(home, ['approval', 'request', '--content', 'npm publish', '--draft-id', requester, '--json'], {
      env,
    }).json.approval_id as string;
    const s = await start(home);
    const risks = Object.fromEntries(
      ((await request(`${s.url}api/approvals`)).json.approvals as any[]).map((a) => [a.id, a.risk]),
    );
    expect(risks).toEqual({ [approvalId]: RISK, [other]: null });
  });

  it('reading every page writes nothing, and a write method on a read path is 405', async () => {
    const s = await start();
    const before = snapshot(seeded.home);
    for (const path of ['', 'app.js', 'api/chains', 'api/approvals', `api/chain?contract=${seeded.next}`])
      expect((await request(s.url + path)).status).toBe(200);
    for (const path of ['api/chains', 'api/approvals', '']) {
      const r = await request(s.url + path, { method: 'POST', headers: { 'Sec-Fetch-Site': 'same-origin' } });
      expect({ status: r.status, code: r.json?.code }).toEqual({ status: 405, code: 'UI_REQUEST_REFUSED' });
    }
    expect((await request(`${s.url}api/approvals/${seeded.approvalId}/decide`)).status).toBe(405);
    expect(snapshot(seeded.home)).toEqual(before);
  });
});

describe('handoff ui: deciding', () => {
  it.each([
    ['no Origin and no Sec-Fetch-Site', {}],
    ['a cross-site Sec-Fetch-Site', { 'Sec-Fetch-Site': 'cross-site' }],
    ['another Origin', { Origin: 'http://evil.example' }],
    ['same-site but another origin', { Origin: 'http://127.0.0.1:1', 'Sec-Fetch-Site': 'same-site' }],
  ])('refuses a decision with %s (403 UI_REQUEST_REFUSED) and writes nothing', async (_what, headers) => {
    const home = tempHome();
    const { approvalId } = seed(home);
    const s = await start(home);
    const before = snapshot(home);
    const r = await decideRequest(s, approvalId, { decision: 'approved', by: 'alice' }, headers);
    expect({ status: r.status, code: r.json.code }).toEqual({ status: 403, code: 'UI_REQUEST_REFUSED' });
    expect(snapshot(home)).toEqual(before);
  });

  it('refuses a decision without the token (403), a form post (415), and bad bodies (400 USAGE); nothing is written', async () => {
    const home = tempHome();
    const { approvalId } = seed(home);
    const s = await start(home);
    const before = snapshot(home);
    const noToken = await request(`http://127.0.0.1:${s.port}/api/approvals/${approvalId}/decide`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin' },
      body: '{"decision":"approved","by":"alice"}',
    });
    expect(noToken.status).toBe(403);
    const form = await request(`${s.url}api/approvals/${approvalId}/decide`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Sec-Fetch-Site': 'same-origin' },
      body: '{"decision":"approved","by":"alice"}',
    });
    expect(form.status).toBe(415);
    for (const body of [
      { decision: 'revoked', by: 'a' },
      { decision: 'approved' },
      { decision: 'approved', by: ' ' },
    ]) {
      const r = await decideRequest(s, approvalId, body);
      expect({ status: r.status, code: r.json.code }, JSON.stringify(body)).toEqual({ status: 400, code: 'USAGE' });
    }
    const badId = await decideRequest(s, 'P-..', { decision: 'approved', by: 'a' });
    expect(badId.json.code).toBe('USAGE');
    expect(snapshot(home)).toEqual(before);
    expect(approvals(home, 'pending').map((a) => a.id)).toEqual([approvalId]);
  });

  it('approves through the approval service: `approval list` shows it approved by the name given; a second decision is refused', async () => {
    const home = tempHome();
    const { approvalId } = seed(home);
    const s = await start(home);
    const r = await decideRequest(s, approvalId, { decision: 'approved', by: 'alice', note: 'ok to ship' });
    expect(r.json).toMatchObject({ approval_status: 'approved', previous_status: 'pending', changed: true });
    expect(approvals(home, 'approved')).toEqual([
      expect.objectContaining({ id: approvalId, decided_by: 'alice', decision_note: 'ok to ship' }),
    ]);
    const again = await decideRequest(s, approvalId, { decision: 'rejected', by: 'bob' });
    expect({ status: again.status, code: again.json.code }).toEqual({
      status: 409,
      code: 'APPROVAL_TRANSITION_REFUSED',
    });
    expect((await request(`${s.url}api/approvals`)).json.approvals).toEqual([]);
  });

  it('signs the decision with the approver key, as `approval decide --key` signs it', async () => {
    const home = tempHome();
    const { approvalId } = seed(home);
    const key = run(home, ['key', 'generate', '--type', 'ed25519', '--out', join(home, 'approver'), '--json']).json;
    const s = await start(home, 0, decisionSigner(uiEnv(home), home, key.private_key));
    expect((await request(`${s.url}api/approvals`)).json.signing).toBe('approver');
    expect((await decideRequest(s, approvalId, { decision: 'approved', by: 'alice' })).status).toBe(200);
    const statements = withStore(home, (db) =>
      db
        .prepare("SELECT signer, key_id FROM attestations WHERE kind = 'approval' AND subject_id = ? ORDER BY id")
        .all(approvalId),
    );
    expect(statements.at(-1)).toEqual({ signer: 'approver', key_id: key.key_id });
  });
});
