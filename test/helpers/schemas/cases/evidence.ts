/** Cases of the brief and evidence verbs and of the approvals. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ResultCase } from '../case.js';
import { seedRow, withStore } from '../../store-cli.js';
import { hf, noStoreCase, ok, refusal } from './setup.js';

const briefWith = (home: string, name = 'b1'): void => void ok(home, ['brief', 'add', name, '--ac', 'AC-1=works', '--json']);

/** Deposits evidence of brief b1 / AC-1: inline text, or a 5000-byte file copied to a blob. */
function deposit(home: string, kind: 'inline' | 'blob'): any {
  briefWith(home);
  const payload = kind === 'inline' ? ['--type', 'text', '--text', 'tests pass'] : ['--type', 'file', '--artifact-file', bigFile(home)];
  return ok(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'AC-1', ...payload, '--json']).evidence;
}

function bigFile(home: string): string {
  const path = join(home, 'report.log');
  writeFileSync(path, 'L'.repeat(5000));
  return path;
}

const show = (home: string, id: number, ...flags: string[]) => hf(home, ['evidence', 'show', String(id), ...flags, '--json']);

const evidenceWrongs: ResultCase['wrong'] = {
  'a payload both inline and in a blob': (j) => ({ ...j, evidence: { ...j.evidence, text: 'x', artifact_path: '/tmp/x' } }),
  'a type outside the enum': (j) => ({ ...j, evidence: { ...j.evidence, type: 'video' } }),
  'a digest that is not one': (j) => ({ ...j, evidence: { ...j.evidence, sha256: 'abc' } }),
};

export const EVIDENCE_CASES: ResultCase[] = [
  {
    verb: 'brief add',
    schema: 'brief-add',
    name: 'a new brief',
    exit: 0,
    produce: (home) => hf(home, ['brief', 'add', 'payments', '--title', 'Payments', '--ac', 'AC-1=works', '--ac', 'AC-2=is fast', '--json']),
    expect: (j) => expect([j.created, j.added, j.brief.objective]).toEqual([true, ['AC-1', 'AC-2'], null]),
    wrong: { 'a brief name that is not a slug': (j) => ({ ...j, brief: { ...j.brief, name: '../x' } }) },
  },
  {
    verb: 'brief add',
    schema: 'brief-add',
    name: 'a brief extended',
    exit: 0,
    produce: (home) => {
      briefWith(home);
      return hf(home, ['brief', 'add', 'b1', '--extend', '--ac', 'AC-2=also', '--json']);
    },
    expect: (j) => expect([j.created, j.added, j.acceptance_criteria.map((a: any) => a.position)]).toEqual([false, ['AC-2'], [1, 2]]),
    wrong: { 'an extension that added nothing': (j) => ({ ...j, added: [] }) },
  },
  refusal('brief add', 'BRIEF_EXISTS', 1, (home) => {
    briefWith(home);
    return ['B1', '--json'];
  }),
  {
    verb: 'brief list',
    schema: 'brief-list',
    name: 'briefs with counts',
    exit: 0,
    produce: (home) => {
      deposit(home, 'inline');
      briefWith(home, 'a0');
      return hf(home, ['brief', 'list', '--json']);
    },
    expect: (j) => expect(j.briefs.map((b: any) => [b.name, b.ac_count, b.evidence_count])).toEqual([['a0', 1, 0], ['b1', 1, 1]]),
    wrong: { 'a negative count': (j) => ({ ...j, briefs: j.briefs.map((b: any) => ({ ...b, ac_count: -1 })) }) },
  },
  noStoreCase('brief list', 'brief-list'),
  refusal('brief list', 'UNSAFE_SLUG', 2, () => ['--workspace', '../etc', '--json']),
  {
    verb: 'brief show',
    schema: 'brief-show',
    name: 'evidence filed before the brief declared criteria',
    exit: 0,
    produce: (home) => {
      ok(home, ['brief', 'add', 'b1', '--json']);
      ok(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'early', '--type', 'text', '--text', 'x', '--json']);
      ok(home, ['brief', 'add', 'b1', '--extend', '--ac', 'AC-1=works', '--json']);
      return hf(home, ['brief', 'show', 'b1', '--json']);
    },
    expect: (j) => {
      expect(j.acceptance_criteria).toEqual([{ ac_id: 'AC-1', description: 'works', position: 1, evidence_count: 0 }]);
      expect(j.undeclared_ac_evidence).toEqual([{ ac_id: 'early', evidence_count: 1 }]);
    },
    wrong: {
      'a criterion without its evidence count': (j) => ({ ...j, acceptance_criteria: [{ ac_id: 'AC-1', description: 'works', position: 1 }] }),
      'an undeclared id with no evidence': (j) => ({ ...j, undeclared_ac_evidence: [{ ac_id: 'early', evidence_count: 0 }] }),
    },
  },
  refusal('brief show', 'BRIEF_NOT_FOUND', 3, () => ['nope', '--json']),

  {
    verb: 'evidence add',
    schema: 'evidence-add',
    name: 'inline text',
    exit: 0,
    produce: (home) => {
      briefWith(home);
      return hf(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'AC-1', '--type', 'text', '--text', 'tests pass', '--task', 'T-1', '--json']);
    },
    expect: (j) => expect([j.storage, j.evidence.text, j.evidence.task_id]).toEqual(['inline', 'tests pass', 'T-1']),
    wrong: { ...evidenceWrongs, 'inline storage with a blob payload': (j) => ({ ...j, evidence: { ...j.evidence, text: null, artifact_path: '/x' } }) },
  },
  {
    verb: 'evidence add',
    schema: 'evidence-add',
    name: 'a file copied to a blob',
    exit: 0,
    produce: (home) => {
      briefWith(home);
      return hf(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'AC-1', '--type', 'file', '--artifact-file', bigFile(home), '--json']);
    },
    expect: (j) => expect([j.storage, j.evidence.text, j.evidence.size_bytes]).toEqual(['blob', null, 5000]),
    wrong: { 'blob storage with an inline payload': (j) => ({ ...j, storage: 'inline' }) },
  },
  refusal('evidence add', 'UNKNOWN_AC', 1, (home) => {
    briefWith(home);
    return ['--brief', 'b1', '--ac', 'AC-9', '--type', 'text', '--text', 'x', '--json'];
  }),
  {
    verb: 'evidence list',
    schema: 'evidence-list',
    name: 'inline and blob rows',
    exit: 0,
    produce: (home) => {
      deposit(home, 'inline');
      ok(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'AC-1', '--type', 'file', '--artifact-file', bigFile(home), '--json']);
      return hf(home, ['evidence', 'list', '--brief', 'b1', '--json']);
    },
    expect: (j) => expect(j.evidence.map((e: any) => e.text === null)).toEqual([false, true]),
    wrong: { 'a row without its created_at': (j) => ({ ...j, evidence: j.evidence.map(({ created_at: _c, ...e }: any) => e) }) },
  },
  refusal('evidence list', 'BRIEF_NOT_FOUND', 3, () => ['--brief', 'nope', '--json']),
  {
    verb: 'evidence show',
    schema: 'evidence-show',
    name: 'an inline row',
    exit: 0,
    produce: (home) => show(home, deposit(home, 'inline').id),
    expect: (j) => expect(Object.keys(j).sort()).toEqual(['evidence', 'status']),
    wrong: { ...evidenceWrongs, 'blob_exists for an inline row': (j) => ({ ...j, blob_exists: true }) },
  },
  {
    verb: 'evidence show',
    schema: 'evidence-show',
    name: 'a blob, verified',
    exit: 0,
    produce: (home) => show(home, deposit(home, 'blob').id, '--verify'),
    expect: (j) => expect([j.blob_exists, j.verified, j.actual_sha256]).toEqual([true, true, j.evidence.sha256]),
    wrong: {
      'a blob without blob_exists': ({ blob_exists: _b, ...j }) => j,
      'verified without the digest': ({ actual_sha256: _a, ...j }) => j,
      'verified false on an ok object': (j) => ({ ...j, verified: false }),
    },
  },
  {
    verb: 'evidence show',
    schema: 'evidence-show-mismatch',
    name: 'a blob altered on disk',
    exit: 1,
    produce: (home) => {
      const e = deposit(home, 'blob');
      writeFileSync(e.artifact_path, 'M'.repeat(5000));
      return show(home, e.id, '--verify');
    },
    expect: (j) => expect([j.blob_exists, j.verified, typeof j.actual_sha256]).toEqual([true, false, 'string']),
    wrong: { 'verified true': (j) => ({ ...j, verified: true }), 'another code': (j) => ({ ...j, code: 'RECEIPT_TAMPERED' }) },
  },
  {
    verb: 'evidence show',
    schema: 'evidence-show-mismatch',
    name: 'a blob gone',
    exit: 1,
    produce: (home) => {
      const e = deposit(home, 'blob');
      rmSync(e.artifact_path);
      return show(home, e.id, '--verify');
    },
    expect: (j) => expect([j.blob_exists, j.actual_sha256]).toEqual([false, null]),
  },
  refusal('evidence show', 'EVIDENCE_NOT_FOUND', 3, () => ['7', '--json']),
  {
    verb: 'evidence orphans',
    schema: 'evidence-orphans',
    name: 'a stray file, a temp file and a row whose blob is gone',
    exit: 0,
    produce: (home) => {
      rmSync(deposit(home, 'blob').artifact_path);
      const stray = join(home, 'evidence', 'ws', 'b1', 'AC-1');
      mkdirSync(stray, { recursive: true });
      writeFileSync(join(stray, 'left-over.log'), 'x');
      writeFileSync(join(stray, '.0b7c7f0e-4a7e-4f55-9a55-2b1e6c0f6f10.tmp'), 'y');
      return hf(home, ['evidence', 'orphans', '--json']);
    },
    expect: (j) => {
      expect(j.orphans.map((o: any) => o.kind).sort()).toEqual(['blob', 'temp']);
      expect(j.missing).toHaveLength(1);
    },
    wrong: { 'a kind outside the enum': (j) => ({ ...j, orphans: j.orphans.map((o: any) => ({ ...o, kind: 'dir' })) }) },
  },
  refusal('evidence orphans', 'NO_STORE', 3, () => ['--json']),

  {
    verb: 'approval request',
    schema: 'approval-request',
    name: 'a pending approval',
    exit: 0,
    produce: (home) => hf(home, ['approval', 'request', '--content', 'git push origin main', '--json']),
    expect: (j) => expect(j.approval_status).toBe('pending'),
    wrong: { 'a decided status': (j) => ({ ...j, approval_status: 'approved' }), 'a malformed id': (j) => ({ ...j, approval_id: 'P-1' }) },
  },
  refusal('approval request', 'USAGE', 2, () => ['--json'], 'no content'),
  {
    verb: 'approval decide',
    schema: 'approval-decide',
    name: 'approved',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
      return hf(home, ['approval', 'decide', id, '--decision', 'approved', '--by', 'lead', '--json']);
    },
    expect: (j) => expect([j.approval_status, j.previous_status, j.changed]).toEqual(['approved', 'pending', true]),
    wrong: { 'decided back to pending': (j) => ({ ...j, approval_status: 'pending' }) },
  },
  {
    verb: 'approval decide',
    schema: 'approval-decide',
    name: 'the same decision again (no-op)',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'rejected', '--json']);
      return hf(home, ['approval', 'decide', id, '--decision', 'rejected', '--json']);
    },
    expect: (j) => expect([j.approval_status, j.previous_status, j.changed]).toEqual(['rejected', 'rejected', false]),
  },
  refusal('approval decide', 'APPROVAL_TRANSITION_REFUSED', 1, (home) => {
    const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
    ok(home, ['approval', 'decide', id, '--decision', 'rejected', '--json']);
    return [id, '--decision', 'approved', '--json'];
  }),
  {
    verb: 'approval list',
    schema: 'approval-list',
    name: 'a pending and a decided approval',
    exit: 0,
    produce: (home) => {
      ok(home, ['approval', 'request', '--content', 'deploy', '--json']);
      const id = ok(home, ['approval', 'request', '--content', 'rm -rf build', '--draft-id', 'a0123456789abcdef.abcdef', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'expired', '--note', 'too late', '--json']);
      return hf(home, ['approval', 'list', '--json']);
    },
    expect: (j) => {
      expect(j.approvals.map((a: any) => a.approval_status).sort()).toEqual(['expired', 'pending']);
      expect(j.approvals.find((a: any) => a.contract_id !== null).agent_id).toBe('a0123456789abcdef');
    },
    wrong: {
      'a pending approval with a decision time': (j) => ({ ...j, approvals: j.approvals.map((a: any) => ({ ...a, approval_status: 'pending' })) }),
      'the raw status column': (j) => ({ ...j, approvals: j.approvals.map(({ approval_status: s, ...a }: any) => ({ ...a, status: s })) }),
    },
  },
  {
    verb: 'approval list',
    schema: 'approval-list',
    name: 'a used approval',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--draft-id', 'a0123456789abcdef.abcdef', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'approved', '--json']);
      // The finalize of the executing turn marks it used; here the store is written as that finalize would.
      const handoff = seedRow(home, { contract_id: 'a0123456789abcdef.abcdef', agent_state: 'BLOCKED', raw: {} });
      withStore(home, (db) => db.prepare("UPDATE approvals SET status = 'used', used_at = decided_at, used_by_handoff_id = ? WHERE id = ?").run(handoff, id));
      return hf(home, ['approval', 'list', '--status', 'used', '--json']);
    },
    expect: (j) => expect(j.approvals.map((a: any) => a.approval_status)).toEqual(['used']),
    wrong: { 'used without its handoff': (j) => ({ ...j, approvals: j.approvals.map((a: any) => ({ ...a, used_by_handoff_id: null })) }) },
  },
  noStoreCase('approval list', 'approval-list'),
  {
    verb: 'approval show',
    schema: 'approval-show',
    name: 'an approved approval with its fill input',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy\nto prod', '--draft-id', 'a0123456789abcdef.abcdef', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'approved', '--json']);
      return hf(home, ['approval', 'show', id, '--json']);
    },
    expect: (j) => {
      expect([j.approval.approval_status, j.approval.exact_content]).toEqual(['approved', 'deploy\nto prod']);
      expect(j.fill_command).toBe('handoff contract fill --draft-id a0123456789abcdef.abcdef --json-file -');
    },
    wrong: { 'a fill command of another shape': (j) => ({ ...j, fill_command: 'handoff contract set x' }) },
  },
  {
    verb: 'approval show',
    schema: 'approval-show',
    name: 'an approval used by the pre-tool gate names the tool call',
    exit: 0,
    produce: (home) => {
      const d = ok(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal', 'g', '--require-approval', 'Bash(git push *)', '--json']);
      const transcript = join(home, 't.jsonl');
      writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: d.contract_block } })}\n`);
      const id = ok(home, ['approval', 'request', '--draft-id', d.contract_id, '--content', 'git push origin main', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'approved', '--json']);
      const input = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', transcript_path: transcript, cwd: home, tool_name: 'Bash', tool_input: { command: 'git push origin main' }, tool_use_id: 'toolu_used' });
      expect(hf(home, ['approval', 'gate'], { input }).code).toBe(0);
      return hf(home, ['approval', 'show', id, '--json']);
    },
    expect: (j) => expect([j.approval.approval_status, j.approval.used_by_tool_use_id]).toEqual(['used', 'toolu_used']),
    wrong: { 'a tool call id on an unused approval': (j) => ({ ...j, approval: { ...j.approval, approval_status: 'approved', used_at: null, used_by_handoff_id: null } }) },
  },
  {
    verb: 'approval show',
    schema: 'approval-show',
    name: 'a rejected approval (nothing to fill)',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'rejected', '--json']);
      return hf(home, ['approval', 'show', id, '--json']);
    },
    expect: (j) => expect([j.approval.approval_status, j.fill_command, j.fill_input]).toEqual(['rejected', null, null]),
  },
  {
    verb: 'approval gate',
    schema: 'approval-gate',
    name: 'a call matching no pattern, allowed',
    exit: 0,
    produce: (home) =>
      hf(home, ['approval', 'gate', '--json'], {
        input: JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'Bash', tool_input: { command: 'ls' } }),
      }),
    expect: (j) => expect([j.allow, j.why, j.pattern]).toEqual([true, 'no_match', null]),
    wrong: { 'allowed with a reason': (j) => ({ ...j, reason: 'x' }) },
  },
  {
    verb: 'approval gate',
    schema: 'approval-gate',
    name: 'a matching call without a contract, denied',
    exit: 2,
    produce: (home) =>
      hf(home, ['approval', 'gate', '--json'], {
        input: JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: home, tool_name: 'Bash', tool_input: { command: 'git push' } }),
        env: { HANDOFF_APPROVAL_PATTERNS: 'Bash(git push*)' },
      }),
    expect: (j) => expect([j.status, j.allow, j.why, j.content]).toEqual(['denied', false, 'no_contract', 'git push']),
    wrong: { 'denied without a reason': (j) => ({ ...j, reason: null }) },
  },
  refusal('approval gate', 'HOOK_INPUT_INVALID', 1, () => ['--json']),
  {
    verb: 'approval wait',
    schema: 'approval-wait',
    name: 'an approved approval',
    exit: 0,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
      ok(home, ['approval', 'decide', id, '--decision', 'approved', '--json']);
      return hf(home, ['approval', 'wait', id, '--json']);
    },
    expect: (j) => expect([j.status, j.approval_status]).toEqual(['ok', 'approved']),
  },
  {
    verb: 'approval wait',
    schema: 'approval-wait',
    name: 'still pending at the timeout',
    exit: 124,
    produce: (home) => {
      const id = ok(home, ['approval', 'request', '--content', 'deploy', '--json']).approval_id as string;
      return hf(home, ['approval', 'wait', id, '--timeout', '10ms', '--json']);
    },
    expect: (j) => expect([j.status, j.approval_status]).toEqual(['timeout', 'pending']),
  },
  refusal('approval wait', 'APPROVAL_NOT_FOUND', 3, () => ['P-0123456789abcdef0123456789abcdef', '--json']),
  refusal('approval show', 'APPROVAL_NOT_FOUND', 3, () => ['P-0123456789abcdef0123456789abcdef', '--json']),
  refusal('approval show', 'USAGE', 2, () => ['P-1', '--json'], 'a malformed id'),
  refusal('approval list', 'USAGE', 2, () => ['--status', 'done', '--json'], 'bad --status'),
];
