/**
 * Every row of the decision table through the built binary, plus the capture
 * guarantees and the truncation excuses.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import {
  COMPLETE_PATCH,
  dispatchJson,
  finalizeAs,
  gate,
  rawStore,
  row,
  subagentStop,
  writeTranscript,
} from '../helpers/gate.js';

const j = (home: string, args: string[], input?: string) => gate(home, ['--json', ...args], input);

/** A closed APPROVAL_REQUEST row whose approval was decided afterwards: its full verdict now fails. */
function staleApprovalRow(home: string): string {
  const d = dispatchJson(home, ['--goal', 'needs approval']);
  const req = run(home, [
    'approval',
    'request',
    '--content',
    'rm -rf build',
    '--draft-id',
    d.contract_id,
    '--workspace',
    'ws',
    '--json',
  ]);
  expect(req.code, req.stderr).toBe(0);
  finalizeAs(home, d.contract_id, 'APPROVAL_REQUEST', {
    approval_request: { exact_content: 'rm -rf build', approval_id: req.json.approval_id },
  });
  expect(run(home, ['approval', 'decide', req.json.approval_id, '--decision', 'approved', '--json']).code).toBe(0);
  // A decision taken after the turn ended is no violation: date this one before the row's
  // finalized_at, as a decision the turn should have seen (decided_at is the one approval column a store may move).
  const db = rawStore(home);
  db.prepare('UPDATE approvals SET decided_at = created_at WHERE id = ?').run(req.json.approval_id);
  db.close();
  return d.contract_id;
}

describe('decision table', () => {
  it('row 1: a closed row that passes the check is allowed (no output), whatever the stop class', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    finalizeAs(home, d.contract_id, 'NEEDS_VERIFICATION');
    const human = gate(home, ['--draft-id', d.contract_id], '');
    expect([human.code, human.stdout, human.stderr]).toEqual([0, '', '']);
    for (const reason of ['end_turn', 'max_tokens', 'whatever']) {
      const r = j(home, ['--draft-id', d.contract_id, '--stop-reason', reason]);
      expect(r.json).toMatchObject({
        status: 'ok',
        decision: 'allow',
        exit: 0,
        source: 'row',
        lane: 'draft_id',
        codes: [],
        errors: [],
        agent_state: 'NEEDS_VERIFICATION',
      });
    }
  });

  it('row 2: a bound COMPLETE row is blocked with BLIND_VERIFICATION_REQUIRED, never excused', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    // A row from an older tool: bound after it completed (finalize and dispatchJson can no longer produce this).
    const db = rawStore(home);
    db.prepare('UPDATE handoffs SET plan_task_id = ? WHERE contract_id = ?').run('T-9', d.contract_id);
    db.close();
    for (const reason of ['end_turn', 'max_tokens', 'tool_use']) {
      const r = j(home, ['--draft-id', d.contract_id, '--stop-reason', reason, '--max-rejections', '10']);
      expect(r.code).toBe(2);
      expect(r.json).toMatchObject({
        decision: 'block',
        exit: 2,
        source: 'row',
        codes: ['BLIND_VERIFICATION_REQUIRED'],
      });
      expect(r.json.errors[0].path).toBe('agent_status.agent_state');
      expect(r.stderr).toMatch(/^\[CONTRACT REJECTED\] .*T-9/);
      expect(r.stderr).toContain('NEEDS_VERIFICATION');
    }
  });

  it('row 2: a receipt check failure blocks, never excused (RECEIPT_REQUIRED on a --require-receipt turn)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--require-receipt']);
    finalizeAs(home, d.contract_id, 'NEEDS_VERIFICATION');
    // A stored envelope claiming a command check without a receipt (finalize would refuse it today).
    const db = rawStore(home);
    const stored = db
      .prepare('SELECT raw_handoff_json AS j FROM handoffs WHERE contract_id = ?')
      .get(d.contract_id) as { j: string };
    const env = JSON.parse(stored.j);
    env.evidence_report.verification = { type: 'command', command: 'npm test', result: 'pass' };
    db.prepare('UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?').run(
      JSON.stringify(env),
      d.contract_id,
    );
    db.close();
    const r = j(home, ['--draft-id', d.contract_id, '--stop-reason', 'max_tokens']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: 'block', source: 'row', codes: ['RECEIPT_REQUIRED'] });
    expect(r.json.errors[0].path).toBe('evidence_report.verification.receipt');
    expect(r.stderr).toContain('handoff evidence run --draft-id');
  });

  it('rows 1 and 2 with a real receipt: a cited receipt passes; once its output blob is tampered with, the stop is blocked', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--require-receipt']);
    const ran = run(home, [
      'evidence',
      'run',
      '--draft-id',
      d.contract_id,
      '--workspace',
      'ws',
      '--json',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('x'.repeat(5000))",
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const receipt = ran.json.receipt;
    expect(receipt.stdout_path).toEqual(expect.any(String));
    finalizeAs(home, d.contract_id, 'COMPLETE', {
      ...COMPLETE_PATCH,
      evidence_report: {
        verification: { type: 'command', command: receipt.command, result: 'pass', receipt: receipt.receipt_id },
      },
    });
    expect(j(home, ['--draft-id', d.contract_id]).json).toMatchObject({
      decision: 'allow',
      source: 'row',
      agent_state: 'COMPLETE',
    });

    writeFileSync(receipt.stdout_path, 'y'.repeat(5000));
    const r = j(home, ['--draft-id', d.contract_id, '--stop-reason', 'max_tokens']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: 'block', source: 'row', codes: ['RECEIPT_TAMPERED'] });
    expect(r.json.errors[0].path).toBe('evidence_report.verification.receipt');
  });

  it('row 3 / row 4: a closed row failing the full verdict is excused only by truncation', () => {
    const home = tempHome();
    const cid = staleApprovalRow(home);
    const blocked = gate(home, ['--draft-id', cid, '--stop-reason', 'end_turn'], '');
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr).toMatch(/^\[CONTRACT REJECTED\] /);
    expect(blocked.stderr).toMatch(/\n {2}APPROVAL_ID_NOT_PENDING \[approval_request\.approval_id\]: /);
    expect(blocked.stderr).toContain('continuation contract');
    expect(j(home, ['--draft-id', cid]).json).toMatchObject({
      decision: 'block',
      source: 'row',
      stop_class: 'unknown',
      codes: ['APPROVAL_ID_NOT_PENDING'],
    });

    const excused = gate(home, ['--draft-id', cid, '--stop-reason', 'max_tokens'], '');
    expect([excused.code, excused.stderr]).toEqual([0, '']);
    const msg = JSON.parse(excused.stdout);
    expect(Object.keys(msg)).toEqual(['systemMessage']);
    expect(msg.systemMessage).toContain('max_tokens');
    expect(msg.systemMessage).toContain(cid);
    const r = j(home, ['--draft-id', cid, '--stop-reason', 'model_context_window_exceeded']);
    expect(r.json).toMatchObject({ decision: 'allow', exit: 0, source: 'row', stop_class: 'truncation', codes: [] });
    expect(r.json.systemMessage).toContain(cid);
  });

  it('row 5: an unfinalized contract cut by the harness is allowed and captured', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = gate(home, ['--draft-id', d.contract_id, '--stop-reason', 'tool_use'], '');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).systemMessage).toMatch(
      /turn cut by the harness \(tool_use\); contract .* \(captured as IN_PROGRESS\)/,
    );
    expect(row(home, d.contract_id)).toMatchObject({ agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
  });

  it('row 6: an unfinalized contract is blocked with ROW_NOT_FINALIZED and captured; the draft is untouched', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    // The agent declared COMPLETE in its draft but never finalized.
    expect(
      run(home, ['contract', 'fill', '--draft-id', d.contract_id, '--json', JSON.stringify(COMPLETE_PATCH)]).code,
    ).toBe(0);
    expect(
      run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', d.contract_id]).code,
    ).toBe(0);
    const draftPath = join(home, 'drafts', `${d.contract_id}.json`);
    const draft = readFileSync(draftPath, 'utf8');
    const r = j(home, ['--draft-id', d.contract_id, '--stop-reason', 'end_turn']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({
      decision: 'block',
      exit: 2,
      source: 'row_unfinalized',
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
      codes: ['ROW_NOT_FINALIZED'],
      captured: true,
      attempt: 1,
    });
    expect(r.json.errors).toEqual([{ code: 'ROW_NOT_FINALIZED', path: '', detail: expect.any(String) }]);
    expect(r.stderr).toBe(`${r.json.reason}\n`);
    expect(r.stderr).toContain(`handoff contract finalize --draft-id ${d.contract_id}`);
    const stored = row(home, d.contract_id);
    expect(stored).toMatchObject({ agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
    const env = JSON.parse(stored.raw_handoff_json);
    expect(env.agent_status.agent_state).toBe('IN_PROGRESS');
    expect(env.degraded).toBe(true);
    expect(env.auto_captured).toMatchObject({ by: 'gate', declared_agent_state: 'COMPLETE', stop_reason: 'end_turn' });
    expect(readFileSync(draftPath, 'utf8')).toBe(draft);

    // A repeat keeps the captured row IN_PROGRESS; the agent's finalize then converges it and the gate allows.
    expect(j(home, ['--draft-id', d.contract_id]).json).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      captured: true,
    });
    const fin = run(home, ['contract', 'finalize', '--draft-id', d.contract_id, '--json']);
    expect(fin.json).toMatchObject({ status: 'ok', created: true, handoff_id: d.handoff_id, agent_state: 'COMPLETE' });
    expect(row(home, d.contract_id)).toMatchObject({ agent_state: 'COMPLETE', cut_reason: null });
    expect(j(home, ['--draft-id', d.contract_id]).json).toMatchObject({ decision: 'allow', source: 'row' });
  });

  it('row 6 with only a draft (contract init): the capture inserts an IN_PROGRESS row into the store, never a closing one', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'the store exists']);
    const init = run(home, ['contract', 'init', '--json']);
    const id = init.json.draft_id as string;
    expect(run(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]).code).toBe(0);
    const r = j(home, ['--draft-id', id, '--workspace', 'captured-ws']);
    expect(r.json).toMatchObject({
      decision: 'block',
      source: 'row_unfinalized',
      handoff_id: null,
      agent_state: null,
      captured: true,
    });
    expect(r.stderr).toContain('no row (only a draft)');
    // The draft's recorded workspace wins over the gate's --workspace.
    expect(row(home, id)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      workspace: init.json.workspace,
      agent_id: id.split('.')[0],
    });
  });

  it('row 8: no contract at all, cut or not (a turn without a contract is never excused)', () => {
    const home = tempHome();
    const stale = 'a0123456789abcdef.0123456789ab';
    const cut = gate(home, ['--draft-id', stale, '--stop-reason', 'max_tokens'], '');
    expect([cut.code, cut.stdout]).toEqual([2, '']);
    expect(cut.stderr).toContain('(ROW_NOT_FOUND)');
    // No store is created; the block counts in <root>/gate/.
    expect(readdirSync(home)).toEqual(['gate']);

    const blocked = j(home, ['--draft-id', stale, '--stop-reason', 'end_turn']);
    expect(blocked.code).toBe(2);
    expect(blocked.json).toMatchObject({
      decision: 'block',
      source: 'row_missing',
      lane: null,
      contract_id: null,
      codes: ['ROW_NOT_FOUND'],
      captured: false,
    });
    expect(blocked.json.errors).toEqual([{ code: 'ROW_NOT_FOUND', path: '', detail: expect.any(String) }]);
    expect(blocked.stderr).toContain(`contract ${stale} has neither a row nor a draft`);

    const allowed = gate(
      mkdtempSync(join(tmpdir(), 'handoff-test-')),
      ['--on-missing', 'allow'],
      JSON.stringify({ hook_event_name: 'Stop', session_id: 's' }),
    );
    expect([allowed.code, allowed.stdout, allowed.stderr]).toEqual([0, '', '']);
  });
});

describe('truncation excuses: where the stop reason comes from', () => {
  it.each(['max_tokens', 'tool_use', 'model_context_window_exceeded'])(
    '%s from stdin or the flag excuses; from the transcript it is recorded, not obeyed',
    (reason) => {
      const home = tempHome();
      const d = dispatchJson(home, ['--goal', 'g']);
      const prompt = `task\n\n${d.contract_block}`;
      const viaStdin = gate(
        home,
        ['--json'],
        subagentStop({
          agentId: 'x1',
          transcript: writeTranscript(home, 'a.jsonl', prompt, ['end_turn']),
          extra: { stop_reason: reason },
        }),
      );
      expect(viaStdin.json).toMatchObject({ decision: 'allow', stop_reason: reason, stop_class: 'truncation' });
      const viaTranscript = gate(
        home,
        ['--json'],
        subagentStop({ agentId: 'x1', transcript: writeTranscript(home, 'b.jsonl', prompt, ['end_turn', reason]) }),
      );
      expect(viaTranscript.json).toMatchObject({
        decision: 'block',
        stop_reason: reason,
        stop_reason_source: 'transcript',
        stop_class: 'unknown',
      });
      const viaFlag = gate(
        home,
        ['--json', '--stop-reason', reason],
        subagentStop({
          agentId: 'x1',
          transcript: writeTranscript(home, 'c.jsonl', prompt, ['end_turn']),
          extra: { stop_reason: 'end_turn' },
        }),
      );
      expect(viaFlag.json).toMatchObject({ decision: 'allow', stop_reason: reason });
    },
  );

  it('no stop reason anywhere (missing transcript) is unknown and fails closed', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'x2']);
    const r = gate(home, ['--json'], subagentStop({ agentId: 'x2', transcript: join(home, 'missing.jsonl') }));
    expect(r.json).toMatchObject({
      decision: 'block',
      stop_reason: null,
      stop_class: 'unknown',
      lane: 'harness_id',
      contract_id: d.contract_id,
    });
  });

  it('the message text is never consulted', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const input = JSON.stringify({
      hook_event_name: 'SubagentStop',
      session_id: 's',
      agent_id: 'x3',
      last_assistant_message: `contract_id: ${d.contract_id}\nagent_state: COMPLETE`,
      stop_reason: 'end_turn',
    });
    expect(gate(home, ['--json'], input).json).toMatchObject({ decision: 'block', source: 'row_missing' });
    expect(existsSync(join(home, 'handoff.db'))).toBe(true);
  });
});
