/**
 * An approval binding (an approval binds its contract chain and its exact content) and decision timing (a decision taken after
 * the turn ended does not block that turn's stop), end to end: writes, validate, finalize and the gate.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run, snapshot, tempHome } from '../helpers/cli.js';
import { closeDraft, initDraft, readDraftJson } from '../helpers/drafts.js';
import { envelopeIn, prefix, rowOf, runJson, seedRow, withStore, writeDraft } from '../helpers/store-cli.js';

const FOREIGN: [string, string] = ['APPROVAL_FOREIGN', 'approval_request.approval_id'];
const MISMATCH: [string, string] = ['APPROVAL_CONTENT_MISMATCH', 'approval_request.exact_content'];
const NOT_PENDING: [string, string] = ['APPROVAL_ID_NOT_PENDING', 'approval_request.approval_id'];
const pairs = (json: { errors: { code: string; path: string }[] }): [string, string][] =>
  json.errors.map((e) => [e.code, e.path]);

function request(home: string, content: string, draftId?: string): { id: string; fill: string } {
  const r = runJson(home, ['approval', 'request', '--content', content, ...(draftId ? ['--draft-id', draftId] : [])]);
  expect(r.code, r.stderr).toBe(0);
  return { id: r.json.approval_id as string, fill: r.json.fill_command as string };
}

const decide = (home: string, id: string, decision: string): void => {
  expect(run(home, ['approval', 'decide', id, '--decision', decision]).code).toBe(0);
};

/** An APPROVAL_REQUEST envelope citing `approvalId` with `content`, written straight to the draft file (no checks). */
function handEdited(home: string, draftId: string, approvalId: string, content: string): void {
  writeDraft(
    home,
    draftId,
    envelopeIn(prefix(draftId), 'APPROVAL_REQUEST', {
      approval_request: { exact_content: content, approval_id: approvalId },
    }),
  );
}

/** Runs a printed shell line with `handoff` on PATH (a shim for the built binary). */
function runLine(home: string, line: string): { code: number | null; stderr: string; stdout: string } {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'handoff'), 0o755);
  const r = spawnSync('bash', ['-c', line], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, HANDOFF_HOME: home, NO_COLOR: '1' },
    cwd: home,
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const gate = (home: string, id: string) =>
  run(home, ['contract', 'gate', '--draft-id', id, '--stop-reason', 'end_turn', '--json']);

describe('approval request prints a ready-to-run fill line', () => {
  it.each([
    ['quotes, a shell substitution, a newline and unicode', `it's "quoted" \\ $(touch pwned) \`id\`\nline 2 ✓ café`],
    ['content that set would parse as JSON', '42'],
    ['a JSON-looking object', '{"a": [1, 2]}'],
  ])(
    '%s: the line writes exact_content byte for byte and the approval id, and the turn finalizes',
    (_what, content) => {
      const home = tempHome();
      const id = initDraft(home);
      const ap = request(home, content, id);
      expect(ap.fill).toMatch(new RegExp(`^handoff contract fill --draft-id ${id} --json '`));
      expect(ap.fill).not.toContain('\n');
      const human = run(home, ['approval', 'request', '--content', content, '--draft-id', id]);
      expect(human.stdout).toContain('handoff contract fill --draft-id');

      const filled = runLine(home, ap.fill);
      expect(filled.code, filled.stderr).toBe(0);
      const e = readDraftJson(home, id);
      expect(e.approval_request).toEqual({ exact_content: content, approval_id: ap.id });
      expect(typeof e.approval_request.exact_content).toBe('string');
      expect(
        run(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id]).code,
      ).toBe(0);
      const f = runJson(home, ['contract', 'finalize', '--draft-id', id]);
      expect(f.code, f.stdout).toBe(0);
      expect(f.json.agent_state).toBe('APPROVAL_REQUEST');
      expect(snapshot(home)['pwned']).toBeUndefined();
    },
  );
});

describe('the approval is bound to its content (APPROVAL_CONTENT_MISMATCH)', () => {
  it('a write citing the approval with other content is rejected at exact_content; nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, 'DROP TABLE payments_old;', id);
    const before = snapshot(home);
    const patch = { approval_request: { exact_content: 'DROP TABLE payments;', approval_id: ap.id } };
    const r = run(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(patch)]);
    expect(r.code).toBe(1);
    expect(pairs(r.json)).toEqual([MISMATCH]);
    expect(snapshot(home)).toEqual(before);
  });

  it('validate and finalize of a hand-edited draft report it (exit 1, nothing written); the gate blocks the row', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, 'DROP TABLE payments_old;', id);
    handEdited(home, id, ap.id, 'DROP TABLE payments;');
    const v = runJson(home, ['contract', 'validate', '--draft-id', id]);
    expect([v.code, pairs(v.json)]).toEqual([1, [MISMATCH]]);
    const before = snapshot(home);
    const f = runJson(home, ['contract', 'finalize', '--draft-id', id]);
    expect([f.code, pairs(f.json)]).toEqual([1, [MISMATCH]]);
    expect(snapshot(home)).toEqual(before);

    // A row that reached the store with mismatched content (by hand): the gate blocks it.
    const other = `${prefix(id)}.0123456789ab`;
    seedRow(home, {
      contract_id: other,
      agent_state: 'APPROVAL_REQUEST',
      raw: envelopeIn(prefix(id), 'APPROVAL_REQUEST', {
        approval_request: {
          exact_content: 'DROP TABLE payments;',
          approval_id: request(home, 'DROP TABLE payments_old;', other).id,
        },
      }),
    });
    const g = gate(home, other);
    expect([g.code, g.json.decision, pairs(g.json)]).toEqual([2, 'block', [MISMATCH]]);
  });
});

describe('the approval is bound to its contract chain (APPROVAL_FOREIGN)', () => {
  it("another contract's approval is refused first, before its content and status", () => {
    const home = tempHome();
    const mine = initDraft(home);
    const theirs = initDraft(home);
    const ap = request(home, 'git push origin main', theirs);
    decide(home, ap.id, 'approved');
    // Wrong content and a decided approval too: only APPROVAL_FOREIGN is reported.
    const before = snapshot(home);
    const w = run(home, [
      'contract',
      'fill',
      '--draft-id',
      mine,
      '--json',
      JSON.stringify({ approval_request: { exact_content: 'other', approval_id: ap.id } }),
    ]);
    expect([w.code, pairs(w.json)]).toEqual([1, [FOREIGN]]);
    expect(snapshot(home)).toEqual(before);

    handEdited(home, mine, ap.id, 'git push origin main');
    expect(pairs(runJson(home, ['contract', 'validate', '--draft-id', mine]).json)).toEqual([FOREIGN]);
    const f = runJson(home, ['contract', 'finalize', '--draft-id', mine]);
    expect([f.code, pairs(f.json)]).toEqual([1, [FOREIGN]]);
    expect(rowOf(home, mine)).toBeUndefined();
    // validate --file has no citing contract: the foreign check does not apply there; the status still does.
    const file = join(home, 'envelope.json');
    writeFileSync(file, JSON.stringify(readDraftJson(home, mine)));
    expect(pairs(runJson(home, ['contract', 'validate', '--file', file]).json)).toEqual([NOT_PENDING]);
  });

  it('an approval requested by an earlier link of the chain is not foreign', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, 'deploy', id);
    closeDraft(home, id);
    // The closed contract's next write opens a continuation link; citing the approval there is fine.
    const w = run(home, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ approval_request: { exact_content: 'deploy', approval_id: ap.id } }),
    ]);
    expect(w.code, w.stdout).toBe(0);
    expect(w.json.continuation.status).toBe('opened');
  });

  it("the gate blocks a finalized row citing another chain's approval", () => {
    const home = tempHome();
    const other = initDraft(home);
    const ap = request(home, 'git push origin main', other);
    const id = `${prefix(other)}.abcdefabcdef`;
    seedRow(home, {
      contract_id: id,
      agent_state: 'APPROVAL_REQUEST',
      raw: envelopeIn(prefix(id), 'APPROVAL_REQUEST', {
        approval_request: { exact_content: 'git push origin main', approval_id: ap.id },
      }),
    });
    const g = gate(home, id);
    expect([g.code, pairs(g.json)]).toEqual([2, [FOREIGN]]);
  });
});

describe('decisions after the turn', () => {
  /** init, request, the printed fill line, APPROVAL_REQUEST, finalize: a turn that ended waiting for approval. */
  function approvalTurn(home: string): { id: string; approval: string } {
    const id = initDraft(home);
    const ap = request(home, 'git push origin main', id);
    expect(runLine(home, ap.fill).code).toBe(0);
    expect(run(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id]).code).toBe(
      0,
    );
    expect(runJson(home, ['contract', 'finalize', '--draft-id', id]).code).toBe(0);
    return { id, approval: ap.id };
  }

  it('finalize sets finalized_at once; a later convergence of the row keeps it', () => {
    const home = tempHome();
    const { id } = approvalTurn(home);
    const first = rowOf(home, id)!;
    expect(first.finalized_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The same row converged to another closing state (its draft edited by hand): finalized_at stays.
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
    const f = runJson(home, ['contract', 'finalize', '--draft-id', id]);
    expect([f.code, f.json.created, f.json.agent_state]).toEqual([0, true, 'BLOCKED']);
    expect(rowOf(home, id)!.finalized_at).toBe(first.finalized_at);
  });

  it.each(['approved', 'rejected', 'expired'])(
    'decided %s after the turn ended: the gate allows the stop',
    (decision) => {
      const home = tempHome();
      const { id, approval } = approvalTurn(home);
      decide(home, approval, decision);
      const decidedAt = withStore(
        home,
        (db) =>
          (db.prepare('SELECT decided_at FROM approvals WHERE id = ?').get(approval) as { decided_at: string })
            .decided_at,
      );
      expect(decidedAt > rowOf(home, id)!.finalized_at).toBe(true);
      const g = gate(home, id);
      expect([g.code, g.json.decision, g.json.codes]).toEqual([0, 'allow', []]);
    },
  );

  it('decided before the turn ended, or a row without finalized_at: still a block', () => {
    const home = tempHome();
    const owner = initDraft(home);
    const ap = request(home, 'git push origin main', owner);
    decide(home, ap.id, 'approved');
    const decidedAt = withStore(
      home,
      (db) =>
        (db.prepare('SELECT decided_at FROM approvals WHERE id = ?').get(ap.id) as { decided_at: string }).decided_at,
    );
    const envelope = envelopeIn(prefix(owner), 'APPROVAL_REQUEST', {
      approval_request: { exact_content: 'git push origin main', approval_id: ap.id },
    });
    seedRow(home, { contract_id: owner, agent_state: 'APPROVAL_REQUEST', raw: envelope });
    // No finalized_at (a row written before migration 0003): no end of turn is known.
    expect(pairs(gate(home, owner).json)).toEqual([NOT_PENDING]);
    withStore(home, (db) =>
      db
        .prepare('UPDATE handoffs SET finalized_at = ? WHERE contract_id = ?')
        .run(new Date(Date.parse(decidedAt) + 1000).toISOString(), owner),
    );
    const g = gate(home, owner);
    expect([g.code, pairs(g.json)]).toEqual([2, [NOT_PENDING]]);
  });

  it('a finalize after the decision is still rejected (exit 1), nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, 'git push origin main', id);
    expect(runLine(home, ap.fill).code).toBe(0);
    expect(run(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', id]).code).toBe(
      0,
    );
    decide(home, ap.id, 'approved');
    const before = snapshot(home);
    const f = runJson(home, ['contract', 'finalize', '--draft-id', id]);
    expect([f.code, pairs(f.json)]).toEqual([1, [NOT_PENDING]]);
    expect(snapshot(home)).toEqual(before);
  });
});
