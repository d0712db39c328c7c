/**
 * The approval lifecycle end to end on SQLite: a turn requests an approval and closes APPROVAL_REQUEST; a human
 * approves it; the executing turn (the contract's continuation) writes the printed fill input, works and finalizes,
 * which marks the approval used by that row, once. Every refusal: exit code, code, nothing written.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft } from '../helpers/drafts.js';
import { envelopeIn, prefix, rowOf, runJson, seedRow, withStore, writeDraft } from '../helpers/store-cli.js';

const CONTENT = 'git push origin main';
const pairs = (json: { errors: { code: string; path: string }[] }): [string, string][] =>
  json.errors.map((e) => [e.code, e.path]);
const USED: [string, string] = ['APPROVAL_ALREADY_USED', 'approval_request.approval_id'];
const NOT_APPROVED: [string, string] = ['APPROVAL_NOT_APPROVED', 'approval_request.approval_id'];
const NOT_PENDING: [string, string] = ['APPROVAL_ID_NOT_PENDING', 'approval_request.approval_id'];

function ok(home: string, args: string[]): any {
  const r = runJson(home, args);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

/** Runs a printed shell text with `handoff` on PATH (a shim for the built binary). */
function runShell(home: string, text: string): { code: number | null; stderr: string; stdout: string } {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'handoff'), 0o755);
  const r = spawnSync('bash', ['-c', text], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, HANDOFF_HOME: home, NO_COLOR: '1' },
    cwd: home,
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const approvalRow = (home: string, id: string): any =>
  withStore(home, (db) => db.prepare('SELECT * FROM approvals WHERE id = ?').get(id));
const setState = (home: string, id: string, state: string): void => {
  const r = run(home, ['contract', 'set', 'agent_status.agent_state', state, '--draft-id', id]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
};

/** Turn 1: request, write the content and id with the printed line, close APPROVAL_REQUEST. Returns the approval id. */
function waitingTurn(home: string, content = CONTENT): { id: string; approval: string } {
  const id = initDraft(home);
  const req = ok(home, ['approval', 'request', '--content', content, '--draft-id', id]);
  expect(runShell(home, req.fill_command).code).toBe(0);
  setState(home, id, 'APPROVAL_REQUEST');
  ok(home, ['contract', 'finalize', '--draft-id', id]);
  return { id, approval: req.approval_id };
}

/** The executing turn: the fill input `decide` printed, run as printed; returns the continuation's id. */
/** An approval the executing turn `next` cited and used: its finalize (closing BLOCKED) marked it used. */
function usedApproval(home: string): { id: string; approval: string; decided: any; next: string } {
  const { id, approval } = waitingTurn(home);
  const decided = ok(home, ['approval', 'decide', approval, '--decision', 'approved']);
  const next = executingTurn(home, id, decided);
  setState(home, next, 'BLOCKED');
  ok(home, ['contract', 'finalize', '--draft-id', next]);
  return { id, approval, decided, next };
}

function executingTurn(home: string, id: string, decided: any): string {
  const heredoc = `${decided.fill_command} <<'HANDOFF_APPROVAL'\n${decided.fill_input}\nHANDOFF_APPROVAL`;
  const w = runShell(home, heredoc);
  expect(w.code, w.stdout + w.stderr).toBe(0);
  const out = JSON.parse(w.stdout) as { draft_id: string; continuation?: { status: string } };
  expect(out.continuation?.status).toBe('opened');
  return out.draft_id;
}

describe('an approved approval is used once by its executing turn', () => {
  it('approve, execute, finalize: the approval becomes used by that row, keeping its decision', () => {
    const home = tempHome();
    const { id, approval } = waitingTurn(home);
    const decided = ok(home, ['approval', 'decide', approval, '--decision', 'approved', '--by', 'alice']);
    expect(decided.fill_command).toBe(`handoff contract fill --draft-id ${id} --json-file -`);
    const decidedAt = approvalRow(home, approval).decided_at as string;

    const next = executingTurn(home, id, decided);
    expect(next).not.toBe(id);
    setState(home, next, 'BLOCKED');
    const f = ok(home, ['contract', 'finalize', '--draft-id', next]);
    expect(f.created).toBe(true);
    const row = approvalRow(home, approval);
    expect(row).toMatchObject({
      status: 'used',
      decided_at: decidedAt,
      decided_by: 'alice',
      used_by_handoff_id: rowOf(home, next)!.id,
    });
    expect(row.used_at >= decidedAt).toBe(true);

    // An identical repeat of that finalize is a no-op; the gate of that turn allows its stop.
    const again = ok(home, ['contract', 'finalize', '--draft-id', next]);
    expect([again.created, again.unchanged_reason]).toEqual([false, 'identical']);
    const g = runJson(home, ['contract', 'gate', '--draft-id', next, '--stop-reason', 'end_turn']);
    expect([g.code, g.json.decision]).toEqual([0, 'allow']);
    // The spent draft of the turn that waited cites an approval another row used: validate says so.
    const waiting = runJson(home, ['contract', 'validate', '--draft-id', id]);
    expect(waiting.code).toBe(1);
    expect(pairs(waiting.json)).toEqual([USED]);

    // list --status used and show report the use.
    const listed = ok(home, ['approval', 'list', '--status', 'used']);
    expect(listed.approvals.map((a: any) => [a.id, a.approval_status, a.used_by_handoff_id])).toEqual([
      [approval, 'used', row.used_by_handoff_id],
    ]);
    const shown = ok(home, ['approval', 'show', approval]);
    expect(shown.approval).toMatchObject({
      approval_status: 'used',
      used_at: row.used_at,
      decided_by: 'alice',
      exact_content: CONTENT,
    });
    expect([shown.fill_command, shown.fill_input]).toEqual([null, null]);
  });

  it('citing a used approval from any other handoff is APPROVAL_ALREADY_USED (exit 1), nothing written', () => {
    const home = tempHome();
    const { id, approval, decided, next } = usedApproval(home);

    // The next continuation carries no approval; citing the used one again is refused at the write…
    const before = snapshot(home);
    const w = run(home, ['contract', 'fill', '--draft-id', next, '--json', decided.fill_input]);
    expect([w.code, pairs(w.json)]).toEqual([1, [USED]]);
    expect(snapshot(home)).toEqual(before);
    // …and at finalize of the next link of the chain, its draft edited by hand to cite it.
    const opened = run(home, ['contract', 'fill', '--draft-id', next, '--json', '{"report_prose":"next turn"}']);
    expect(opened.code, opened.stderr).toBe(0);
    const third = opened.json.draft_id as string;
    writeDraft(
      home,
      third,
      envelopeIn(prefix(id), 'BLOCKED', { approval_request: { exact_content: CONTENT, approval_id: approval } }),
    );
    const before2 = snapshot(home);
    const f = runJson(home, ['contract', 'finalize', '--draft-id', third]);
    expect([f.code, pairs(f.json)]).toEqual([1, [USED]]);
    expect(snapshot(home)).toEqual(before2);
    expect(approvalRow(home, approval).used_by_handoff_id).toBe(rowOf(home, next)!.id);
  });

  it('a pending approval: writes accept it, finalize of an executing state is APPROVAL_NOT_APPROVED (exit 1), nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const req = ok(home, ['approval', 'request', '--content', CONTENT, '--draft-id', id]);
    expect(runShell(home, req.fill_command).code).toBe(0);
    setState(home, id, 'BLOCKED');
    const before = snapshot(home);
    const f = runJson(home, ['contract', 'finalize', '--draft-id', id]);
    expect([f.code, pairs(f.json)]).toEqual([1, [NOT_APPROVED]]);
    expect(snapshot(home)).toEqual(before);
    expect(approvalRow(home, req.approval_id).status).toBe('pending');
    // The gate blocks such a row too.
    const other = `${prefix(id)}.0123456789ab`;
    seedRow(home, {
      contract_id: other,
      agent_state: 'BLOCKED',
      raw: envelopeIn(prefix(id), 'BLOCKED', {
        approval_request: { exact_content: CONTENT, approval_id: req.approval_id },
      }),
    });
    withStore(home, (db) => db.prepare('UPDATE approvals SET contract_id = NULL WHERE id = ?').run(req.approval_id));
    const g = runJson(home, ['contract', 'gate', '--draft-id', other, '--stop-reason', 'end_turn']);
    expect([g.code, g.json.decision, pairs(g.json)]).toEqual([2, 'block', [NOT_APPROVED]]);
  });

  it('an approved approval cited by a turn closing APPROVAL_REQUEST is still APPROVAL_ID_NOT_PENDING', () => {
    const home = tempHome();
    const id = initDraft(home);
    const req = ok(home, ['approval', 'request', '--content', CONTENT, '--draft-id', id]);
    expect(runShell(home, req.fill_command).code).toBe(0);
    ok(home, ['approval', 'decide', req.approval_id, '--decision', 'approved']);
    const w = run(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'APPROVAL_REQUEST',
      '--draft-id',
      id,
      '--json',
    ]);
    expect([w.code, pairs(w.json)]).toEqual([1, [NOT_PENDING]]);
  });
});

describe('decide on a used approval, and --decision used', () => {
  it('decide on used: APPROVAL_TRANSITION_REFUSED (exit 1); --decision used: USAGE (exit 2); nothing written', () => {
    const home = tempHome();
    const { approval } = usedApproval(home);
    const before = snapshot(home);
    for (const decision of ['revoked', 'approved', 'expired']) {
      const r = runJson(home, ['approval', 'decide', approval, '--decision', decision]);
      expect([r.code, r.json.code]).toEqual([1, 'APPROVAL_TRANSITION_REFUSED']);
    }
    const u = runJson(home, ['approval', 'decide', approval, '--decision', 'used']);
    expect([u.code, u.json.code]).toEqual([2, 'USAGE']);
    expect(snapshot(home)).toEqual(before);
  });

  it('--decision used on a pending approval is USAGE too', () => {
    const home = tempHome();
    const id = initDraft(home);
    const req = ok(home, ['approval', 'request', '--content', CONTENT, '--draft-id', id]);
    const u = runJson(home, ['approval', 'decide', req.approval_id, '--decision', 'used']);
    expect([u.code, u.json.code]).toEqual([2, 'USAGE']);
    expect(approvalRow(home, req.approval_id).status).toBe('pending');
  });
});

describe('ownership of an approved approval', () => {
  it("another agent's approval without a contract is APPROVAL_FOREIGN; the requesting agent's own is accepted", () => {
    const home = tempHome();
    const mine = initDraft(home);
    const theirs = ok(home, ['approval', 'request', '--content', CONTENT, '--agent-id', 'afedcba9876543210']);
    const own = ok(home, ['approval', 'request', '--content', CONTENT, '--agent-id', prefix(mine)]);
    for (const a of [theirs, own]) ok(home, ['approval', 'decide', a.approval_id, '--decision', 'approved']);
    const patch = (a: any) =>
      JSON.stringify({ approval_request: { exact_content: CONTENT, approval_id: a.approval_id } });
    const before = snapshot(home);
    const w = run(home, ['contract', 'fill', '--draft-id', mine, '--json', patch(theirs)]);
    expect([w.code, pairs(w.json)]).toEqual([1, [['APPROVAL_FOREIGN', 'approval_request.approval_id']]]);
    expect(snapshot(home)).toEqual(before);
    expect(run(home, ['contract', 'fill', '--draft-id', mine, '--json', patch(own)]).code).toBe(0);
  });

  it('an approved approval needs its exact content: a missing exact_content is APPROVAL_CONTENT_MISMATCH', () => {
    const home = tempHome();
    const id = initDraft(home);
    const req = ok(home, ['approval', 'request', '--content', CONTENT, '--draft-id', id]);
    ok(home, ['approval', 'decide', req.approval_id, '--decision', 'approved']);
    const w = run(home, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ approval_request: { approval_id: req.approval_id } }),
    ]);
    expect([w.code, pairs(w.json)]).toEqual([1, [['APPROVAL_CONTENT_MISMATCH', 'approval_request.exact_content']]]);
  });
});
