/** Cases of the store verbs: finalize, list, chain, gc. */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { envelopeIn, mintDraft, prefix, writeDraft } from '../../store-cli.js';
import type { ResultCase } from '../case.js';
import { check } from '../schemas.js';
import { ambiguousCase, closedContract, dispatched, fillClosePatch, hf, plantDraft, noStoreCase, ok, readyDraft, refusal } from './setup.js';

const finalize = (home: string, id: string, ...flags: string[]) => hf(home, ['contract', 'finalize', '--draft-id', id, ...flags, '--json']);

/** Each refusal carries only its own code's data: `foreign` adds a key of another code. */
const refusalWrongs = (foreign: Record<string, unknown>): ResultCase['wrong'] => ({
  'data of another code': (j) => ({ ...j, ...foreign }),
  'a code finalize never refuses with': (j) => ({ ...j, code: 'DRAFT_LOCKED' }),
});
const AGENT_DATA = { expected_agent_id: 'a0123456789abcdef' };

export const STORE_CASES: ResultCase[] = [
  {
    verb: 'contract finalize',
    schema: 'contract-finalize',
    name: 'the row stored',
    exit: 0,
    produce: (home) => finalize(home, readyDraft(home)),
    expect: (j) => expect([j.created, j.agent_state, j.draft_id === j.contract_id]).toEqual([true, 'COMPLETE', true]),
    wrong: {
      'created with an unchanged_reason': (j) => ({ ...j, unchanged_reason: 'identical' }),
      'a state finalize never stores': (j) => ({ ...j, agent_state: 'IN_PROGRESS' }),
    },
  },
  {
    verb: 'contract finalize',
    schema: 'contract-finalize',
    name: 'a no-op on a COMPLETE row (write-once)',
    exit: 0,
    produce: (home) => finalize(home, closedContract(home)),
    expect: (j) => expect([j.created, j.unchanged_reason, j.evidence_inserted]).toEqual([false, 'complete_write_once', 0]),
    wrong: {
      'a no-op without its reason': ({ unchanged_reason: _r, ...j }) => j,
      'a no-op that inserted evidence': (j) => ({ ...j, evidence_inserted: 2 }),
      'a reason outside the enum': (j) => ({ ...j, unchanged_reason: 'same' }),
    },
  },
  {
    verb: 'contract finalize',
    schema: 'contract-finalize',
    name: 'a no-op on an identical closed row',
    exit: 0,
    produce: (home) => finalize(home, closedContract(home, 'NEEDS_VERIFICATION')),
    expect: (j) => expect([j.created, j.unchanged_reason]).toEqual([false, 'identical']),
  },
  {
    verb: 'contract finalize',
    schema: 'contract-finalize',
    name: 'an old id followed to the live tip of its chain',
    exit: 0,
    produce: (home) => {
      const root = closedContract(home);
      const link = ok(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', root, '--json']).draft_id as string;
      fillClosePatch(home, link, 'BLOCKED');
      return finalize(home, root);
    },
    expect: (j) => {
      expect([j.created, j.agent_state]).toEqual([true, 'BLOCKED']);
      expect(j.followed_from).not.toBe(j.draft_id);
    },
    wrong: { 'followed_from that is not an id': (j) => ({ ...j, followed_from: 'root' }) },
  },
  {
    verb: 'contract finalize',
    schema: 'finalize-refusal',
    name: 'CLOSING_STATE_REQUIRED',
    exit: 1,
    produce: (home) => finalize(home, plantDraft(home)),
    expect: (j) => expect([j.code, j.reason]).toEqual(['CLOSING_STATE_REQUIRED', 'closing_state_required']),
    wrong: { ...refusalWrongs(AGENT_DATA), 'the reason of another code': (j) => ({ ...j, reason: 'blind_verification_required' }) },
  },
  {
    verb: 'contract finalize',
    schema: 'finalize-refusal',
    name: 'AGENT_ID_MISMATCH',
    exit: 1,
    produce: (home) => {
      const id = mintDraft();
      writeDraft(home, id, envelopeIn(prefix(mintDraft()), 'BLOCKED'));
      return finalize(home, id);
    },
    expect: (j) => expect([j.code, j.expected_agent_id]).toEqual(['AGENT_ID_MISMATCH', j.draft_id.split('.')[0]]),
    wrong: { ...refusalWrongs({ requested_plan_task_id: 'T-9' }), 'without the expected agent id': ({ expected_agent_id: _e, ...j }) => j },
  },
  {
    verb: 'contract finalize',
    schema: 'finalize-refusal',
    name: 'PLAN_TASK_CONFLICT',
    exit: 1,
    produce: (home) => {
      const d = dispatched(home, '--plan-task-id', 'T-1');
      fillClosePatch(home, d.contract_id, 'NEEDS_VERIFICATION');
      return finalize(home, d.contract_id, '--plan-task-id', 'T-2');
    },
    expect: (j) => expect([j.code, j.plan_task_id, j.requested_plan_task_id]).toEqual(['PLAN_TASK_CONFLICT', 'T-1', 'T-2']),
    wrong: refusalWrongs(AGENT_DATA),
  },
  {
    verb: 'contract finalize',
    schema: 'finalize-refusal',
    name: 'BLIND_VERIFICATION_REQUIRED',
    exit: 1,
    produce: (home) => finalize(home, readyDraft(home), '--plan-task-id', 'T-7'),
    expect: (j) => expect([j.code, j.reason, j.plan_task_id]).toEqual(['BLIND_VERIFICATION_REQUIRED', 'blind_verification_required', 'T-7']),
    wrong: { ...refusalWrongs(AGENT_DATA), 'without the bound plan task': ({ plan_task_id: _p, ...j }) => j },
  },
  {
    verb: 'contract finalize',
    schema: 'validation-rejection',
    name: 'a cited receipt that does not exist',
    exit: 1,
    produce: (home) => finalize(home, plantDraft(home, 'COMPLETE', (e) => (e.evidence_report.verification.receipt = 'R-0123456789abcdef'))),
    expect: (j) => expect(j.errors.map((e: any) => [e.code, e.path])).toEqual([['RECEIPT_NOT_FOUND', 'evidence_report.verification.receipt']]),
  },
  ambiguousCase('contract finalize', ['--json']),
  refusal('contract finalize', 'DRAFT_NOT_FOUND', 3, () => ['--draft-id', mintDraft(), '--json']),

  noStoreCase('contract list', 'contract-list'),
  {
    verb: 'contract list',
    schema: 'contract-list',
    name: 'dispatched, captured and closed rows with their envelopes',
    exit: 0,
    produce: (home) => {
      dispatched(home, '--plan-task-id', 'T-1', '--acceptance', 'works', '--can-write', 'api');
      const captured = dispatched(home);
      expect(hf(home, ['contract', 'gate', '--draft-id', captured.contract_id, '--json']).json.captured).toBe(true);
      closedContract(home);
      return hf(home, ['contract', 'list', '--with-envelope', '--json']);
    },
    expect: (j) => {
      expect(j.count).toBe(3);
      expect(j.handoffs.map((r: any) => r.agent_state).sort()).toEqual(['COMPLETE', 'DISPATCHED', 'IN_PROGRESS']);
      // Every stored envelope here was validated when written: each is an instance of the published envelope schema.
      for (const r of j.handoffs) expect(check('envelope', r.envelope).why).toBe('');
    },
    wrong: {
      'a DISPATCHED row without its cut_reason': (j) => ({ ...j, handoffs: j.handoffs.map((r: any) => ({ ...r, cut_reason: null })) }),
      'a 0/1 flag instead of a boolean': (j) => ({ ...j, handoffs: j.handoffs.map((r: any) => ({ ...r, consolidation: 0 })) }),
      'the raw column instead of the parsed one': (j) => ({ ...j, handoffs: j.handoffs.map((r: any) => ({ ...r, raw_handoff_json: '{}' })) }),
      'a time in another format': (j) => ({ ...j, handoffs: j.handoffs.map((r: any) => ({ ...r, created_at: '2026-01-01 10:00:00' })) }),
    },
  },
  {
    verb: 'contract list',
    schema: 'contract-list',
    name: 'a page cut short, with its cursor and the total',
    exit: 0,
    produce: (home) => {
      closedContract(home);
      closedContract(home);
      return hf(home, ['contract', 'list', '--limit', '1', '--total', '--json']);
    },
    expect: (j) => {
      expect(j).toMatchObject({ count: 1, truncated: true, total: 2 });
      expect(j.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    },
    wrong: {
      'truncated as a string': (j) => ({ ...j, truncated: 'true' }),
      'a cursor with a space': (j) => ({ ...j, next_cursor: 'a b' }),
      'a negative total': (j) => ({ ...j, total: -1 }),
    },
  },
  refusal('contract list', 'USAGE', 2, () => ['--state', 'DONE', '--json'], 'bad --state'),
  refusal('contract list', 'USAGE', 2, () => ['--cursor', 'bm90LWEtY3Vyc29y', '--json'], 'a cursor this list never gave'),

  {
    verb: 'contract wait',
    schema: 'contract-wait',
    name: 'a contract closed BLOCKED: exit 11 at once',
    exit: 11,
    produce: (home) => hf(home, ['contract', 'wait', '--contract-id', closedContract(home, 'BLOCKED'), '--json']),
    expect: (j) => expect(j).toMatchObject({ status: 'ok', agent_state: 'BLOCKED', cut_reason: null, exit: 11, polls: 1 }),
    wrong: {
      'an exit outside the table': (j) => ({ ...j, exit: 1 }),
      'ok without its exit': (j) => ({ ...j, exit: undefined }),
      'a closed state with a cut_reason': (j) => ({ ...j, cut_reason: 'never_finalized' }),
    },
  },
  {
    verb: 'contract wait',
    schema: 'contract-wait',
    name: 'a dispatched contract still open when the time is up: exit 124',
    exit: 124,
    produce: (home) => hf(home, ['contract', 'wait', '--contract-id', dispatched(home).contract_id, '--timeout', '0s', '--json']),
    expect: (j) => expect(j).toMatchObject({ status: 'timeout', agent_state: 'DISPATCHED', cut_reason: 'never_finalized' }),
    wrong: { 'a timeout with an exit': (j) => ({ ...j, exit: 0 }) },
  },
  refusal('contract wait', 'ROW_NOT_FOUND', 3, () => ['--contract-id', mintDraft(), '--json'], 'no row'),
  {
    verb: 'contract chain',
    schema: 'contract-chain',
    name: 'a closed root and its continuation',
    exit: 0,
    produce: (home) => {
      const root = closedContract(home);
      ok(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', root, '--json']);
      return hf(home, ['contract', 'chain', '--contract-id', root, '--json']);
    },
    expect: (j) => {
      expect(j.links).toBe(2);
      expect(j.chain.map((l: any) => [l.link, l.agent_state, l.cut_reason])).toEqual([
        [1, 'COMPLETE', null],
        [2, 'DISPATCHED', 'never_finalized'],
      ]);
    },
    wrong: {
      'an empty chain': (j) => ({ ...j, chain: [] }),
      'a link 0': (j) => ({ ...j, chain: j.chain.map((l: any) => ({ ...l, link: 0 })) }),
    },
  },
  {
    verb: 'contract chain',
    schema: 'contract-chain-diff',
    name: 'a closed root and its continuation, as merge patches',
    exit: 0,
    produce: (home) => {
      const root = closedContract(home);
      ok(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', root, '--json']);
      return hf(home, ['contract', 'chain', '--contract-id', root, '--diff', '--json']);
    },
    expect: (j) => {
      expect(j.steps).toHaveLength(2);
      expect(j.steps[0].patch.agent_status.agent_state).toBe('COMPLETE');
      expect(j.steps[1].patch).toMatchObject({ continues_contract_id: j.steps[0].contract_id });
    },
    wrong: {
      'no steps': (j) => ({ ...j, steps: [] }),
      'a patch that is not an object': (j) => ({ ...j, steps: j.steps.map((s: any) => ({ ...s, patch: [] })) }),
      'a step without null_paths': (j) => ({ ...j, steps: j.steps.map(({ null_paths: _n, ...s }: any) => s) }),
    },
  },
  refusal('contract chain', 'ROW_NOT_FOUND', 3, () => ['--contract-id', mintDraft(), '--json']),

  {
    verb: 'contract gc',
    schema: 'contract-gc',
    name: 'a dry run over a spent draft',
    exit: 0,
    produce: (home) => {
      closedContract(home);
      return hf(home, ['contract', 'gc', '--grace-hours', '0', '--dry-run', '--json']);
    },
    expect: (j) => {
      expect(j.dry_run).toBe(true);
      expect(j.removed.map((r: any) => [r.reason, r.agent_state])).toEqual([['spent', 'COMPLETE']]);
    },
    wrong: {
      'a spent draft without a closed row': (j) => ({ ...j, removed: j.removed.map((r: any) => ({ ...r, agent_state: 'DISPATCHED' })) }),
      'a reason outside the enum': (j) => ({ ...j, removed: j.removed.map((r: any) => ({ ...r, reason: 'old' })) }),
    },
  },
  {
    verb: 'contract gc',
    schema: 'contract-gc',
    name: 'an aged draft and an old temp file removed',
    exit: 0,
    produce: (home) => {
      const id = plantDraft(home);
      const old = new Date(Date.now() - 10 * 24 * 3600 * 1000);
      utimesSync(join(home, 'drafts', `${id}.json`), old, old);
      const temp = join(home, 'drafts', `.${id}.99999999.deadbeef.tmp`); // a pid no process has
      writeFileSync(temp, '{}');
      utimesSync(temp, old, old);
      return hf(home, ['contract', 'gc', '--json']);
    },
    expect: (j) => {
      expect(j.dry_run).toBe(false);
      expect(j.removed.map((r: any) => [r.reason, r.agent_state]).sort()).toEqual([
        ['aged', null],
        ['temp', null],
      ]);
    },
    wrong: { 'a temp file with a row state': (j) => ({ ...j, removed: j.removed.map((r: any) => ({ ...r, agent_state: 'COMPLETE' })) }) },
  },
  refusal('contract gc', 'USAGE', 2, () => ['--max-age-days', '0', '--json'], 'bad --max-age-days'),
];
