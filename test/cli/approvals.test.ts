import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import {
  dbFile,
  envelopeIn,
  expectCleanFailure,
  mintAgent,
  mintDraft,
  prefix,
  runJson,
  withStore,
} from '../helpers/store-cli.js';

const request = (home: string, ...args: string[]) => runJson(home, ['approval', 'request', ...args]);
const decide = (home: string, ...args: string[]) => runJson(home, ['approval', 'decide', ...args]);
const list = (home: string, ...args: string[]) => runJson(home, ['approval', 'list', ...args]);

function pending(home: string, content = 'git push origin main'): string {
  const r = request(home, '--content', content);
  expect(r.code).toBe(0);
  return r.json.approval_id as string;
}

describe('approval request', () => {
  it('creates the store and a pending approval with the sha256 fingerprint', () => {
    const home = tempHome();
    const draft = mintDraft();
    const r = request(home, '--content', 'rm -rf build/', '--draft-id', draft, '--workspace', 'billing');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      status: 'ok',
      approval_id: r.json.approval_id,
      fingerprint: createHash('sha256').update('rm -rf build/').digest('hex'),
      approval_status: 'pending',
      fill_command: `handoff contract fill --draft-id ${draft} --json '${JSON.stringify({ approval_request: { exact_content: 'rm -rf build/', approval_id: r.json.approval_id } })}'`,
    });
    expect(r.json.approval_id).toMatch(/^P-[0-9a-f]{32}$/);
    const row = list(home).json.approvals[0];
    expect(row).toMatchObject({
      id: r.json.approval_id,
      approval_status: 'pending',
      workspace: 'billing',
      agent_id: prefix(draft),
      contract_id: draft,
      exact_content: 'rm -rf build/',
      decided_at: null,
    });
    expect(row.status).toBeUndefined();
  });

  it('reads --content-file exactly (UTF-8) and --agent-id alone sets agent_id only', () => {
    const home = tempHome();
    const file = join(home, 'content.txt');
    writeFileSync(file, 'line 1\nline 2 ✓\n');
    const agent = mintAgent();
    const r = request(home, '--content-file', file, '--agent-id', agent);
    expect(r.code).toBe(0);
    expect(list(home).json.approvals[0]).toMatchObject({
      exact_content: 'line 1\nline 2 ✓\n',
      agent_id: agent,
      contract_id: null,
    });
  });

  it('refuses bad input with exit 2 before any file or store access', () => {
    const home = tempHome();
    const dir = join(home, 'adir');
    mkdirSync(dir);
    const before = snapshot(home);
    expectCleanFailure(request(home), 2, 'USAGE');
    expectCleanFailure(request(home, '--content', 'a', '--content-file', join(home, 'x')), 2, 'USAGE');
    expectCleanFailure(request(home, '--content', '  \n'), 2, 'USAGE');
    expectCleanFailure(
      request(home, '--content', 'a', '--draft-id', mintDraft(), '--agent-id', mintAgent()),
      2,
      'DRAFT_ID_AGENT_MISMATCH',
    );
    expectCleanFailure(request(home, '--content', 'a', '--draft-id', 'bad'), 2, 'INVALID_DRAFT_ID');
    expectCleanFailure(request(home, '--content-file', join(home, 'missing.txt')), 2, 'UNREADABLE_INPUT');
    expectCleanFailure(request(home, '--content-file', dir), 2, 'INPUT_NOT_REGULAR');
    expect(snapshot(home)).toEqual(before);
    expect(existsSync(dbFile(home))).toBe(false);
  });
});

describe('approval decide', () => {
  it('applies the transition table; a repeat is changed:false; a refusal is exit 1 and writes nothing', () => {
    const home = tempHome();
    const a = pending(home);
    expect(decide(home, a, '--decision', 'revoked').json.code).toBe('APPROVAL_TRANSITION_REFUSED');
    const ok = decide(home, a, '--decision', 'approved', '--by', 'lead', '--note', 'fine');
    expect(ok.json).toMatchObject({
      status: 'ok',
      approval_id: a,
      approval_status: 'approved',
      previous_status: 'pending',
      changed: true,
    });
    expect(Object.keys(ok.json).sort()).toEqual([
      'approval_id',
      'approval_status',
      'changed',
      'fill_command',
      'fill_input',
      'fingerprint',
      'previous_status',
      'status',
    ]);
    expect(decide(home, a, '--decision', 'approved').json).toMatchObject({
      changed: false,
      approval_status: 'approved',
      previous_status: 'approved',
    });
    const row = list(home).json.approvals[0];
    expect(row).toMatchObject({ approval_status: 'approved', decided_by: 'lead', decision_note: 'fine' });
    expect(row.decided_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    for (const d of ['rejected', 'expired']) {
      const before = withStore(home, (db) => db.prepare('SELECT * FROM approvals').all());
      const r = decide(home, a, '--decision', d);
      expectCleanFailure(r, 1, 'APPROVAL_TRANSITION_REFUSED');
      expect(r.json.status).toBe('rejected');
      expect(withStore(home, (db) => db.prepare('SELECT * FROM approvals').all())).toEqual(before);
    }
    expect(decide(home, a, '--decision', 'revoked').json).toMatchObject({ changed: true, approval_status: 'revoked' });
    for (const d of ['approved', 'rejected', 'expired'])
      expectCleanFailure(decide(home, a, '--decision', d), 1, 'APPROVAL_TRANSITION_REFUSED');
    expect(decide(home, a, '--decision', 'revoked').json.changed).toBe(false);

    for (const final of ['rejected', 'expired']) {
      const b = pending(home);
      expect(decide(home, b, '--decision', final).json.changed).toBe(true);
      for (const d of ['approved', 'rejected', 'revoked', 'expired'].filter((x) => x !== final)) {
        expectCleanFailure(decide(home, b, '--decision', d), 1, 'APPROVAL_TRANSITION_REFUSED');
      }
    }
  });

  it('usage errors (exit 2) and APPROVAL_NOT_FOUND (exit 3) without creating the store', () => {
    const home = tempHome();
    const id = `P-${'0'.repeat(32)}`;
    expectCleanFailure(decide(home, 'P-123', '--decision', 'approved'), 2, 'USAGE');
    expectCleanFailure(decide(home, id), 2, 'USAGE');
    expectCleanFailure(decide(home, id, '--decision', 'pending'), 2, 'USAGE');
    expectCleanFailure(decide(home, id, '--decision', 'approved'), 3, 'APPROVAL_NOT_FOUND');
    expect(existsSync(dbFile(home))).toBe(false);
    pending(home);
    expectCleanFailure(decide(home, id, '--decision', 'approved'), 3, 'APPROVAL_NOT_FOUND');
  });
});

describe('approval list', () => {
  it('no store: empty, exit 0, nothing created; filters; newest first; bad status is exit 2', () => {
    const home = tempHome();
    expect(list(home).json).toEqual({ status: 'ok', count: 0, truncated: false, next_cursor: null, approvals: [] });
    expect(existsSync(dbFile(home))).toBe(false);
    const draft = mintDraft();
    const first = request(home, '--content', 'one', '--draft-id', draft, '--workspace', 'w1').json.approval_id;
    const second = request(home, '--content', 'two', '--workspace', 'w2').json.approval_id;
    decide(home, second, '--decision', 'expired');
    const ids = (...args: string[]): string[] => list(home, ...args).json.approvals.map((a: any) => a.id);
    expect(ids()).toEqual([second, first]);
    expect(ids('--status', 'pending')).toEqual([first]);
    expect(ids('--status', 'expired')).toEqual([second]);
    expect(ids('--contract-id', draft)).toEqual([first]);
    expect(ids('--agent-id', prefix(draft))).toEqual([first]);
    expect(ids('--workspace', 'w2')).toEqual([second]);
    expect(ids('--limit', '1')).toEqual([second]);
    expectCleanFailure(list(home, '--status', 'PENDING'), 2, 'USAGE');
    expectCleanFailure(list(home, '--limit', '0'), 2, 'USAGE');
  });

  it('human table cuts content to 60 characters', () => {
    const home = tempHome();
    request(home, '--content', `${'x'.repeat(100)}\nsecond line`);
    const out = run(home, ['approval', 'list']).stdout;
    expect(out).toContain(`${'x'.repeat(57)}...`);
    expect(out).not.toContain('x'.repeat(58));
    expect(out.trimEnd().split('\n').pop()).toBe('showing 1');
  });
});

describe('the APPROVAL_ID_NOT_PENDING cross-check (contract validate --file)', () => {
  const validate = (home: string, approvalId: unknown) => {
    const agent = mintAgent();
    // The content the approvals of pending() were requested for (an approval binds the two).
    const envelope = envelopeIn(agent, 'APPROVAL_REQUEST', {
      approval_request: { exact_content: 'git push origin main', approval_id: approvalId },
    });
    return run(home, ['contract', 'validate', '--file', '-', '--json'], { input: JSON.stringify(envelope) });
  };

  it('pending passes; decided or unknown fails; no store skips it and creates nothing', () => {
    const home = tempHome();
    expect(validate(home, `P-${'a'.repeat(32)}`).json.status).toBe('ok');
    expect(existsSync(dbFile(home))).toBe(false);
    const a = pending(home);
    expect(validate(home, a).json.status).toBe('ok');
    expect(validate(home, ` ${a} `).json.status).toBe('ok');
    const missing = validate(home, `P-${'b'.repeat(32)}`);
    expect(missing.code).toBe(1);
    expect(missing.json.errors).toEqual([
      expect.objectContaining({ code: 'APPROVAL_ID_NOT_PENDING', path: 'approval_request.approval_id' }),
    ]);
    decide(home, a, '--decision', 'approved');
    const decided = validate(home, a);
    expect(decided.json.codes).toEqual(['APPROVAL_ID_NOT_PENDING']);
    expect(decided.json.errors[0].detail).toContain('approved');
  });

  it('a store without the approvals table resolves nothing; a corrupt store is exit 4, not a validation result', () => {
    const home = tempHome();
    writeFileSync(dbFile(home), '');
    const empty = validate(home, `P-${'c'.repeat(32)}`);
    expect(empty.json.codes).toEqual(['APPROVAL_ID_NOT_PENDING']);
    const home2 = tempHome();
    writeFileSync(dbFile(home2), 'garbage, not a database at all. '.repeat(50));
    const r = validate(home2, `P-${'c'.repeat(32)}`);
    expectCleanFailure(r, 4, 'STORE_UNREADABLE');
    expect(r.json.error).toContain(dbFile(home2));
  });
});
