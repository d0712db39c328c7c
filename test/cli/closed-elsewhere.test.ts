/**
 * A draft whose row closed elsewhere says so: a write to a dispatched draft whose row another host
 * finalized prints `[ROW CLOSED ELSEWHERE]` with the row's state and the live tip; a draft finalized here does not.
 */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { withStore } from '../helpers/store-cli.js';

const NOTICE =
  /^\[ROW CLOSED ELSEWHERE\] (\S+): its row is (\S+) .* this host's draft reads (\S+); the live tip is (\S+):/m;

describe('[ROW CLOSED ELSEWHERE]', () => {
  it("a write to a dispatched draft whose row another host closed names the row's state and the live tip", () => {
    const home = tempHome();
    const d = run(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--json']);
    expect(d.code, d.stdout).toBe(0);
    const id = d.json.contract_id as string;
    // Host B finalized it: the shared row is closed, this host's draft still reads its open state.
    withStore(home, (db) =>
      db.prepare(`UPDATE handoffs SET agent_state = 'BLOCKED', cut_reason = NULL WHERE contract_id = ?`).run(id),
    );
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id, '--json']);
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const m = NOTICE.exec(w.stderr);
    expect(m?.slice(1, 3)).toEqual([id, 'BLOCKED']);
    expect(m?.[3]).not.toBe('BLOCKED');
    expect(m?.[4]).toBe(w.json.draft_id);
    expect(m?.[4]).not.toBe(id);
  });

  it('a draft born by init and finalized here opens its continuation without the notice', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']);
    expect(run(home, ['contract', 'finalize', '--draft-id', id]).code).toBe(0);
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/\[CONTINUATION opened\]/);
    expect(w.stderr).not.toMatch(/ROW CLOSED ELSEWHERE/);
  });

  it('finalize of a draft whose row another host closed says so, with the live tip', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--json']).json
      .contract_id as string;
    run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"agent_status":{"agent_state":"NEEDS_INPUT"}}']);
    withStore(home, (db) =>
      db.prepare(`UPDATE handoffs SET agent_state = 'BLOCKED', cut_reason = NULL WHERE contract_id = ?`).run(id),
    );
    const fin = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    const m = NOTICE.exec(fin.stderr);
    expect(m?.slice(1), fin.stderr).toEqual([id, 'BLOCKED', 'NEEDS_INPUT', id]);
  });

  it('view of a dispatched draft whose row another host closed says so; a draft born by init never reads the store', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--json']).json
      .contract_id as string;
    expect(run(home, ['contract', 'view', '--draft-id', id]).stderr).not.toMatch(/ROW CLOSED ELSEWHERE/);
    withStore(home, (db) =>
      db.prepare(`UPDATE handoffs SET agent_state = 'BLOCKED', cut_reason = NULL WHERE contract_id = ?`).run(id),
    );
    const v = run(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect(v.code).toBe(0);
    expect(v.json.envelope_source).toBe('draft');
    expect(NOTICE.exec(v.stderr)?.slice(1)).toEqual([id, 'BLOCKED', 'IN_PROGRESS', id]);

    // An init-born draft with the same story: its view stays a file read (no notice, no store read).
    const own = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    run(home, ['contract', 'fill', '--draft-id', own, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']);
    expect(run(home, ['contract', 'finalize', '--draft-id', own]).code).toBe(0);
    withStore(home, (db) =>
      db.prepare(`UPDATE handoffs SET agent_state = 'NEEDS_INPUT' WHERE contract_id = ?`).run(own),
    );
    expect(run(home, ['contract', 'view', '--draft-id', own]).stderr).not.toMatch(/ROW CLOSED ELSEWHERE/);
  });
});
