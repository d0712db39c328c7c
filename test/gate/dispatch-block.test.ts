import { describe, expect, it } from 'vitest';
import { closeRules, renderContractBlock, type BlockInfo } from '../../src/dispatch/block.js';
import { checkHarnessId, checkPlanTaskId, checkPositiveInt, resolveKind } from '../../src/dispatch/options.js';
import { contractIdsInText } from '../../src/gate/transcript.js';
import { isHandoffError } from '../../src/errors.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isHandoffError(e) ? `${e.code}/${e.exit}` : 'NOT_A_HANDOFF_ERROR';
  }
  return undefined;
};

const base: BlockInfo = {
  contractId: 'a0123456789abcdef.0123456789ab',
  agentId: 'a0123456789abcdef',
  handoffId: 41,
  workspace: 'billing-api',
  kind: 'investigation',
  consolidation: false,
  requireReceipt: false,
  verification: 'any',
  checks: [],
  goal: 'Find the leak',
  acceptance: [],
  canWrite: [],
};

const TABLE_ORDER = [
  'draft_id',
  'finalize',
  'closing_states',
  'complete',
  'blind_verification',
  'verifier',
  'approval_request',
  'consolidation',
  'evidence',
  'can_write',
  'verification',
  'checks',
  'require_approval',
  'stop_gate',
];

describe('close rules', () => {
  it.each<[string, Partial<BlockInfo>, string[]]>([
    [
      'unbound, nothing else',
      {},
      ['draft_id', 'finalize', 'closing_states', 'complete', 'approval_request', 'verification', 'stop_gate'],
    ],
    [
      'bound, brief, can-write (the documented example)',
      {
        kind: 'task_execution',
        planTaskId: 'T-42',
        brief: { id: 7, name: 'payments-hardening' },
        canWrite: ['api_surface'],
      },
      [
        'draft_id',
        'finalize',
        'closing_states',
        'blind_verification',
        'approval_request',
        'evidence',
        'can_write',
        'verification',
        'stop_gate',
      ],
    ],
    [
      'verifier',
      {
        kind: 'verifier',
        parent: { id: 40, contractId: 'a1111111111111111.111111111111', state: 'NEEDS_VERIFICATION' },
      },
      [
        'draft_id',
        'finalize',
        'closing_states',
        'complete',
        'verifier',
        'approval_request',
        'verification',
        'stop_gate',
      ],
    ],
    [
      'plan task "0" is bound',
      { planTaskId: '0' },
      ['draft_id', 'finalize', 'closing_states', 'blind_verification', 'approval_request', 'verification', 'stop_gate'],
    ],
    [
      'everything',
      {
        planTaskId: 'T',
        consolidation: true,
        brief: { id: 1, name: 'b' },
        canWrite: ['x'],
        requireReceipt: true,
        verification: 'receipt',
        checks: ['npm test'],
      },
      [
        'draft_id',
        'finalize',
        'closing_states',
        'blind_verification',
        'approval_request',
        'consolidation',
        'evidence',
        'can_write',
        'verification',
        'checks',
        'stop_gate',
      ],
    ],
    [
      'approval patterns',
      { requireApproval: ['Bash(git push *)'] },
      [
        'draft_id',
        'finalize',
        'closing_states',
        'complete',
        'approval_request',
        'verification',
        'require_approval',
        'stop_gate',
      ],
    ],
  ])('%s', (_name, extra, ids) => {
    const rules = closeRules({ ...base, ...extra });
    expect(rules.map((r) => r.id)).toEqual(ids);
    const positions = rules.map((r) => TABLE_ORDER.indexOf(r.id));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('prints the require_approval line in the contract data, readable back as patterns', () => {
    const text = renderContractBlock({ ...base, requireApproval: ['Bash(git push *)', 'Write(migrations/**)'] });
    expect(text).toContain(
      '\nrequire_approval: Bash(git push *); Write(migrations/**)\nverification: any\n\n# Close rules',
    );
    expect(renderContractBlock(base)).not.toContain('require_approval');
  });

  it('names the contract, the plan task and the brief where the rule says so', () => {
    const rules = closeRules({
      ...base,
      planTaskId: 'T-42',
      brief: { id: 7, name: 'pay' },
      canWrite: ['a', 'b'],
      requireReceipt: true,
      verification: 'receipt',
      checks: ['npm test', 'npm run lint'],
    });
    const text = (id: string): string => rules.find((r) => r.id === id)?.text ?? '';
    expect(text('draft_id')).toContain(`--draft-id ${base.contractId}`);
    expect(text('finalize')).toContain(`handoff contract finalize --draft-id ${base.contractId}`);
    expect(text('blind_verification')).toContain('T-42');
    expect(text('evidence')).toContain('--brief pay');
    expect(text('evidence')).toContain('"brief_id":7');
    expect(text('can_write')).toContain('a, b');
    expect(text('verification')).toContain('verification policy receipt');
    expect(text('verification')).toContain(`handoff evidence run --draft-id ${base.contractId} --`);
    expect(text('checks')).toContain('"npm test", "npm run lint"');
  });
});

describe('the contract block', () => {
  it('prints the data lines in order, optional lines only when set, then the numbered rules', () => {
    const block = renderContractBlock({
      ...base,
      kind: 'task_execution',
      planTaskId: 'T-42',
      parent: { id: 40, contractId: 'a1111111111111111.111111111111', state: 'NEEDS_VERIFICATION' },
      brief: { id: 7, name: 'payments-hardening' },
      consolidation: true,
      goal: 'line one\nline two',
      acceptance: [
        { ac_id: 'AC-1', description: 'Duplicate POST returns the first response' },
        { ac_id: null, description: 'Integration test\ncovers retry' },
      ],
      canWrite: ['api_surface', 'docs'],
    });
    expect(block.split('\n# Close rules\n')[0].split('\n')).toEqual([
      '# Your Contract',
      `contract_id: ${base.contractId}`,
      `agent_id: ${base.agentId}`,
      'handoff_id: 41',
      'workspace: billing-api',
      'kind: task_execution',
      'plan_task_id: T-42',
      'parent_handoff_id: 40 (contract a1111111111111111.111111111111, state NEEDS_VERIFICATION)',
      'brief: payments-hardening (brief_id 7)',
      'consolidation: yes',
      'goal:',
      '  line one',
      '  line two',
      'acceptance:',
      '  - AC-1: Duplicate POST returns the first response',
      '  - Integration test',
      '    covers retry',
      'can_write: api_surface, docs',
      'verification: any',
      '',
    ]);
    expect(block).toMatch(/\n1\. pass --draft-id /);
    expect(renderContractBlock({ ...base, verification: 'receipt', checks: ['npm test'] })).toContain(
      '\nverification: receipt\nchecks:\n  - npm test\n',
    );
    expect(block.endsWith('\n')).toBe(true);
  });

  it('leaves out the optional lines and still carries exactly one contract id line for the gate', () => {
    const block = renderContractBlock({ ...base, goal: `contract_id: ${'a'.repeat(17)}.abcdef\nmore` });
    for (const absent of [
      'plan_task_id:',
      'parent_handoff_id:',
      'brief:',
      'consolidation:',
      'acceptance:',
      'can_write:',
    ]) {
      expect(block).not.toContain(`\n${absent}`);
    }
    expect(contractIdsInText(block)).toEqual([base.contractId]);
  });
});

describe('dispatch flag rules', () => {
  it.each<[string | undefined, string | undefined, number | undefined, string | undefined]>([
    [undefined, undefined, undefined, 'investigation'],
    [undefined, 'T', undefined, 'task_execution'],
    [undefined, 'T', 4, 'task_execution'],
    [undefined, undefined, 4, 'verifier'],
    ['review', undefined, undefined, 'review'],
    ['verifier', undefined, 4, 'verifier'],
    ['task_execution', 'T', undefined, 'task_execution'],
  ])('kind %s, plan %s, parent %s -> %s', (kind, plan, parent, expected) => {
    expect(resolveKind(kind, plan, parent)).toBe(expected);
  });

  it.each<[string | undefined, string | undefined, number | undefined, string]>([
    ['verifier', undefined, undefined, 'VERIFIER_REQUIRES_PARENT/2'],
    ['verifier', 'T', 4, 'VERIFIER_PLAN_BOUND/2'],
    ['task_execution', undefined, undefined, 'TASK_EXECUTION_REQUIRES_PLAN_TASK/2'],
    ['Verifier', undefined, 4, 'USAGE/2'],
    ['9kind', undefined, undefined, 'USAGE/2'],
    ['k'.repeat(33), undefined, undefined, 'USAGE/2'],
  ])('kind %s, plan %s, parent %s refused: %s', (kind, plan, parent, code) => {
    expect(codeOf(() => resolveKind(kind, plan, parent))).toBe(code);
  });

  it('plan task ids: opaque, non-blank, <= 200 characters, no control characters', () => {
    for (const ok of ['0', 'T-42', 'x'.repeat(200), 'spaces inside', 'ünïcode']) expect(checkPlanTaskId(ok)).toBe(ok);
    for (const bad of ['', '   ', 'x'.repeat(201), 'a\nb', 'tab\there', 'del\u007f', 'c1\u0085']) {
      expect(codeOf(() => checkPlanTaskId(bad))).toBe('USAGE/2');
    }
  });

  it('harness ids and positive integers', () => {
    for (const ok of ['abc', 'a.b:c-d_e', '0', 'X'.repeat(200)]) expect(checkHarnessId(ok)).toBe(ok);
    for (const bad of ['', '-a', '.a', 'a b', 'a/b', 'X'.repeat(201)])
      expect(codeOf(() => checkHarnessId(bad))).toBe('USAGE/2');
    expect(checkPositiveInt('12', '--n')).toBe(12);
    for (const bad of ['0', '-1', '1.5', '01', 'x', '', '99999999999999999999'])
      expect(codeOf(() => checkPositiveInt(bad, '--n'))).toBe('USAGE/2');
  });
});
