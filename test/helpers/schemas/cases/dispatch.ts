/** Cases of dispatch, claim and the stop gate. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { rawStore, stopInput, subagentStop, writeTranscript } from '../../gate.js';
import { mintDraft, seedRow } from '../../store-cli.js';
import type { ResultCase } from '../case.js';
import { dispatched, fillClosePatch, hf, plantDraft, ok, refusal } from './setup.js';

const gate = (home: string, flags: string[], input = '') => hf(home, ['contract', 'gate', ...flags, '--json'], { input });

/**
 * A closed APPROVAL_REQUEST row whose approval is decided, dated before the row's finalized_at (a decision the turn
 * should have seen; one taken after the turn ended is no violation): its verdict fails.
 */
function staleApprovalRow(home: string): string {
  const d = dispatched(home);
  const req = ok(home, ['approval', 'request', '--content', 'rm -rf build', '--draft-id', d.contract_id, '--json']);
  const patch = {
    agent_status: { agent_state: 'APPROVAL_REQUEST', next_action: 'wait for approval' },
    approval_request: { exact_content: 'rm -rf build', approval_id: req.approval_id },
  };
  ok(home, ['contract', 'fill', '--draft-id', d.contract_id, '--json', JSON.stringify(patch)]);
  ok(home, ['contract', 'finalize', '--draft-id', d.contract_id, '--json']);
  ok(home, ['approval', 'decide', req.approval_id, '--decision', 'approved', '--json']);
  const db = rawStore(home);
  db.prepare('UPDATE approvals SET decided_at = created_at WHERE id = ?').run(req.approval_id);
  db.close();
  return d.contract_id as string;
}

const verdictWrongs: ResultCase['wrong'] = {
  'an exit the hook protocol does not use': (j) => ({ ...j, exit: 1 }),
  'a lane outside the enum': (j) => ({ ...j, lane: 'transcript' }),
  'a status other than ok': (j) => ({ ...j, status: 'rejected' }),
};

export const DISPATCH_CASES: ResultCase[] = [
  {
    verb: 'contract dispatch',
    schema: 'contract-dispatch',
    name: 'a bound turn with a brief, acceptance, can-write and a harness id',
    exit: 0,
    produce: (home) => {
      ok(home, ['brief', 'add', 'payments', '--ac', 'AC-1=Duplicate POST returns the first response', '--json']);
      return hf(home, [
        'contract', 'dispatch', '--goal', 'Add idempotency keys', '--plan-task-id', 'T-42', '--brief', 'payments',
        '--acceptance', 'Integration test covers retries', '--can-write', 'api_surface', '--harness-id', 'sess-1',
        '--require-receipt', '--consolidation', '--json',
      ]);
    },
    expect: (j) => {
      expect(j.bindings).toMatchObject({ plan_task_id: 'T-42', brief: { name: 'payments' }, can_write: ['api_surface'], harness_id: 'sess-1' });
      expect(j.acceptance.map((a: any) => a.ac_id)).toEqual(['AC-1', null]);
      expect(j.bindings.verification).toBe('receipt');
      expect(j.close_rules.map((r: any) => r.id)).toContain('verification');
    },
    wrong: {
      'a verification policy outside the enum': (j) => ({ ...j, bindings: { ...j.bindings, verification: 'strict' } }),
      'a state other than DISPATCHED': (j) => ({ ...j, agent_state: 'IN_PROGRESS' }),
      'a close rule outside the list': (j) => ({ ...j, close_rules: [{ id: 'be_nice', text: 'x' }] }),
      'an empty can_write list': (j) => ({ ...j, bindings: { ...j.bindings, can_write: [] } }),
      'bindings without harness_id': (j) => ({ ...j, bindings: { ...j.bindings, harness_id: undefined } }),
    },
  },
  {
    verb: 'contract dispatch',
    schema: 'contract-dispatch',
    name: 'an unbound investigation',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'dispatch', '--goal', 'Find the leak', '--json']),
    expect: (j) => {
      expect(j.kind).toBe('investigation');
      expect(j.bindings).toEqual({ plan_task_id: null, parent_handoff_id: null, brief: null, consolidation: false, require_receipt: false, verification: 'typed', checks: null, can_write: null, harness_id: null, require_approval: null });
    },
  },
  {
    verb: 'contract dispatch',
    schema: 'contract-dispatch',
    name: 'approval patterns',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'dispatch', '--goal', 'Ship', '--require-approval', 'Bash(git push *)', '--json']),
    expect: (j) => {
      expect(j.bindings.require_approval).toEqual(['Bash(git push *)']);
      expect(j.close_rules.map((r: { id: string }) => r.id)).toContain('require_approval');
    },
  },
  refusal('contract dispatch', 'APPROVAL_PATTERN_INVALID', 2, () => ['--goal', 'g', '--require-approval', 'Read(x)', '--json']),
  refusal('contract dispatch', 'VERIFIER_REQUIRES_PARENT', 2, () => ['--goal', 'verify', '--kind', 'verifier', '--json']),

  {
    verb: 'contract claim',
    schema: 'contract-claim',
    name: 'a run id tied to the tip',
    exit: 0,
    produce: (home) => {
      const d = dispatched(home);
      return hf(home, ['contract', 'claim', '--harness-id', 'sub-1', '--draft-id', d.contract_id, '--claim-token', d.claim_token, '--json']);
    },
    expect: (j) => expect([j.harness_id, j.changed]).toEqual(['sub-1', true]),
    wrong: { 'a run id outside its pattern': (j) => ({ ...j, harness_id: '-x' }) },
  },
  {
    verb: 'contract claim',
    schema: 'contract-claim',
    name: 'the same run id again (no-op)',
    exit: 0,
    produce: (home) => {
      const d = dispatched(home, '--harness-id', 'sub-1');
      return hf(home, ['contract', 'claim', '--harness-id', 'sub-1', '--contract-id', d.contract_id, '--claim-token', d.claim_token, '--json']);
    },
    expect: (j) => expect(j.changed).toBe(false),
  },
  refusal('contract claim', 'HARNESS_ID_CONFLICT', 1, (home) => {
    const d = dispatched(home, '--harness-id', 'sub-1');
    return ['--harness-id', 'sub-2', '--draft-id', d.contract_id, '--claim-token', d.claim_token, '--json'];
  }),
  refusal('contract claim', 'CLAIM_TOKEN_REQUIRED', 2, (home) => ['--harness-id', 'sub-2', '--draft-id', dispatched(home).contract_id, '--json']),
  refusal('contract claim', 'CLAIM_TOKEN_INVALID', 1, (home) => ['--harness-id', 'sub-2', '--draft-id', dispatched(home).contract_id, '--claim-token', 'hct_wrong', '--json']),

  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'a block: the dispatched contract was never finalized (captured)',
    exit: 2,
    produce: (home) => gate(home, ['--draft-id', dispatched(home).contract_id]),
    expect: (j) => {
      expect(j).toMatchObject({ decision: 'block', exit: 2, source: 'row_unfinalized', lane: 'draft_id', codes: ['ROW_NOT_FINALIZED'], captured: true, attempt: 1 });
      expect(j.agent_state).toBe('DISPATCHED');
    },
    wrong: {
      ...verdictWrongs,
      'a block without its reason': ({ reason: _r, ...j }) => j,
      'a block that exits 0 without a trip': (j) => ({ ...j, exit: 0 }),
      'a block without errors': (j) => ({ ...j, codes: [], errors: [] }),
      'a DISPATCHED tip with no cut_reason': (j) => ({ ...j, cut_reason: null }),
    },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'an allow: the closed row passes its check',
    exit: 0,
    produce: (home) => {
      const d = dispatched(home);
      fillClosePatch(home, d.contract_id, 'NEEDS_VERIFICATION');
      ok(home, ['contract', 'finalize', '--draft-id', d.contract_id, '--json']);
      return gate(home, ['--draft-id', d.contract_id, '--stop-reason', 'end_turn']);
    },
    expect: (j) => expect(j).toMatchObject({ decision: 'allow', exit: 0, source: 'row', codes: [], errors: [], stop_class: 'violation', attempt: null }),
    wrong: {
      ...verdictWrongs,
      'an allow that exits 2': (j) => ({ ...j, exit: 2 }),
      'an allow with a block reason': (j) => ({ ...j, reason: '[CONTRACT REJECTED] x' }),
    },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'a trip: the first block of --max-rejections 1 gives up',
    exit: 0,
    produce: (home) => {
      dispatched(home); // a store exists: the gate captures only into an existing store
      return gate(home, ['--draft-id', plantDraft(home), '--max-rejections', '1']);
    },
    expect: (j) => {
      expect(j).toMatchObject({ decision: 'block', exit: 0, tripped: true, handoff_id: null, captured: true });
      expect(j.codes).toEqual(['ROW_NOT_FINALIZED', 'CONTRACT_REJECTION_LIMIT']);
    },
    wrong: {
      'a trip without its systemMessage': ({ systemMessage: _s, ...j }) => j,
      'a trip without CONTRACT_REJECTION_LIMIT': (j) => ({ ...j, codes: ['ROW_NOT_FINALIZED'] }),
      'a trip that exits 2': (j) => ({ ...j, exit: 2 }),
    },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'an excused truncation',
    exit: 0,
    produce: (home) => gate(home, ['--draft-id', dispatched(home).contract_id, '--stop-reason', 'max_tokens']),
    expect: (j) => {
      expect(j).toMatchObject({ decision: 'allow', stop_class: 'truncation', captured: true });
      expect(j.systemMessage).toMatch(/^handoff:/);
    },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'no contract, --on-missing allow (an interactive session)',
    exit: 0,
    produce: (home) => gate(home, ['--on-missing', 'allow'], stopInput({ session: 'sess-main', cwd: home })),
    expect: (j) => expect(j).toMatchObject({ decision: 'allow', source: 'row_missing', lane: null, contract_id: null, breaker_key: 'session:sess-main' }),
    wrong: { 'a contract without a lane': (j) => ({ ...j, contract_id: 'a0123456789abcdef.abcdef' }) },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'no contract for a subagent: blocked with ROW_NOT_FOUND',
    exit: 2,
    produce: (home) => gate(home, [], subagentStop({ agentId: 'sub-9', cwd: home })),
    expect: (j) => expect(j).toMatchObject({ decision: 'block', source: 'row_missing', lane: null, codes: ['ROW_NOT_FOUND'], captured: false }),
    wrong: { 'a capture without a contract': (j) => ({ ...j, captured: true }) },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'found through the contract block in the prompt, and claimed',
    exit: 2,
    produce: (home) => {
      const d = dispatched(home);
      const transcript = writeTranscript(home, 'agent.jsonl', `Do the task.\n\n${d.contract_block}`);
      return gate(home, [], subagentStop({ agentId: 'sub-3', transcript, cwd: home }));
    },
    expect: (j) => expect(j).toMatchObject({ lane: 'prompt_block', claimed: true, decision: 'block', breaker_key: 'subagent:sess-1:sub-3' }),
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'an ambiguous run id (two chains from an older tool): its candidates, then the prompt lane',
    exit: 2,
    produce: (home) => {
      const d = dispatched(home);
      // Two chains carrying one run id: no verb makes them today (HARNESS_ID_IN_USE), an older store may hold them.
      for (let i = 0; i < 2; i++) seedRow(home, { contract_id: mintDraft(), harness_id: 'sub-x', workspace: 'ws' });
      const transcript = writeTranscript(home, 'agent.jsonl', `Do the task.\n\n${d.contract_block}`);
      return gate(home, [], subagentStop({ agentId: 'sub-x', transcript, cwd: home }));
    },
    expect: (j) => {
      expect(j).toMatchObject({ lane: 'prompt_block', claimed: false, decision: 'block' });
      expect(j.candidates).toHaveLength(2);
    },
    wrong: { 'a single candidate': (j) => ({ ...j, candidates: j.candidates.slice(0, 1) }) },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'a closed row whose verdict fails (approval decided before the close)',
    exit: 2,
    produce: (home) => gate(home, ['--draft-id', staleApprovalRow(home)]),
    expect: (j) => expect(j).toMatchObject({ source: 'row', agent_state: 'APPROVAL_REQUEST', cut_reason: null, codes: ['APPROVAL_ID_NOT_PENDING'] }),
    wrong: { 'a closed row with a cut_reason': (j) => ({ ...j, cut_reason: 'backstop_capture' }) },
  },
  {
    verb: 'contract gate',
    schema: 'contract-gate',
    name: 'a block under --on-store-error block: the store file is damaged',
    exit: 2,
    produce: (home) => {
      const d = dispatched(home);
      writeFileSync(join(home, 'handoff.db'), 'SQLite format 3\0 truncated');
      return gate(home, ['--draft-id', d.contract_id, '--on-store-error', 'block']);
    },
    expect: (j) => expect(j).toMatchObject({ source: 'store_error', decision: 'block', codes: ['STORE_UNREADABLE'], store_error: { code: 'STORE_UNREADABLE' } }),
    wrong: { 'a store_error verdict without its condition': (j) => ({ ...j, store_error: undefined }) },
  },
  {
    verb: 'contract gate',
    schema: 'error',
    name: 'HOOK_INPUT_INVALID: fails open, exit 1',
    exit: 1,
    produce: (home) => gate(home, [], 'not json'),
    expect: (j) => expect([j.status, j.code]).toEqual(['error', 'HOOK_INPUT_INVALID']),
  },
  {
    verb: 'contract gate',
    schema: 'error',
    name: 'USAGE (bad --max-rejections): fails open, exit 1',
    exit: 1,
    produce: (home) => gate(home, ['--draft-id', plantDraft(home), '--max-rejections', '0']),
    expect: (j) => expect([j.status, j.code]).toEqual(['error', 'USAGE']),
  },
];
