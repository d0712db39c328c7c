/**
 * A continuation is never silent: the write that opens one names the closed contract, its state and the new id
 * (`continuation.continues_state` in --json), the write verbs' help says so, and finalize of a closed id after a
 * continuation names the live tip. Also: finalize's validation rejection is short unless --explain, and `view`
 * takes the field as a positional (`--field` stays an alias).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const BLOCKED = '{"agent_status":{"agent_state":"BLOCKED"}}';

function closedDraft(home: string): { id: string; handoffId: number } {
  const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
  expect(run(home, ['contract', 'fill', '--draft-id', id, '--json', BLOCKED]).code).toBe(0);
  const f = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
  expect(f.code, f.stdout).toBe(0);
  return { id, handoffId: f.json.handoff_id as number };
}

describe('continuations are announced', () => {
  it('a write on a closed contract names the closed row, its state and the new contract id', () => {
    const home = tempHome();
    const { id, handoffId } = closedDraft(home);
    const r = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const link = r.json.draft_id as string;
    expect(link).not.toBe(id);
    expect(r.json.continuation).toMatchObject({
      continues_contract_id: id,
      continues_handoff_id: handoffId,
      continues_state: 'BLOCKED',
      contract_id: link,
    });
    const line = r.stderr.split('\n').find((l) => l.startsWith('[CONTINUATION opened]'));
    expect(line).toContain(id);
    expect(line).toContain(`handoff_id ${handoffId}`);
    expect(line).toContain('BLOCKED');
    expect(line).toContain(`--draft-id ${link}`);
  });

  it('finalize of the closed id after a continuation was opened names the live tip', () => {
    const home = tempHome();
    const { id } = closedDraft(home);
    const link = run(home, ['contract', 'fill', '--draft-id', id, '--json', BLOCKED]).json.draft_id as string;
    const f = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    expect(f.code, f.stdout).toBe(0);
    expect(f.json).toMatchObject({ draft_id: link, followed_from: id });
    expect(f.stderr).toMatch(new RegExp(`^\\[FOLLOWED\\] ${id} is closed \\(BLOCKED\\).*live tip is ${link}`, 'm'));
    // A rejected finalize of the tip names it too.
    const home2 = tempHome();
    const c = closedDraft(home2);
    const tip = run(home2, ['contract', 'set', 'work_phase', 'executing', '--draft-id', c.id, '--json']).json
      .draft_id as string;
    const rejected = run(home2, ['contract', 'finalize', '--draft-id', c.id]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain(`live tip is ${tip}`);
  });

  it("the write verbs' help says a closed contract gets a continuation", () => {
    for (const verb of ['set', 'add', 'fill', 'patch']) {
      const h = run(tempHome(), ['contract', verb, '--help']);
      expect(h.stdout.replace(/\s+/g, ' '), verb).toMatch(/opens a continuation under a new contract id/);
    }
  });
});

describe('finalize rejection and view FIELD', () => {
  it('a finalize validation rejection is short; --explain adds the repair text', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    // A draft edited by hand into an invalid COMPLETE (the write verbs would refuse it).
    const path = join(home, 'drafts', `${id}.json`);
    const e = JSON.parse(readFileSync(path, 'utf8'));
    e.agent_status.agent_state = 'COMPLETE';
    writeFileSync(path, JSON.stringify(e));
    const before = snapshot(home);
    const short = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/--explain/);
    const long = run(home, ['contract', 'finalize', '--draft-id', id, '--explain']);
    expect(long.code).toBe(1);
    expect(long.stderr.length).toBeGreaterThan(short.stderr.length + 500);
    expect(run(home, ['contract', 'finalize', '--draft-id', id, '--json']).json.repair).toBeUndefined();
    expect(typeof run(home, ['contract', 'finalize', '--draft-id', id, '--json', '--explain']).json.repair).toBe(
      'string',
    );
    expect(snapshot(home)).toEqual(before);
  });

  it('view FIELD as a positional, --field as its alias; both differing is USAGE', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    const pos = run(home, ['contract', 'view', 'agent_status.agent_id', '--draft-id', id, '--json']);
    expect(pos.json).toMatchObject({ status: 'ok', field: 'agent_status.agent_id', value: id.split('.')[0] });
    const flag = run(home, ['contract', 'view', '--field', 'agent_status.agent_id', '--draft-id', id, '--json']);
    expect(flag.json).toEqual(pos.json);
    const both = run(home, ['contract', 'view', 'work_phase', '--field', 'agent_status', '--draft-id', id, '--json']);
    expect([both.code, both.json.code]).toEqual([2, 'USAGE']);
  });
});
