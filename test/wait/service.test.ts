/**
 * `contract wait`: the chain's live tip is read until it closes, with backoff, and the exit says how it
 * closed. The pause is injected: the test closes the contract during a pause and drives the clock, so nothing here
 * depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { baseEnv, run, tempHome } from '../helpers/cli.js';
import { mintDraft, withStore } from '../helpers/store-cli.js';
import { FIRST_PAUSE_MS, MAX_PAUSE_MS, waitForTip } from '../../src/wait/service.js';

function dispatched(home: string): string {
  const r = run(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--json']);
  expect(r.code, r.stdout).toBe(0);
  return r.json.contract_id as string;
}

function close(home: string, id: string, state: string): void {
  const fill = run(home, [
    'contract',
    'fill',
    '--draft-id',
    id,
    '--json',
    JSON.stringify({ agent_status: { agent_state: state } }),
  ]);
  expect(fill.code, fill.stdout).toBe(0);
  const fin = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
  expect(fin.code, fin.stdout).toBe(0);
}

/** A clock that only moves when the waiter pauses, and the pauses it asked for. */
function fakeTime(onPause: (n: number) => void = () => {}) {
  let t = 1_000_000;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => t,
    sleep: (ms: number): Promise<void> => {
      pauses.push(ms);
      t += ms;
      onPause(pauses.length);
      return Promise.resolve();
    },
  };
}

describe('contract wait', () => {
  it('returns once the tip closes, reading it again after each pause; the exit is the closing state', async () => {
    const home = tempHome();
    const id = dispatched(home);
    const time = fakeTime((n) => n === 3 && close(home, id, 'NEEDS_INPUT'));
    const w = await waitForTip({ env: baseEnv(home), cwd: home, contractId: id, timeoutMs: 600_000, ...time });
    expect(w).toMatchObject({ closed: true, exit: 12, polls: 4 });
    expect(w.tip.agent_state).toBe('NEEDS_INPUT');
  });

  it('follows the chain: a closed contract that was continued waits for its live tip', async () => {
    const home = tempHome();
    const id = dispatched(home);
    close(home, id, 'BLOCKED');
    const set = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id, '--json']);
    expect(set.code, set.stdout).toBe(0);
    const tipId = set.json.draft_id as string;
    expect(tipId).not.toBe(id);
    const time = fakeTime((n) => n === 1 && close(home, tipId, 'BLOCKED'));
    const w = await waitForTip({ env: baseEnv(home), cwd: home, contractId: id, timeoutMs: 600_000, ...time });
    expect(w).toMatchObject({ closed: true, exit: 11, polls: 2 });
    expect(w.tip.contract_id).toBe(tipId);
  });

  it('backs off from 100 ms by half up to 2 s, never past the deadline, then gives up open', async () => {
    const home = tempHome();
    const id = dispatched(home);
    const time = fakeTime();
    const w = await waitForTip({ env: baseEnv(home), cwd: home, contractId: id, timeoutMs: 10_000, ...time });
    expect(w).toMatchObject({ closed: false, exit: undefined, waitedMs: 10_000 });
    expect(time.pauses.slice(0, 4)).toEqual([FIRST_PAUSE_MS, 150, 225, 338]);
    expect(Math.max(...time.pauses)).toBe(MAX_PAUSE_MS);
    expect(time.pauses.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(w.polls).toBe(time.pauses.length + 1);
  });

  it('a turn the gate captured unfinalized is closed degraded: exit 14', async () => {
    const home = tempHome();
    const id = dispatched(home);
    withStore(home, (db) =>
      db
        .prepare(
          `UPDATE handoffs SET agent_state = 'IN_PROGRESS', cut_reason = 'backstop_capture' WHERE contract_id = ?`,
        )
        .run(id),
    );
    const w = await waitForTip({ env: baseEnv(home), cwd: home, contractId: id, timeoutMs: 600_000, ...fakeTime() });
    expect(w).toMatchObject({ closed: true, exit: 14, polls: 1 });
  });

  it('the verb: exit per state, 124 on timeout, 3 without a row, 2 on a bad --timeout', () => {
    const home = tempHome();
    const id = dispatched(home);
    expect(run(home, ['contract', 'wait', '--contract-id', id, '--timeout', '0s']).code).toBe(124);
    close(home, id, 'NEEDS_INPUT');
    const done = run(home, ['contract', 'wait', '--contract-id', id]);
    expect(done.code).toBe(12);
    expect(done.stdout).toMatch(/closed NEEDS_INPUT \(exit 12\)/);
    expect(run(home, ['contract', 'wait', '--contract-id', mintDraft(), '--json']).json?.code).toBe('ROW_NOT_FOUND');
    expect(run(home, ['contract', 'wait', '--contract-id', id, '--timeout', '10']).code).toBe(2);
    expect(run(home, ['contract', 'wait', '--timeout', '1m']).code).toBe(2);
  });
});
