/**
 * A write that leaves the draft in a closing state finalize will refuse on a row rule the write
 * can already see is stored, with a `[WILL BE REFUSED AT FINALIZE] CODE: what to do` notice (--json: warnings).
 */
import { describe, expect, it } from 'vitest';
import { initDraft } from '../helpers/drafts.js';
import { run, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson } from '../helpers/gate.js';

const NOTICE = /^\[WILL BE REFUSED AT FINALIZE\] ([A-Z_]+): .+$/;
const field = (home: string, id: string, path: string): unknown =>
  run(home, ['contract', 'view', '--field', path, '--draft-id', id, '--json']).json.value;
const fill = (home: string, id: string, patch: object) =>
  run(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(patch)]);
const noticesOf = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => NOTICE.test(l))
    .map((l) => NOTICE.exec(l)![1]);

describe('foresight warnings', () => {
  it('a plan-task-bound COMPLETE: stored, with BLIND_VERIFICATION_REQUIRED foreseen; finalize then refuses it', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--plan-task-id', 'T-7']);
    expect(fill(home, d.contract_id, COMPLETE_PATCH).code).toBe(0);
    const h = run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', d.contract_id]);
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(`OK: draft ${d.contract_id} updated and valid.\n`);
    expect(noticesOf(h.stderr)).toEqual(['BLIND_VERIFICATION_REQUIRED']);
    expect(h.stderr).toContain('NEEDS_VERIFICATION');
    expect(field(home, d.contract_id, 'agent_status.agent_state')).toBe('COMPLETE');

    const j = run(home, [
      'contract',
      'add',
      'evidence_report.files_checked',
      'a.ts',
      '--draft-id',
      d.contract_id,
      '--json',
    ]);
    expect(j.code).toBe(0);
    expect(j.json.warnings).toEqual([{ code: 'BLIND_VERIFICATION_REQUIRED', detail: expect.stringContaining('T-7') }]);

    const fin = run(home, ['contract', 'finalize', '--draft-id', d.contract_id, '--json']);
    expect([fin.code, fin.json.code]).toEqual([1, 'BLIND_VERIFICATION_REQUIRED']);
  });

  it('an agent_id that disagrees with the draft owner: AGENT_ID_MISMATCH foreseen once the state closes (no store needed)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const other = `a${'0'.repeat(16)}`;
    const open = run(home, ['contract', 'set', 'agent_status.agent_id', other, '--draft-id', id, '--json']);
    expect(open.code).toBe(0);
    expect(open.json.warnings).toBeUndefined();
    expect(noticesOf(open.stderr)).toEqual([]);
    const closing = fill(home, id, { agent_status: { agent_state: 'BLOCKED' }, failure_report: null });
    expect(closing.code).toBe(0);
    expect(closing.json.warnings.map((w: any) => w.code)).toEqual(['AGENT_ID_MISMATCH']);
    expect(noticesOf(closing.stderr)).toEqual(['AGENT_ID_MISMATCH']);
    expect(field(home, id, 'agent_status.agent_state')).toBe('BLOCKED');
  });

  it('a --require-receipt turn closing on a command claim without a receipt: RECEIPT_REQUIRED foreseen', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--require-receipt']);
    expect(fill(home, d.contract_id, COMPLETE_PATCH).code).toBe(0);
    const r = run(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'NEEDS_VERIFICATION',
      '--draft-id',
      d.contract_id,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.json.warnings).toEqual([
      { code: 'RECEIPT_REQUIRED', detail: expect.stringContaining('handoff evidence run') },
    ]);
    expect(noticesOf(r.stderr)).toEqual(['RECEIPT_REQUIRED']);
  });

  it('no warning on a close finalize will accept', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    expect(fill(home, d.contract_id, COMPLETE_PATCH).code).toBe(0);
    const r = run(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'COMPLETE',
      '--draft-id',
      d.contract_id,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.json.warnings).toBeUndefined();
    expect(r.stderr).toBe('');
  });
});
