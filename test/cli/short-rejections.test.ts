/**
 * A rejected write (set, add, fill) and validate print the header, one `CODE [path]: detail`
 * line per error and one closing line naming --explain; --explain adds the full repair text; under --json `repair`
 * is present only with --explain. The gate's block reason and the library result keep the full repair text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/index.js';
import { initDraft } from '../helpers/drafts.js';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { dispatchJson, finalizeAs, gate, rawStore } from '../helpers/gate.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const FULL_REPAIR = 'The build order:';

function expectShortBlock(stderr: string, header: RegExp, errorLines: RegExp[]): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(header);
  errorLines.forEach((re, i) => expect(lines[1 + i]).toMatch(re));
  expect(lines).toHaveLength(errorLines.length + 2);
  expect(lines[lines.length - 1]).toContain('--explain');
  expect(stderr).not.toContain(FULL_REPAIR);
}

describe('short rejections', () => {
  it('a one-typo set: header, the error, a closing line naming --explain; at most 500 bytes; nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const r = run(home, ['contract', 'set', 'work_phse', 'executing', '--draft-id', id]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expectShortBlock(r.stderr, /^Rejected: the write to draft .* failed validation; nothing was written\.$/, [
      /^ {2}UNKNOWN_FIELD \[work_phse\]: .*"work_phase"/,
    ]);
    expect(bytes(r.stderr)).toBeLessThanOrEqual(500);
    expect(snapshot(home)).toEqual(before);
  });

  it('--explain adds the full repair text after the errors', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id, '--explain']);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[1]).toMatch(/^ {2}COMPLETE_SHAPE \[agent_status\.next_action\]: /);
    expect(lines[2]).toMatch(/^ {2}VERIFICATION_RESULT \[evidence_report\.verification\]: /);
    expect(lines[3]).toBe('');
    expect(r.stderr).toContain(FULL_REPAIR);
    expect(r.stderr).toContain('A valid envelope (compact template):');
  });

  it('--json carries repair only with --explain (set, add)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const plain = run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id, '--json']);
    expect(plain.code).toBe(1);
    expect(Object.keys(plain.json)).toEqual(['status', 'draft_id', 'codes', 'errors']);
    const explained = run(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'COMPLETE',
      '--draft-id',
      id,
      '--json',
      '--explain',
    ]);
    expect(Object.keys(explained.json)).toEqual(['status', 'draft_id', 'codes', 'errors', 'repair']);
    expect(explained.json.repair).toContain(FULL_REPAIR);
    const add = run(home, ['contract', 'add', 'failure_report', 'x', '--draft-id', id, '--json']);
    expect([add.code, add.json.codes, 'repair' in add.json]).toEqual([1, ['FAILURE_REPORT_SHAPE'], false]);
    const addHuman = run(home, ['contract', 'add', 'failure_report', 'x', '--draft-id', id]);
    expectShortBlock(addHuman.stderr, /^Rejected: /, [/^ {2}FAILURE_REPORT_SHAPE \[failure_report\]: /]);
  });

  it('fill: no repair unless --explain; a one-typo fill stays small', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const r = run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"work_phse":"executing"}']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id, codes: ['UNKNOWN_FIELD'] });
    expect(r.json.repair).toBeUndefined();
    expect(bytes(r.stdout)).toBeLessThanOrEqual(500);
    const e = run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"work_phse":"executing"}', '--explain']);
    expect(e.json.repair).toContain(FULL_REPAIR);
    expect(snapshot(home)).toEqual(before);
  });

  it('validate (draft and file): short by default, full with --explain, in both modes', () => {
    const home = tempHome();
    const id = initDraft(home);
    const file = join(home, 'env.json');
    writeFileSync(file, JSON.stringify({ work_phse: 1 }));
    const draftPath = join(home, 'drafts', `${id}.json`);
    const envelope = JSON.parse(readFileSync(draftPath, 'utf8'));
    envelope.agent_status.agent_state = 'COMPLETE';
    writeFileSync(draftPath, JSON.stringify(envelope));
    const draft = run(home, ['contract', 'validate', '--draft-id', id]);
    expect(draft.code).toBe(1);
    expectShortBlock(draft.stderr, /^Rejected: draft .* failed validation\.$/, [
      /^ {2}COMPLETE_SHAPE /,
      /^ {2}VERIFICATION_RESULT /,
    ]);
    expect(run(home, ['contract', 'validate', '--draft-id', id, '--explain']).stderr).toContain(FULL_REPAIR);
    const h = run(home, ['contract', 'validate', '--file', file]);
    expect(h.code).toBe(1);
    const lines = h.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Rejected: .* failed validation\.$/);
    expect(lines[lines.length - 1]).toContain('--explain');
    expect(h.stderr).not.toContain(FULL_REPAIR);
    expect(run(home, ['contract', 'validate', '--file', file, '--explain']).stderr).toContain(FULL_REPAIR);
    const j = run(home, ['contract', 'validate', '--file', file, '--json']);
    expect([j.code, 'repair' in j.json]).toEqual([1, false]);
    expect(run(home, ['contract', 'validate', '--file', file, '--json', '--explain']).json.repair).toContain(
      FULL_REPAIR,
    );
  });

  it('the approval cross-check paragraph comes with --explain too', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = run(home, [
      'contract',
      'set',
      'approval_request.approval_id',
      'P-nope',
      '--draft-id',
      d.contract_id,
      '--json',
      '--explain',
    ]);
    expect([r.code, r.json.codes]).toEqual([1, ['APPROVAL_ID_NOT_PENDING']]);
    expect(r.json.repair).toContain('A turn closing APPROVAL_REQUEST cites a pending approval');
  });

  it('the gate block reason keeps the full repair text; the library result keeps repair', () => {
    const home = tempHome();
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
    finalizeAs(home, d.contract_id, 'APPROVAL_REQUEST', {
      approval_request: { exact_content: 'rm -rf build', approval_id: req.json.approval_id },
    });
    expect(run(home, ['approval', 'decide', req.json.approval_id, '--decision', 'approved']).code).toBe(0);
    // Dated before the row's finalized_at: a decision the turn should have seen (one after it is no violation).
    const db = rawStore(home);
    db.prepare('UPDATE approvals SET decided_at = created_at WHERE id = ?').run(req.json.approval_id);
    db.close();
    const blocked = gate(home, ['--draft-id', d.contract_id, '--stop-reason', 'end_turn'], '');
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain(FULL_REPAIR);
    expect(blocked.stderr).toContain('A valid envelope (compact template):');
    expect(validateEnvelope({}).repair).toContain(FULL_REPAIR);
  });
});
