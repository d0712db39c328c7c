/** Cases of the draft verbs: init, set, add, fill, view, validate. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { envelopeIn, mintDraft, prefix } from '../../store-cli.js';
import type { ResultCase } from '../case.js';
import { check } from '../schemas.js';
import { ambiguousCase, closedContract, dispatched, hf, plantDraft, ok, refusal, removeDraftFile } from './setup.js';

const set = (home: string, id: string, field: string, value: string) => hf(home, ['contract', 'set', field, value, '--draft-id', id, '--json']);

/** A draft whose file was edited by hand: a string where a list belongs (sanitized by writes, reported by validate). */
const handEditedDraft = (home: string): string => plantDraft(home, 'IN_PROGRESS', (e) => (e.agent_status.pending_steps = 'step'));

const rejectionWrongs: ResultCase['wrong'] = {
  'neither draft_id nor source': ({ draft_id: _d, source: _s, ...rest }) => rest,
  'both draft_id and source': (j) => ({ ...j, draft_id: j.draft_id ?? 'a0123456789abcdef.abcdef', source: '-' }),
  'an error without its path': (j) => ({ ...j, errors: [{ code: j.errors[0].code, detail: 'x' }] }),
  'a code outside the registry': (j) => ({ ...j, codes: ['NOT_A_CODE'] }),
  'no errors': (j) => ({ ...j, errors: [] }),
};

const writeWrongs: ResultCase['wrong'] = {
  'a skip reason although mirrored': (j) => ({ ...j, mirrored: true, mirror_skipped_reason: 'no_store' }),
  'not mirrored and no reason': ({ mirror_skipped_reason: _r, ...j }) => ({ ...j, mirrored: false }),
  'a malformed draft id': (j) => ({ ...j, draft_id: 'draft-1' }),
};

export const DRAFT_CASES: ResultCase[] = [
  {
    verb: 'contract init',
    schema: 'contract-init',
    name: 'minted ids',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'init', '--json']),
    expect: (j) => {
      expect(j.agent_id_minted).toBe(true);
      expect(j.draft_id.startsWith(`${j.agent_id}.`)).toBe(true);
    },
    wrong: { 'an agent id that is not one': (j) => ({ ...j, agent_id: 'agent-7' }), 'a string flag': (j) => ({ ...j, agent_id_minted: 'yes' }), 'a claim token that is not one': (j) => ({ ...j, claim_token: 'hct_short' }) },
  },
  {
    verb: 'contract init',
    schema: 'contract-init',
    name: 'a given --agent-id',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'init', '--agent-id', 'a0123456789abcdef', '--json']),
    expect: (j) => expect([j.agent_id, j.agent_id_minted]).toEqual(['a0123456789abcdef', false]),
  },
  {
    ...refusal('contract init', 'DRAFT_EXISTS', 1, (home) => ['--draft-id', plantDraft(home), '--json']),
    wrong: { 'a code outside the registry': (j) => ({ ...j, code: 'DRAFT_CLASH' }), 'a two-line message': (j) => ({ ...j, error: 'one\ntwo' }) },
  },

  {
    verb: 'contract set',
    schema: 'draft-write',
    name: 'canonicalized, no store to mirror into',
    exit: 0,
    produce: (home) => set(home, plantDraft(home), 'work_phase', 'Executing'),
    expect: (j) => {
      expect([j.mirrored, j.mirror_skipped_reason]).toEqual([false, 'no_store']);
      expect(j.canonicalized).toEqual([{ path: 'work_phase', from: 'Executing', to: 'executing' }]);
    },
    wrong: { ...writeWrongs, 'a skip reason outside the enum': (j) => ({ ...j, mirror_skipped_reason: 'offline' }) },
  },
  {
    verb: 'contract set',
    schema: 'draft-write',
    name: 'a write to a closed contract opens a continuation',
    exit: 0,
    produce: (home) => set(home, closedContract(home), 'work_phase', 'executing'),
    expect: (j) => {
      expect(j.mirrored).toBe(true);
      expect(j.continuation).toMatchObject({ status: 'opened', contract_id: j.draft_id, continues_handoff_id: 1 });
    },
    wrong: { 'a continuation without its handoff_id': ({ continuation: { handoff_id: _h, ...c }, ...j }) => ({ ...j, continuation: c }) },
  },
  {
    verb: 'contract set',
    schema: 'draft-write',
    name: 'adopted from its dispatch row',
    exit: 0,
    produce: (home) => {
      const d = dispatched(home);
      removeDraftFile(home, d.contract_id);
      return set(home, d.contract_id, 'work_phase', 'executing');
    },
    expect: (j) => expect([j.adopted, j.mirrored]).toEqual([true, true]),
    wrong: { 'adopted false': (j) => ({ ...j, adopted: false }) },
  },
  {
    verb: 'contract set',
    schema: 'draft-write',
    name: 'a hand-edited draft sanitized first',
    exit: 0,
    produce: (home) => set(home, handEditedDraft(home), 'report_prose', 'x'),
    expect: (j) => expect(j.sanitized).toEqual([{ path: 'agent_status.pending_steps', action: 'wrapped' }]),
    wrong: { 'an action outside the enum': (j) => ({ ...j, sanitized: [{ path: 'x', action: 'fixed' }] }), 'an empty list': (j) => ({ ...j, sanitized: [] }) },
  },
  {
    verb: 'contract set',
    schema: 'validation-rejection',
    name: 'COMPLETE before its requirements',
    exit: 1,
    produce: (home) => set(home, plantDraft(home), 'agent_status.agent_state', 'COMPLETE'),
    expect: (j) => expect(j.codes).toEqual(['COMPLETE_SHAPE', 'VERIFICATION_RESULT']),
    wrong: rejectionWrongs,
  },
  ambiguousCase('contract set', ['work_phase', 'executing', '--json']),
  refusal('contract set', 'DRAFT_NOT_FOUND', 3, () => ['work_phase', 'executing', '--draft-id', mintDraft(), '--json']),

  {
    verb: 'contract add',
    schema: 'draft-write',
    name: 'one entry appended',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', plantDraft(home), '--json']),
    expect: (j) => expect(j.mirror_skipped_reason).toBe('no_store'),
    wrong: writeWrongs,
  },
  {
    verb: 'contract add',
    schema: 'validation-rejection',
    name: 'a file reference with a bad commit',
    exit: 1,
    produce: (home) =>
      hf(home, ['contract', 'add', 'evidence_report.files_checked', '{"path":"a.ts","commit":"HEAD"}', '--draft-id', plantDraft(home), '--json']),
    expect: (j) => expect(j.errors.map((e: any) => [e.code, e.path])).toEqual([['FILE_REFERENCE_SHAPE', 'evidence_report.files_checked[0].commit']]),
    wrong: rejectionWrongs,
  },
  ambiguousCase('contract add', ['evidence_report.commands_run', 'npm test', '--json']),
  refusal('contract add', 'NOT_A_LIST', 1, (home) => ['agent_status.next_action', 'x', '--draft-id', plantDraft(home), '--json']),

  {
    verb: 'contract fill',
    schema: 'draft-write',
    name: 'a verification block merged',
    exit: 0,
    produce: (home) =>
      hf(home, ['contract', 'fill', '--draft-id', plantDraft(home), '--json', '{"evidence_report":{"verification":{"type":"command","command":"npm test"}}}']),
    expect: (j) => expect(Object.keys(j).sort()).toEqual(['draft_id', 'mirror_skipped_reason', 'mirrored', 'status']),
    wrong: writeWrongs,
  },
  {
    verb: 'contract fill',
    schema: 'validation-rejection',
    name: 'a bad state after sanitizing a hand-edited draft',
    exit: 1,
    produce: (home) => hf(home, ['contract', 'fill', '--draft-id', handEditedDraft(home), '--json', '{"agent_status":{"agent_state":"BOGUS"}}']),
    expect: (j) => {
      expect(j.codes).toEqual(['PLAN_STATUS']);
      expect(j.sanitized).toEqual([{ path: 'agent_status.pending_steps', action: 'wrapped' }]);
    },
    wrong: { ...rejectionWrongs, 'a sanitized entry without its action': (j) => ({ ...j, sanitized: [{ path: 'x' }] }) },
  },
  {
    verb: 'contract fill',
    schema: 'fill-list-collision',
    name: 'a populated list sent with other entries',
    exit: 1,
    produce: (home) => {
      const id = plantDraft(home);
      ok(home, ['contract', 'add', 'evidence_report.commands_run', 'a', '--draft-id', id, '--json']);
      return hf(home, ['contract', 'fill', '--draft-id', id, '--json', '{"evidence_report":{"commands_run":["b","c"]}}']);
    },
    expect: (j) => expect(j.collisions).toEqual([{ path: 'evidence_report.commands_run', existing: 1, incoming: 2, incoming_type: 'array' }]),
    wrong: {
      'a count for a non-array': (j) => ({ ...j, collisions: [{ ...j.collisions[0], incoming_type: 'string' }] }),
      'no collisions': (j) => ({ ...j, collisions: [] }),
      'another code': (j) => ({ ...j, code: 'NOT_A_LIST' }),
    },
  },
  ambiguousCase('contract fill', ['--json', '{"work_phase":"executing"}']),
  refusal('contract fill', 'PATCH_NOT_OBJECT', 2, (home) => ['--draft-id', plantDraft(home), '--json', '[1]']),

  {
    verb: 'contract patch',
    schema: 'draft-write',
    name: 'a block removed by null',
    exit: 0,
    produce: (home) => {
      const id = plantDraft(home);
      ok(home, ['contract', 'set', 'approval_request.exact_content', 'git push', '--draft-id', id, '--json']);
      return hf(home, ['contract', 'patch', '--draft-id', id, '--json', '{"approval_request":null}']);
    },
    expect: (j) => expect(Object.keys(j).sort()).toEqual(['draft_id', 'mirror_skipped_reason', 'mirrored', 'status']),
    wrong: writeWrongs,
  },
  {
    verb: 'contract patch',
    schema: 'validation-rejection',
    name: 'next_action removed',
    exit: 1,
    produce: (home) => hf(home, ['contract', 'patch', '--draft-id', plantDraft(home), '--json', '{"agent_status":{"next_action":null}}']),
    expect: (j) => expect(j.codes).toContain('MISSING_FIELD'),
    wrong: rejectionWrongs,
  },
  ambiguousCase('contract patch', ['--json', '{"work_phase":"executing"}']),
  refusal('contract patch', 'PATCH_FORBIDDEN', 1, (home) => ['--draft-id', plantDraft(home), '--json', '{"agent_status":null}']),

  {
    verb: 'contract view',
    schema: 'contract-view',
    name: 'the draft as stored',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'view', '--draft-id', plantDraft(home), '--json']),
    expect: (j) => {
      expect([j.envelope_source, j.envelope.agent_status.agent_state]).toEqual(['draft', 'IN_PROGRESS']);
      expect(check('envelope', j.envelope).why).toBe('');
    },
    wrong: {
      'row fields on a draft': (j) => ({ ...j, handoff_id: 1, agent_state: 'COMPLETE', cut_reason: null }),
      'an envelope that is not an object': (j) => ({ ...j, envelope: [] }),
    },
  },
  {
    verb: 'contract view',
    schema: 'contract-view',
    name: 'adopted from its dispatch row',
    exit: 0,
    produce: (home) => {
      const d = dispatched(home);
      removeDraftFile(home, d.contract_id);
      return hf(home, ['contract', 'view', '--draft-id', d.contract_id, '--json']);
    },
    expect: (j) => expect([j.envelope_source, j.adopted]).toEqual(['draft', true]),
  },
  {
    verb: 'contract view',
    schema: 'contract-view',
    name: 'a closed row without its draft, read-only from the store',
    exit: 0,
    produce: (home) => {
      const id = closedContract(home);
      removeDraftFile(home, id);
      return hf(home, ['contract', 'view', '--draft-id', id, '--json']);
    },
    expect: (j) => {
      expect([j.envelope_source, j.agent_state, j.cut_reason]).toEqual(['row', 'COMPLETE', null]);
      expect(check('envelope', j.envelope).why).toBe('');
    },
    wrong: {
      'a row source without its handoff_id': ({ handoff_id: _h, ...j }) => j,
      'a closed row with a cut_reason': (j) => ({ ...j, cut_reason: 'never_finalized' }),
      'a row source marked adopted': (j) => ({ ...j, adopted: true }),
    },
  },
  {
    verb: 'contract view',
    schema: 'contract-view-field',
    name: 'a null field',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'view', '--field', 'consolidation_report', '--draft-id', plantDraft(home), '--json']),
    expect: (j) => expect([j.field, j.value]).toEqual(['consolidation_report', null]),
  },
  ambiguousCase('contract view', ['--json']),
  refusal('contract view', 'FIELD_NOT_FOUND', 3, (home) => ['--field', 'agent_status.nope', '--draft-id', plantDraft(home), '--json']),

  {
    verb: 'contract validate',
    schema: 'contract-validate',
    name: 'a valid draft',
    exit: 0,
    produce: (home) => hf(home, ['contract', 'validate', '--draft-id', plantDraft(home), '--json']),
    expect: (j) => expect(Object.keys(j).sort()).toEqual(['draft_id', 'status']),
    wrong: { 'both draft_id and source': (j) => ({ ...j, source: '-' }), 'neither draft_id nor source': () => ({ status: 'ok' }) },
  },
  {
    verb: 'contract validate',
    schema: 'contract-validate',
    name: 'a valid file',
    exit: 0,
    produce: (home) => {
      const file = join(home, 'envelope.json');
      writeFileSync(file, JSON.stringify(envelopeIn(prefix(mintDraft()), 'BLOCKED')));
      return hf(home, ['contract', 'validate', '--file', file, '--json']);
    },
    expect: (j) => expect(j.source).toMatch(/envelope\.json$/),
  },
  {
    verb: 'contract validate',
    schema: 'validation-rejection',
    name: 'stdin that is not an envelope',
    exit: 1,
    produce: (home) => hf(home, ['contract', 'validate', '--file', '-', '--json'], { input: '[]' }),
    expect: (j) => expect([j.source, j.codes]).toEqual(['-', ['MISSING_FIELD']]),
    wrong: rejectionWrongs,
  },
  {
    verb: 'contract validate',
    schema: 'validation-rejection',
    name: 'a hand-edited draft',
    exit: 1,
    produce: (home) => hf(home, ['contract', 'validate', '--draft-id', handEditedDraft(home), '--json']),
    expect: (j) => expect(j.codes).toEqual(['FIELD_TYPE']),
  },
  ambiguousCase('contract validate', ['--json']),
  refusal('contract validate', 'UNREADABLE_INPUT', 2, (home) => ['--file', join(home, 'missing.json'), '--json']),
];
