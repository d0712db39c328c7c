/** The rejection circuit breaker through the built binary. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempHome } from '../helpers/cli.js';
import {
  dispatchJson,
  finalizeAs,
  gate,
  rejections,
  stopInput,
  subagentStop,
  writeTranscript,
} from '../helpers/gate.js';

describe('circuit breaker', () => {
  it('default 3: "block 1 of 2", "block 2 of 2", then the third trips (exit 0, systemMessage); sticky; an accepted stop resets', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'sub-b']);
    const input = subagentStop({
      session: 's-b',
      agentId: 'sub-b',
      agentType: 'implementer',
      extra: { stop_reason: 'end_turn' },
    });

    const first = gate(home, [], input);
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/\nThis is block 1 of 2: after block 2 of 2 the next rejected stop .*\n$/);
    const second = gate(home, [], input);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/\nThis is block 2 of 2: .*Previous block: ROW_NOT_FINALIZED\.\n$/);

    const trip = gate(home, [], input);
    expect([trip.code, trip.stderr]).toEqual([0, '']);
    expect(JSON.parse(trip.stdout)).toEqual({
      systemMessage: `handoff: contract gate gave up after block 2 of 2; implementer sub-b closed DEGRADED; contract ${d.contract_id} is NOT complete (last: ROW_NOT_FINALIZED).`,
    });
    expect(rejections(home)).toMatchObject([
      {
        key: 'subagent:s-b:sub-b',
        attempts: 3,
        tripped: 1,
        last_codes_json: '["ROW_NOT_FINALIZED"]',
        contract_id: d.contract_id,
      },
    ]);

    const sticky = gate(home, ['--json'], input);
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
    expect(rejections(home)[0]).toMatchObject({ attempts: 3, tripped: 1 });

    // A tripped turn is never made to look complete.
    expect(sticky.json.agent_state).toBe('IN_PROGRESS');

    finalizeAs(home, d.contract_id, 'NEEDS_VERIFICATION');
    const accepted = gate(home, ['--json'], input);
    expect(accepted.json).toMatchObject({ decision: 'allow', tripped: false, attempt: null });
    expect(rejections(home)).toEqual([]);
  });

  it('a repaired turn starts from zero after an allow', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'a store to count in']);
    const input = stopInput({ session: 's-r', extra: { stop_reason: 'end_turn' } });
    expect(gate(home, [], input).code).toBe(2);
    expect(gate(home, ['--json'], input).json.attempt).toBe(2);
    expect(gate(home, ['--on-missing', 'allow'], input).code).toBe(0);
    expect(rejections(home)).toEqual([]);
    expect(gate(home, ['--json'], input).json).toMatchObject({ attempt: 1, tripped: false });
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
    const input = stopInput({ session: 's-4', extra: { stop_reason: 'end_turn' } });
    for (const n of [1, 2, 3]) {
      const r = gate(home, ['--max-rejections', '4', '--json'], input);
      expect(r.code).toBe(2);
      expect(r.json.reason).toContain(`This is block ${n} of 3: after block 3 of 3 `);
      expect(r.stderr).toContain(`This is block ${n} of 3:`);
    }
    const trip = gate(home, ['--max-rejections', '4', '--json'], input);
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
    const one = subagentStop({ session: 's', agentId: 'one', extra: { stop_reason: 'end_turn' } });
    const two = subagentStop({ session: 's', agentId: 'two', extra: { stop_reason: 'end_turn' } });
    gate(home, [], one);
    gate(home, [], one);
    const r = gate(home, ['--json'], two);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ attempt: 1, breaker_key: 'subagent:s:two' });
    expect(rejections(home).map((x) => [x.key, x.attempts])).toEqual([
      ['subagent:s:one', 2],
      ['subagent:s:two', 1],
    ]);
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
