/**
 * Ways an agent could get past the strict gate (`--on-missing block --on-store-error block`), each closed:
 * a truncation the agent wrote itself excuses only a turn that has a contract; the transcript route claims only
 * dispatched contracts; the gate never creates a data root or a store, and says where it looked.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import {
  COMPLETE_PATCH,
  deliver,
  dispatchJson,
  finalizeAs,
  row,
  stopInput,
  subagentStop,
  WS_FLAGS,
  writeTranscript,
} from '../helpers/gate.js';

const STRICT = ['--on-missing', 'block', '--on-store-error', 'block'];

const strictGate = (home: string, input: string, extra: string[] = [], env: Record<string, string> = {}) =>
  run(home, ['contract', 'gate', ...STRICT, ...extra], { input, env });

/** A store that exists (one dispatched contract nobody names here). */
function homeWithStore(): string {
  const home = tempHome();
  dispatchJson(home, ['--goal', 'someone else']);
  return home;
}

describe('a cut turn excuses only a turn that has a contract', () => {
  it('a max_tokens line the agent appended to its transcript does not let a turn without a contract stop', () => {
    const home = homeWithStore();
    const t = writeTranscript(home, 'agent.jsonl', 'no contract block here', ['end_turn']);
    appendFileSync(t, `${JSON.stringify({ type: 'assistant', message: { stop_reason: 'max_tokens' } })}\n`);
    const r = strictGate(home, subagentStop({ agentId: 'run-1', transcript: t }), ['--json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({
      decision: 'block',
      source: 'row_missing',
      codes: ['ROW_NOT_FOUND'],
      stop_reason: 'max_tokens',
      stop_class: 'unknown',
      stop_reason_source: 'transcript',
    });
    const human = strictGate(home, subagentStop({ agentId: 'run-1b', transcript: t }));
    expect([human.code, human.stdout]).toEqual([2, '']);
    expect(human.stderr).toMatch(/^\[CONTRACT REJECTED\] .*ROW_NOT_FOUND/);
  });

  it.each(['max_tokens', 'tool_use', 'model_context_window_exceeded'])(
    'a stop_reason %s in the hook input does not either',
    (reason) => {
      const home = homeWithStore();
      const r = strictGate(home, stopInput({ session: 's-1', extra: { stop_reason: reason } }), ['--json']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.json).toMatchObject({
        decision: 'block',
        source: 'row_missing',
        stop_reason: reason,
        stop_reason_source: 'input',
      });
    },
  );

  it('--on-missing allow still lets a turn without a contract stop, cut or not, with no excuse message', () => {
    const home = homeWithStore();
    const r = run(home, ['contract', 'gate', '--on-missing', 'allow'], {
      input: stopInput({ session: 's-2', extra: { stop_reason: 'max_tokens' } }),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('a turn that has a contract is still excused when cut (captured, degraded); the input wins over the transcript', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'run-3']);
    // The transcript says end_turn, the hook input says max_tokens: the input is the harness's own word.
    const t = writeTranscript(home, 'agent.jsonl', 'x', ['end_turn']);
    const r = strictGate(
      home,
      subagentStop({ agentId: 'run-3', transcript: t, extra: { stop_reason: 'max_tokens' } }),
      ['--json'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      decision: 'allow',
      source: 'row_unfinalized',
      contract_id: d.contract_id,
      captured: true,
      stop_reason: 'max_tokens',
      stop_reason_source: 'input',
    });
    expect(row(home, d.contract_id)).toMatchObject({ agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
  });

  it('without a stop reason anywhere the source is null', () => {
    const home = homeWithStore();
    const r = strictGate(home, stopInput({ session: 's-4' }), ['--json']);
    expect(r.json).toMatchObject({ stop_reason: null, stop_class: 'unknown', stop_reason_source: null });
  });
});

describe('the transcript claims only contracts born by dispatch', () => {
  it("another agent's finalized contract from contract init, named in the prompt, is not claimed", () => {
    const home = tempHome();
    const init = run(home, ['contract', 'init', ...WS_FLAGS, '--json']);
    const id = init.json.draft_id as string;
    finalizeAs(home, id, 'COMPLETE', COMPLETE_PATCH);
    expect(row(home, id).kind).toBeNull();
    const t = writeTranscript(home, 'agent.jsonl', `Borrowed.\n\ncontract_id: ${id}\n`, ['end_turn']);
    const r = strictGate(home, subagentStop({ agentId: 'thief', transcript: t }), ['--json']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({
      decision: 'block',
      source: 'row_missing',
      codes: ['ROW_NOT_FOUND'],
      claimed: false,
    });
    expect(r.stderr).toContain('contract claim');
    // The hint names the token the claim needs, never a value: the agent has only the one its own init printed.
    expect(r.stderr).toContain('--claim-token <the claim_token init printed>');
    expect(r.stderr).not.toContain(init.json.claim_token);
    expect(row(home, id).harness_id).toBeNull();
  });

  it('a draft of contract init with no row is not found through the prompt either', () => {
    const home = homeWithStore();
    const id = run(home, ['contract', 'init', ...WS_FLAGS, '--json']).json.draft_id as string;
    const t = writeTranscript(home, 'agent.jsonl', `contract_id: ${id}\n`, ['end_turn']);
    const r = strictGate(home, subagentStop({ agentId: 'run-5', transcript: t }), ['--json']);
    expect(r.json).toMatchObject({ decision: 'block', source: 'row_missing', captured: false });
    expect(row(home, id)).toBeUndefined();
  });

  it('the same init contract is judged once claimed (contract claim) or named with --draft-id', () => {
    const home = tempHome();
    const init = run(home, ['contract', 'init', ...WS_FLAGS, '--json']).json;
    const id = init.draft_id as string;
    finalizeAs(home, id, 'COMPLETE', COMPLETE_PATCH);
    const claim = ['contract', 'claim', '--draft-id', id, '--harness-id', 'owner', '--claim-token', init.claim_token];
    expect(run(home, claim).code).toBe(0);
    expect(strictGate(home, subagentStop({ agentId: 'owner' }), ['--json']).json).toMatchObject({
      decision: 'allow',
      lane: 'harness_id',
      contract_id: id,
    });
    expect(strictGate(home, '', ['--draft-id', id, '--json']).json).toMatchObject({
      decision: 'allow',
      lane: 'draft_id',
    });
  });
});

describe('the gate never creates a data root or a store', () => {
  it('a data root that does not exist: exit 1, not gated, one line naming it, whatever --on-missing says', () => {
    const parent = tempHome();
    const root = join(parent, 'never-made');
    for (const onMissing of ['block', 'allow']) {
      const r = run(root, ['contract', 'gate', '--on-missing', onMissing], {
        input: stopInput({ session: 's', extra: { stop_reason: 'end_turn' } }),
        cwd: parent,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(root);
      expect(r.stderr).toMatch(/ Stop not gated\.\n$/);
    }
    expect(readdirSync(parent)).toEqual([]);
  });

  it('under --on-store-error block a missing data root blocks and counts in $TMPDIR/handoff-gate-<uid>/', () => {
    const parent = tempHome();
    const root = join(parent, 'never-made');
    const tmp = mkdtempSync(join(tmpdir(), 'handoff-tmpdir-'));
    const transcript = writeTranscript(tmp, 'session.jsonl', 'Work.');
    const input = stopInput({ session: 'missing-root', transcript, extra: { stop_reason: 'end_turn' } });
    const again = stopInput({
      session: 'missing-root',
      transcript,
      extra: { stop_reason: 'end_turn', stop_hook_active: true },
    });
    const env = { TMPDIR: tmp };
    const first = run(root, ['contract', 'gate', ...STRICT, '--json'], { input, env, cwd: parent });
    expect(first.code, first.stderr).toBe(2);
    expect(first.json).toMatchObject({
      decision: 'block',
      source: 'store_error',
      codes: ['DATA_ROOT_NOT_FOUND'],
      attempt: 1,
    });
    expect(first.stderr).toContain(root);
    const counter = join(tmp, `handoff-gate-${process.getuid!()}`);
    expect(readdirSync(counter)).toHaveLength(1);
    deliver(transcript, first.stderr);
    const second = run(root, ['contract', 'gate', ...STRICT, '--json'], { input: again, env, cwd: parent });
    expect(second.json).toMatchObject({ attempt: 2, exit: 2 });
    deliver(transcript, second.stderr);
    const third = run(root, ['contract', 'gate', ...STRICT, '--json'], { input: again, env, cwd: parent });
    expect(third.json).toMatchObject({ exit: 0, tripped: true });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a data root without a store: blocks, captures nothing, counts in <root>/gate/, creates no store; the reason names the root', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', ...WS_FLAGS, '--json']).json.draft_id as string;
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    const before = snapshot(join(home, 'drafts'));
    const transcript = writeTranscript(tempHome(), 'run-6.jsonl', 'Work.');
    const input = subagentStop({ agentId: 'run-6', transcript, extra: { stop_reason: 'end_turn' } });
    const again = subagentStop({
      agentId: 'run-6',
      transcript,
      extra: { stop_reason: 'end_turn', stop_hook_active: true },
    });
    const byId = strictGate(home, input, ['--draft-id', id, '--json']);
    expect(byId.code, byId.stderr).toBe(2);
    expect(byId.json).toMatchObject({ decision: 'block', source: 'row_unfinalized', captured: false, attempt: 1 });
    const none = strictGate(home, input, ['--json']);
    expect(none.json).toMatchObject({ decision: 'block', source: 'row_missing', attempt: 1 });
    expect(none.stderr).toContain(home);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    expect(readdirSync(join(home, 'gate'))).toHaveLength(2);
    expect(snapshot(join(home, 'drafts'))).toEqual(before);
    // The breaker still trips after its limit of delivered blocks, still without a store.
    deliver(transcript, none.stderr);
    const second = strictGate(home, again, ['--json']);
    expect(second.json).toMatchObject({ exit: 2, attempt: 2 });
    deliver(transcript, second.stderr);
    expect(strictGate(home, again, ['--json']).json).toMatchObject({ exit: 0, tripped: true });
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });

  it('an allow without a store creates nothing', () => {
    const home = tempHome();
    const input = stopInput({ session: 's-7', extra: { stop_reason: 'end_turn' } });
    const allowed = run(home, ['contract', 'gate', '--on-missing', 'allow', '--json'], { input });
    expect(allowed.json).toMatchObject({ decision: 'allow' });
    expect(readdirSync(home)).toEqual([]);
  });
});
