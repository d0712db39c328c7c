/**
 * Running is not cut. `contract list --cut` shows a DISPATCHED row only once its updated_at is
 * older than --stale-after (default 2h) or the gate has seen a stop of it (gate_seen_at); --json rows carry liveness.
 * Times are set in the store, never waited for.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { dispatchJson, finalizeAs, gate, rawStore, row } from '../helpers/gate.js';

const list = (home: string, ...args: string[]) => run(home, ['contract', 'list', '--json', ...args]);
const idsOf = (home: string, ...args: string[]): string[] =>
  list(home, ...args).json.handoffs.map((h: any) => h.contract_id);
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
const HOUR = 3_600_000;

function setUpdatedAt(home: string, cid: string, iso: string): void {
  const db = rawStore(home);
  db.prepare('UPDATE handoffs SET updated_at = ? WHERE contract_id = ?').run(iso, cid);
  db.close();
}

describe('contract list --cut and liveness', () => {
  it('a freshly dispatched row is running, not cut; once stale (default 2h) it is cut', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    expect(idsOf(home, '--cut')).toEqual([]);
    expect(idsOf(home, '--cut', 'never_finalized')).toEqual([]);
    expect(list(home).json.handoffs[0]).toMatchObject({
      contract_id: d.contract_id,
      agent_state: 'DISPATCHED',
      liveness: 'running',
    });
    expect(run(home, ['contract', 'list', '--cut']).stdout).toBe('No handoffs matched.\n');

    setUpdatedAt(home, d.contract_id, ago(2 * HOUR + 60_000));
    expect(idsOf(home, '--cut')).toEqual([d.contract_id]);
    expect(idsOf(home, '--cut=never_finalized')).toEqual([d.contract_id]);
    expect(list(home, '--cut').json.handoffs[0].liveness).toBe('cut');
    expect(list(home).json.handoffs[0].liveness).toBe('cut');
  });

  it('--stale-after takes a duration (30m, 2h, 1d)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    setUpdatedAt(home, d.contract_id, ago(3 * HOUR));
    expect(idsOf(home, '--cut', '--stale-after', '4h')).toEqual([]);
    expect(idsOf(home, '--cut', '--stale-after', '1d')).toEqual([]);
    expect(list(home, '--stale-after', '1d').json.handoffs[0].liveness).toBe('running');
    expect(idsOf(home, '--cut', '--stale-after', '30m')).toEqual([d.contract_id]);
    expect(idsOf(home, '--cut', '--stale-after', '2h')).toEqual([d.contract_id]);
    expect(idsOf(home, '--cut', '--stale-after', '180m')).toEqual([d.contract_id]);
  });

  it.each(['abc', '2', '2w', '-1h', '1.5h', 'h', '02h', ''])(
    '--stale-after %j is USAGE, exit 2, nothing written',
    (value) => {
      const home = tempHome();
      dispatchJson(home, ['--goal', 'g']);
      const before = snapshot(home);
      const r = list(home, '--cut', `--stale-after=${value}`);
      expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
      expect(r.json.error).toMatch(/--stale-after .*duration/);
      expect(snapshot(home)).toEqual(before);
    },
  );

  it('a stop the gate judged makes the row cut at once (gate_seen_at), even when nothing was captured', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    // Without a draft file the gate cannot capture: the row stays DISPATCHED.
    rmSync(join(home, 'drafts', `${d.contract_id}.json`));
    const g = gate(home, ['--draft-id', d.contract_id, '--json', '--stop-reason', 'end_turn'], '');
    expect([g.code, g.json.captured]).toEqual([2, false]);
    const r = row(home, d.contract_id);
    expect(r.agent_state).toBe('DISPATCHED');
    expect(r.gate_seen_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(idsOf(home, '--cut')).toEqual([d.contract_id]);
    expect(list(home, '--cut').json.handoffs[0].liveness).toBe('cut');
  });

  it('the gate records gate_seen_at on every stop it judges (captures and closed rows too)', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a']);
    gate(home, ['--draft-id', a.contract_id, '--stop-reason', 'max_tokens'], '');
    expect(row(home, a.contract_id)).toMatchObject({ agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
    expect(row(home, a.contract_id).gate_seen_at).not.toBeNull();
    const b = dispatchJson(home, ['--goal', 'b']);
    finalizeAs(home, b.contract_id, 'NEEDS_VERIFICATION');
    expect(row(home, b.contract_id).gate_seen_at).toBeNull();
    expect(gate(home, ['--draft-id', b.contract_id], '').code).toBe(0);
    expect(row(home, b.contract_id).gate_seen_at).not.toBeNull();
    // A closed row is neither running nor cut.
    expect(list(home, '--contract-id', b.contract_id).json.handoffs[0].liveness).toBeNull();
  });
});
