/** The rejection circuit breaker through the built binary. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempHome } from '../helpers/cli.js';
import {
  deliver,
  dispatchJson,
  finalizeAs,
  gate,
  rejections,
  stopInput,
  subagentStop,
  writeTranscript,
} from '../helpers/gate.js';

describe('circuit breaker', () => {
  it('default 3: "block 1 of 2", "block 2 of 2" (each delivered), then the third trips (exit 0, systemMessage); sticky', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'sub-b']);
    const transcript = writeTranscript(home, 'sub-b.jsonl', 'Work.');
    const input = (active: boolean): string =>
      subagentStop({
        session: 's-b',
        agentId: 'sub-b',
        agentType: 'implementer',
        transcript,
        extra: { stop_reason: 'end_turn', stop_hook_active: active },
      });

    const first = gate(home, [], input(false));
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(
      /\nThis is block 1 of 2: after block 2 of 2 the next rejected stop .*\n\(handoff gate nonce: [0-9a-f]{32}\)\n$/,
    );
    deliver(transcript, first.stderr);
    const second = gate(home, [], input(true));
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/\nThis is block 2 of 2: .*Previous block: ROW_NOT_FINALIZED\.\n/);
    deliver(transcript, second.stderr);

    const trip = gate(home, [], input(true));
    expect([trip.code, trip.stderr]).toEqual([0, '']);
    expect(JSON.parse(trip.stdout)).toEqual({
      systemMessage: `handoff: contract gate gave up after block 2 of 2; implementer sub-b closed DEGRADED; contract ${d.contract_id} is NOT complete (last: ROW_NOT_FINALIZED).`,
    });
    // Counted by proof of delivery, in <root>/gate/: never in the store's table.
    expect(rejections(home)).toEqual([]);
    expect(readdirSync(join(home, 'gate'))).toHaveLength(1);

    const sticky = gate(home, ['--json'], input(true));
    expect(sticky.code).toBe(0);
    expect(sticky.stderr).toBe('');
    expect(sticky.json).toMatchObject({
      decision: 'block',
      exit: 0,
      tripped: true,
      attempt: 3,
      codes: ['ROW_NOT_FINALIZED', 'CONTRACT_REJECTION_LIMIT'],
    });
    expect(sticky.json.systemMessage).toContain('gave up after block 2 of 2;');

    // A tripped turn is never made to look complete.
    expect(sticky.json.agent_state).toBe('IN_PROGRESS');

    finalizeAs(home, d.contract_id, 'NEEDS_VERIFICATION');
    const accepted = gate(home, ['--json'], input(true));
    expect(accepted.json).toMatchObject({ decision: 'allow', tripped: false, attempt: null });
  });

  it('an allow resets nothing; a new stop (stop_hook_active false) counts from one', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'a store to count in']);
    const transcript = writeTranscript(home, 's-r.jsonl', 'Work.');
    const input = (active: boolean): string =>
      stopInput({ session: 's-r', transcript, extra: { stop_reason: 'end_turn', stop_hook_active: active } });
    const first = gate(home, [], input(false));
    expect(first.code).toBe(2);
    deliver(transcript, first.stderr);
    expect(gate(home, ['--on-missing', 'allow'], input(true)).code).toBe(0);
    // The allow (which a hand-run call could make) did not reset the delivered count.
    expect(gate(home, ['--json'], input(true)).json.attempt).toBe(2);
    expect(gate(home, ['--json'], input(false)).json).toMatchObject({ attempt: 1, tripped: false });
  });

  it('--max-rejections 1 never blocks (advisory mode)', () => {
    const home = tempHome();
    const r = gate(
      home,
      ['--max-rejections', '1', '--json'],
      stopInput({ session: 's-1', extra: { stop_reason: 'end_turn' } }),
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      decision: 'block',
      exit: 0,
      tripped: true,
      attempt: 1,
      max_rejections: 1,
      codes: ['ROW_NOT_FOUND', 'CONTRACT_REJECTION_LIMIT'],
    });
    expect(r.json.systemMessage).toContain('contract none is NOT complete (last: ROW_NOT_FOUND)');
    expect(r.json.systemMessage).toContain('gave up without blocking (--max-rejections 1 allows no block)');
  });

  it('counts blocks against the blocks the limit allows, the same in the reason and the trip (--max-rejections 4)', () => {
    const home = tempHome();
    const transcript = writeTranscript(home, 's-4.jsonl', 'Work.');
    const input = (active: boolean): string =>
      stopInput({ session: 's-4', transcript, extra: { stop_reason: 'end_turn', stop_hook_active: active } });
    for (const n of [1, 2, 3]) {
      const r = gate(home, ['--max-rejections', '4', '--json'], input(n > 1));
      expect(r.code).toBe(2);
      expect(r.json.reason).toContain(`This is block ${n} of 3: after block 3 of 3 `);
      expect(r.stderr).toContain(`This is block ${n} of 3:`);
      deliver(transcript, r.stderr);
    }
    const trip = gate(home, ['--max-rejections', '4', '--json'], input(true));
    expect(trip.code).toBe(0);
    expect(trip.json.systemMessage).toMatch(/^handoff: contract gate gave up after block 3 of 3; /);
  });

  it('docs/hooks.md uses the same wording', () => {
    const doc = readFileSync(join(REPO, 'docs', 'hooks.md'), 'utf8');
    expect(doc).toContain('block 1 of 2');
    expect(doc).toContain('block 2 of 2');
    expect(doc).not.toMatch(/Attempt n of m/);
  });

  it('keys are per turn: two agents of one type and one session count separately', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'a store to count in']);
    const t1 = writeTranscript(home, 'one.jsonl', 'Work.');
    const t2 = writeTranscript(home, 'two.jsonl', 'Work.');
    const one = (active: boolean): string =>
      subagentStop({
        session: 's',
        agentId: 'one',
        transcript: t1,
        extra: { stop_reason: 'end_turn', stop_hook_active: active },
      });
    deliver(t1, gate(home, [], one(false)).stderr);
    expect(gate(home, ['--json'], one(true)).json).toMatchObject({ attempt: 2, breaker_key: 'subagent:s:one' });
    const r = gate(
      home,
      ['--json'],
      subagentStop({ session: 's', agentId: 'two', transcript: t2, extra: { stop_reason: 'end_turn' } }),
    );
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ attempt: 1, breaker_key: 'subagent:s:two' });
  });

  it('without agent_id the key uses the agent transcript; with nothing usable there is no ceiling', () => {
    const home = tempHome();
    const transcript = writeTranscript(home, 'agent-1.jsonl', 'Look around.');
    const viaTranscript = gate(
      home,
      ['--json'],
      subagentStop({ session: 's', agentId: undefined, transcript, extra: { stop_reason: 'end_turn' } }),
    );
    expect(viaTranscript.json.breaker_key).toBe(`subagent:s:transcript:${transcript}`);
    const noKey = gate(
      home,
      ['--json'],
      JSON.stringify({ hook_event_name: 'SubagentStop', agent_type: 'implementer', stop_reason: 'end_turn' }),
    );
    expect(noKey.code).toBe(2);
    expect(noKey.json).toMatchObject({ breaker_key: null, attempt: null, tripped: false });
    expect(noKey.stderr).toMatch(/\nNo rejection ceiling for this turn\.\n$/);
    // Repeating it never trips.
    for (let i = 0; i < 3; i++)
      expect(gate(home, [], JSON.stringify({ hook_event_name: 'Stop', stop_reason: 'end_turn' })).code).toBe(2);
  });
});
