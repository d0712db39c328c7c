import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, row } from '../helpers/gate.js';

const claim = (home: string, args: string[]) => run(home, ['contract', 'claim', ...args, '--json']);

describe('contract claim', () => {
  it('sets the harness id once; a repeat is a no-op; human output', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = claim(home, ['--harness-id', 'agent-1', '--draft-id', d.contract_id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      status: 'ok',
      contract_id: d.contract_id,
      handoff_id: d.handoff_id,
      harness_id: 'agent-1',
      changed: true,
    });
    expect(row(home, d.contract_id).harness_id).toBe('agent-1');
    const again = claim(home, ['--harness-id', 'agent-1', '--contract-id', d.contract_id]);
    expect(again.json.changed).toBe(false);
    const human = run(home, ['contract', 'claim', '--harness-id', 'agent-1', '--draft-id', d.contract_id]);
    expect(human.stdout).toMatch(/^OK: contract .* already carries harness id agent-1; no-op\.\n$/);
  });

  it('is allowed on a COMPLETE row and follows the chain to the live tip', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    expect(claim(home, ['--harness-id', 'done-run', '--draft-id', d.contract_id]).json.changed).toBe(true);

    const e = dispatchJson(home, ['--goal', 'h']);
    finalizeAs(home, e.contract_id, 'BLOCKED');
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', e.contract_id, '--json']);
    expect(w.code, w.stderr).toBe(0);
    const tip = w.json.draft_id as string;
    expect(tip).not.toBe(e.contract_id);
    const r = claim(home, ['--harness-id', 'later-run', '--draft-id', e.contract_id]);
    expect(r.json).toMatchObject({ contract_id: tip, changed: true });
    expect(row(home, tip).harness_id).toBe('later-run');
    expect(row(home, e.contract_id).harness_id).toBeNull();
  });

  it('refuses a different id (HARNESS_ID_CONFLICT) and an id another chain carries (HARNESS_ID_IN_USE), writing nothing', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a', '--harness-id', 'run-a']);
    const b = dispatchJson(home, ['--goal', 'b']);
    for (const [args, code] of [
      [['--harness-id', 'run-x', '--draft-id', a.contract_id], 'HARNESS_ID_CONFLICT'],
      [['--harness-id', 'run-a', '--draft-id', b.contract_id], 'HARNESS_ID_IN_USE'],
    ] as const) {
      const before = snapshot(home);
      const r = claim(home, [...args]);
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ status: 'rejected', code });
      expect(snapshot(home)).toEqual(before);
    }
  });

  it('ROW_NOT_FOUND (exit 3) without a store (not created) or without a row', () => {
    const home = tempHome();
    const id = 'a0123456789abcdef.0123456789ab';
    const r = claim(home, ['--harness-id', 'x', '--draft-id', id]);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('ROW_NOT_FOUND');
    expect(readdirSync(home)).toEqual([]);
    dispatchJson(home, ['--goal', 'g']);
    expect(claim(home, ['--harness-id', 'x', '--draft-id', id]).json.code).toBe('ROW_NOT_FOUND');
  });

  it.each<[string[], string]>([
    [['--draft-id', 'a0123456789abcdef.0123456789ab'], 'USAGE'],
    [['--harness-id', 'x'], 'USAGE'],
    [
      [
        '--harness-id',
        'x',
        '--draft-id',
        'a0123456789abcdef.0123456789ab',
        '--contract-id',
        'a0123456789abcdef.0123456789ab',
      ],
      'USAGE',
    ],
    [['--harness-id', 'x y', '--draft-id', 'a0123456789abcdef.0123456789ab'], 'USAGE'],
    [['--harness-id', 'x', '--draft-id', 'nope'], 'INVALID_DRAFT_ID'],
  ])('usage errors exit 2 before any access: %j', (args, code) => {
    const home = tempHome();
    const r = claim(home, args);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe(code);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });
});
