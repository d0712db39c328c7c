import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, rawStore, row, WS_FLAGS } from '../helpers/gate.js';

const ID_RE = /^a[0-9a-f]{16}\.[0-9a-f]{12}$/;

describe('contract dispatch: what it creates', () => {
  it('creates the draft and the DISPATCHED row, and prints its documented --json shape', () => {
    const home = tempHome();
    expect(
      run(home, [
        'brief',
        'add',
        'payments-hardening',
        '--ac',
        'AC-1=Duplicate POST returns the first response',
        ...WS_FLAGS,
      ]).code,
    ).toBe(0);
    // No policy named: the default of the kind task_execution (receipt) is part of what dispatch creates.
    const created = run(home, [
      'contract',
      'dispatch',
      ...WS_FLAGS,
      '--json',
      '--goal',
      'Add idempotency keys to POST /payments',
      '--plan-task-id',
      'T-42',
      '--brief',
      'payments-hardening',
      '--can-write',
      'api_surface',
      '--can-write',
      'docs',
      '--can-write',
      'api_surface',
      '--acceptance',
      'Integration test covers timeout-then-retry',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const out = created.json;
    expect(out).toEqual({
      status: 'ok',
      handoff_id: 1,
      contract_id: expect.stringMatching(ID_RE),
      draft_id: out.contract_id,
      claim_token: expect.stringMatching(/^hct_[A-Za-z0-9_-]{43}$/),
      agent_id: out.contract_id.split('.')[0],
      workspace: 'ws',
      agent_state: 'DISPATCHED',
      kind: 'task_execution',
      goal: 'Add idempotency keys to POST /payments',
      bindings: {
        plan_task_id: 'T-42',
        parent_handoff_id: null,
        brief: { id: 1, name: 'payments-hardening' },
        consolidation: false,
        require_receipt: true,
        verification: 'receipt',
        checks: null,
        can_write: ['api_surface', 'docs'],
        harness_id: null,
        require_approval: null,
      },
      acceptance: [
        { ac_id: 'AC-1', description: 'Duplicate POST returns the first response' },
        { ac_id: null, description: 'Integration test covers timeout-then-retry' },
      ],
      // The test base in the working directory (the temp home, outside git).
      test_base: expect.objectContaining({ workdir: realpathSync(home), test_files: 'unknown', protect_tests: false }),
      close_rules: expect.any(Array),
      contract_block: expect.stringMatching(/^# Your Contract\n/),
    });
    expect(out.close_rules.map((r: any) => r.id)).toEqual([
      'draft_id',
      'finalize',
      'closing_states',
      'blind_verification',
      'approval_request',
      'evidence',
      'can_write',
      'verification',
      'stop_gate',
    ]);
    for (const r of out.close_rules) expect(out.contract_block).toContain(r.text);

    const draft = JSON.parse(readFileSync(join(home, 'drafts', `${out.contract_id}.json`), 'utf8'));
    expect(draft).toEqual(initialEnvelope(out.agent_id));
    const r = row(home, out.contract_id);
    expect(r).toMatchObject({
      id: 1,
      agent_id: out.agent_id,
      workspace: 'ws',
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
      kind: 'task_execution',
      plan_task_id: 'T-42',
      parent_handoff_id: null,
      brief_id: 1,
      continues_handoff_id: null,
      harness_id: null,
      goal: 'Add idempotency keys to POST /payments',
      consolidation: 0,
      require_receipt: 1,
      verification: 'receipt',
      checks_json: null,
      can_write_json: '["api_surface","docs"]',
    });
    expect(JSON.parse(r.raw_handoff_json)).toEqual(draft);
    expect(JSON.parse(r.acceptance_json)).toEqual(out.acceptance);
    expect(r.created_at).toBe(r.updated_at);
  });

  it('human mode: stdout is only the block, byte-identical to contract_block; the summary goes to stderr', () => {
    const home = tempHome();
    const args = [
      'contract',
      'dispatch',
      ...WS_FLAGS,
      '--goal',
      'two\nlines',
      '--consolidation',
      '--require-receipt',
      '--agent-id',
      'a0123456789abcdef',
    ];
    const human = run(home, args);
    expect(human.code, human.stderr).toBe(0);
    const json = run(home, [...args, '--json']).json;
    const hid = human.stdout.match(/^contract_id: (\S+)$/m)![1];
    expect(human.stderr).toMatch(
      new RegExp(`^claim_token=hct_[A-Za-z0-9_-]{43}\ndispatched handoff_id=1 contract_id=${hid}\n$`),
    );
    // Same flags, same agent id: the two blocks differ only by the minted contract id and the handoff id.
    const norm = (s: string, cid: string, n: number): string =>
      s.split(cid).join('<CID>').replace(`handoff_id: ${n}\n`, 'handoff_id: <N>\n');
    expect(norm(human.stdout, hid, 1)).toBe(norm(json.contract_block, json.contract_id, 2));
    expect(json.contract_block.endsWith('\n')).toBe(true);
    expect(json.close_rules.map((r: any) => r.id)).toEqual([
      'draft_id',
      'finalize',
      'closing_states',
      'complete',
      'approval_request',
      'consolidation',
      'verification',
      'stop_gate',
    ]);
    expect(row(home, json.contract_id)).toMatchObject({
      consolidation: 1,
      require_receipt: 1,
      verification: 'receipt',
      kind: 'investigation',
      acceptance_json: null,
      can_write_json: null,
    });
    expect(hid.startsWith('a0123456789abcdef.')).toBe(true);
  });

  it('reads --goal-file (trailing newline dropped); every dispatchJson mints a new contract', () => {
    const home = tempHome();
    const file = join(home, 'task.md');
    writeFileSync(file, 'Fix the leak\nin the pool\n\n');
    const a = dispatchJson(home, ['--goal-file', file]);
    const b = dispatchJson(home, ['--goal-file', file]);
    expect(a.goal).toBe('Fix the leak\nin the pool');
    expect(a.contract_block).toContain('goal:\n  Fix the leak\n  in the pool\n');
    expect(a.contract_id).not.toBe(b.contract_id);
    expect(a.agent_id).not.toBe(b.agent_id);
    expect(b.handoff_id).toBe(2);
  });

  it('verifier: kind inferred from --parent-handoff-id on a closed parent; parent line and verifier rule', () => {
    const home = tempHome();
    const producer = dispatchJson(home, ['--goal', 'build', '--plan-task-id', 'T-1']);
    finalizeAs(home, producer.contract_id, 'NEEDS_VERIFICATION');
    const v = dispatchJson(home, [
      '--goal',
      'verify',
      '--parent-handoff-id',
      String(producer.handoff_id),
      '--harness-id',
      'sess-uuid-1',
    ]);
    expect(v.kind).toBe('verifier');
    expect(v.bindings).toMatchObject({
      parent_handoff_id: producer.handoff_id,
      plan_task_id: null,
      harness_id: 'sess-uuid-1',
    });
    expect(v.contract_block).toContain(
      `\nparent_handoff_id: ${producer.handoff_id} (contract ${producer.contract_id}, state NEEDS_VERIFICATION)\n`,
    );
    expect(v.close_rules.map((r: any) => r.id)).toEqual([
      'draft_id',
      'finalize',
      'closing_states',
      'complete',
      'verifier',
      'approval_request',
      'verification',
      'stop_gate',
    ]);
    expect(row(home, v.contract_id)).toMatchObject({
      parent_handoff_id: producer.handoff_id,
      harness_id: 'sess-uuid-1',
    });
    // A non-verifier may point at an open row.
    const open = dispatchJson(home, ['--goal', 'x']);
    expect(
      dispatchJson(home, [
        '--goal',
        'follow-up',
        '--kind',
        'investigation',
        '--parent-handoff-id',
        String(open.handoff_id),
      ]).kind,
    ).toBe('investigation');
  });
});

describe('contract dispatch: refusals write nothing', () => {
  const refuse = (home: string, args: string[], code: string, exit: number): void => {
    const before = snapshot(home);
    // A case that names its own --workspace gets no second one (a flag given twice is USAGE).
    const ws = args.includes('--workspace') ? [] : WS_FLAGS;
    const r = run(home, ['contract', 'dispatch', ...ws, ...args, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(exit);
    expect(r.json?.code).toBe(code);
    expect(snapshot(home)).toEqual(before);
  };

  it.each<[string, string[], string]>([
    ['no goal', [], 'USAGE'],
    ['both goals', ['--goal', 'a', '--goal-file', 'x'], 'USAGE'],
    ['blank goal', ['--goal', ' \n '], 'USAGE'],
    ['missing goal file', ['--goal-file', '/nonexistent/goal.md'], 'UNREADABLE_INPUT'],
    ['bad kind', ['--goal', 'g', '--kind', 'Bad'], 'USAGE'],
    ['plan task with a control character', ['--goal', 'g', '--plan-task-id', 'T\n1'], 'USAGE'],
    ['plan task too long', ['--goal', 'g', '--plan-task-id', 'x'.repeat(201)], 'USAGE'],
    ['parent not a positive integer', ['--goal', 'g', '--parent-handoff-id', '0'], 'USAGE'],
    ['unsafe brief', ['--goal', 'g', '--brief', '../x'], 'UNSAFE_SLUG'],
    ['unsafe can-write', ['--goal', 'g', '--can-write', 'a/b'], 'UNSAFE_SLUG'],
    ['blank acceptance', ['--goal', 'g', '--acceptance', ' '], 'USAGE'],
    ['bad agent id', ['--goal', 'g', '--agent-id', 'A0123'], 'INVALID_AGENT_ID'],
    ['bad harness id', ['--goal', 'g', '--harness-id', '-x'], 'USAGE'],
    ['blank workspace', ['--goal', 'g', '--workspace', ' '], 'UNSAFE_SLUG'],
    ['verifier without parent', ['--goal', 'g', '--kind', 'verifier'], 'VERIFIER_REQUIRES_PARENT'],
    [
      'bound verifier',
      ['--goal', 'g', '--kind', 'verifier', '--parent-handoff-id', '1', '--plan-task-id', 'T'],
      'VERIFIER_PLAN_BOUND',
    ],
    [
      'task_execution without plan task',
      ['--goal', 'g', '--kind', 'task_execution'],
      'TASK_EXECUTION_REQUIRES_PLAN_TASK',
    ],
    ['unknown flag', ['--goal', 'g', '--nope'], 'USAGE'],
  ])('%s: exit 2, %s', (_name, args, code) => {
    refuse(tempHome(), args, code, 2);
  });

  it('goal file that is a directory: INPUT_NOT_REGULAR', () => {
    const home = tempHome();
    mkdirSync(join(home, 'dir'));
    refuse(home, ['--goal-file', join(home, 'dir')], 'INPUT_NOT_REGULAR', 2);
  });

  it('without a DB file: brief and parent are not found (exit 3) and the file is not created', () => {
    const home = tempHome();
    refuse(home, ['--goal', 'g', '--brief', 'nope'], 'BRIEF_NOT_FOUND', 3);
    refuse(home, ['--goal', 'g', '--parent-handoff-id', '7'], 'PARENT_HANDOFF_NOT_FOUND', 3);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  });

  it('with a store: unknown brief / parent (3), open parent of a verifier (1), harness id in use (1)', () => {
    const home = tempHome();
    const first = dispatchJson(home, ['--goal', 'first', '--harness-id', 'run-1']);
    refuse(home, ['--goal', 'g', '--brief', 'nope'], 'BRIEF_NOT_FOUND', 3);
    refuse(home, ['--goal', 'g', '--parent-handoff-id', '99'], 'PARENT_HANDOFF_NOT_FOUND', 3);
    refuse(home, ['--goal', 'g', '--parent-handoff-id', String(first.handoff_id)], 'PARENT_NOT_CLOSED', 1);
    refuse(home, ['--goal', 'g', '--harness-id', 'run-1'], 'HARNESS_ID_IN_USE', 1);
  });

  it('a brief of another workspace is not found', () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'pay', '--workspace', 'other']).code).toBe(0);
    refuse(home, ['--goal', 'g', '--brief', 'pay'], 'BRIEF_NOT_FOUND', 3);
  });

  it('a failed insert removes the draft again and exits 4 (no half-born contract)', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'creates the store']);
    const db = rawStore(home);
    db.exec(
      "CREATE TRIGGER test_refuse_insert BEFORE INSERT ON handoffs BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
    );
    db.close();
    const drafts = readdirSync(join(home, 'drafts'));
    const r = run(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.json.status).toBe('error');
    expect(r.json.error).toContain('refused by test');
    expect(readdirSync(join(home, 'drafts'))).toEqual(drafts);
  });

  it('never prints a stack trace', () => {
    const r = run(tempHome(), ['contract', 'dispatch', '--goal-file', '/nonexistent']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Error: /);
    expect(r.stdout).toBe('');
  });
});

describe('contract dispatchJson then the draft verbs', () => {
  it('the dispatched contract is written with --draft-id and finalizes the born row', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const fin = finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    expect(fin).toMatchObject({ created: true, handoff_id: d.handoff_id, agent_state: 'COMPLETE' });
    expect(row(home, d.contract_id)).toMatchObject({ agent_state: 'COMPLETE', cut_reason: null, goal: 'g' });
  });
});
