/**
 * `attest export --format a2a`: a chain as A2A v1 Tasks, every one checked against the A2A v1 schema (the SDK's codec,
 * test/helpers/a2a.ts): a chain with each closing state, its continuations and an approval; a dispatched turn and the
 * gate's degraded capture; the tie to the signed export; refusals that write nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { generate, runOk } from '../helpers/attest.js';
import { dispatch } from '../helpers/drafts.js';
import { rawStore } from '../helpers/gate.js';
import { a2aTaskProblems, EXPORTED_STATES, headDigests, sdkStateOf } from '../helpers/a2a.js';
import { a2aState, taskOf, type TurnFacts } from '../../src/attest/a2a.js';
import { captureOpenRow } from '../../src/store/sqlite-rows.js';
import { ROW_STATES } from '../../src/envelope/vocabulary.js';
import type { HandoffRow } from '../../src/store/handoff-row.js';

const readTasks = (file: string): any[] =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));

const expectA2a = (tasks: unknown[]): void => {
  expect(tasks.length).toBeGreaterThan(0);
  for (const t of tasks) expect(a2aTaskProblems(t), JSON.stringify(t)).toEqual([]);
};

/** Opens the continuation of a closed contract (a write to it) and returns the new contract id. */
function continueFrom(home: string, id: string): string {
  const add = runOk(home, ['contract', 'add', 'evidence_report.open_gaps', 'more', '--draft-id', id, '--json']);
  return (add.json as { continuation: { contract_id: string } }).continuation.contract_id;
}

function close(home: string, id: string, state: string, patch?: object): void {
  if (patch !== undefined) runOk(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(patch)]);
  runOk(home, ['contract', 'set', 'agent_status.agent_state', state, '--draft-id', id]);
  runOk(home, ['contract', 'finalize', '--draft-id', id, '--json']);
}

const VERIFIED = {
  evidence_report: { verification: { type: 'command', command: 'npm test', result: 'PASS' } },
  agent_status: { next_action: 'done' },
};

describe('a chain with every closing state, continuations and an approval', () => {
  const home = tempHome('handoff-a2a-');
  const links: string[] = [];
  let approvalId: string;
  let receiptId: string;
  let tasks: any[];
  let report: any;
  beforeAll(() => {
    // 1 APPROVAL_REQUEST citing an approval (decided afterwards), 2 NEEDS_INPUT, 3 COMPLETE on a receipt,
    // 4 NEEDS_VERIFICATION, 5 BLOCKED: each a continuation of the one before.
    const first = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    links.push(first);
    approvalId = (
      runOk(home, ['approval', 'request', '--content', 'deploy the release', '--draft-id', first, '--json']).json as {
        approval_id: string;
      }
    ).approval_id;
    close(home, first, 'APPROVAL_REQUEST', {
      approval_request: { exact_content: 'deploy the release', approval_id: approvalId },
      agent_status: { next_action: 'wait for the release approval' },
    });
    runOk(home, ['approval', 'decide', approvalId, '--decision', 'approved', '--by', 'alice']);
    links.push(continueFrom(home, first));
    close(home, links[1], 'NEEDS_INPUT', { agent_status: { next_action: 'which region should the release go to?' } });
    links.push(continueFrom(home, links[1]));
    runOk(home, ['contract', 'fill', '--draft-id', links[2], '--json', JSON.stringify(VERIFIED)]);
    const ran = runOk(home, [
      'evidence',
      'run',
      '--draft-id',
      links[2],
      '--json',
      '--',
      process.execPath,
      '-e',
      'console.log("tests pass")',
    ]);
    const receipt = (ran.json as { receipt: { receipt_id: string; command: string } }).receipt;
    receiptId = receipt.receipt_id;
    runOk(home, ['contract', 'set', 'evidence_report.verification.command', receipt.command, '--draft-id', links[2]]);
    runOk(home, ['contract', 'set', 'evidence_report.verification.receipt', receiptId, '--draft-id', links[2]]);
    close(home, links[2], 'COMPLETE');
    links.push(continueFrom(home, links[2]));
    close(home, links[3], 'NEEDS_VERIFICATION', VERIFIED);
    links.push(continueFrom(home, links[3]));
    close(home, links[4], 'BLOCKED');
    report = runOk(home, [
      'attest',
      'export',
      '--format',
      'a2a',
      '--chain',
      links[2],
      '--out',
      join(home, 'tasks.jsonl'),
      '--json',
    ]).json;
    tasks = readTasks(join(home, 'tasks.jsonl'));
  });

  it('writes one A2A v1 Task a line, root first, every one valid', () => {
    expect(report).toMatchObject({ status: 'ok', format: 'a2a', tasks: 5, context_id: links[0], tip: links[4] });
    expect(tasks.map((t) => t.id)).toEqual(links);
    expectA2a(tasks);
  });

  it('maps each closing state as the table says, the handoff state in metadata', () => {
    expect(tasks.map((t) => [t.status.state, t.metadata.handoff.agent_state])).toEqual([
      ['TASK_STATE_AUTH_REQUIRED', 'APPROVAL_REQUEST'],
      ['TASK_STATE_INPUT_REQUIRED', 'NEEDS_INPUT'],
      ['TASK_STATE_COMPLETED', 'COMPLETE'],
      ['TASK_STATE_COMPLETED', 'NEEDS_VERIFICATION'],
      ['TASK_STATE_FAILED', 'BLOCKED'],
    ]);
    expect(report.states).toEqual({
      TASK_STATE_AUTH_REQUIRED: 1,
      TASK_STATE_INPUT_REQUIRED: 1,
      TASK_STATE_COMPLETED: 2,
      TASK_STATE_FAILED: 1,
    });
    expect(tasks.every((t) => t.metadata.handoff.degraded === false)).toBe(true);
  });

  it('one context for the chain; each continuation names the turn it continues', () => {
    expect(new Set(tasks.map((t) => t.contextId))).toEqual(new Set([links[0]]));
    expect(tasks.map((t) => [t.metadata.handoff.link, t.metadata.handoff.continues_contract_id])).toEqual([
      [1, null],
      [2, links[0]],
      [3, links[1]],
      [4, links[2]],
      [5, links[3]],
    ]);
  });

  it('the envelope is a data part; the approval request waits on the approval, with its content', () => {
    const stored = rawStore(home);
    try {
      tasks.forEach((t, i) => {
        const row = stored.prepare('SELECT raw_handoff_json FROM handoffs WHERE contract_id = ?').get(links[i]) as {
          raw_handoff_json: string;
        };
        expect(t.artifacts[0]).toMatchObject({ artifactId: 'envelope', parts: [{ mediaType: 'application/json' }] });
        expect(t.artifacts[0].parts[0].data).toEqual(JSON.parse(row.raw_handoff_json));
      });
    } finally {
      stored.close();
    }
    const [auth, input] = tasks;
    expect(auth.status.message).toMatchObject({ role: 'ROLE_AGENT', taskId: links[0], contextId: links[0] });
    expect(auth.status.message.parts).toEqual([
      { text: 'wait for the release approval', mediaType: 'text/plain' },
      {
        data: { exact_content: 'deploy the release', approval_id: approvalId },
        mediaType: 'application/json',
      },
    ]);
    const approval = auth.artifacts.find((a: any) => a.artifactId === `approval:${approvalId}`);
    expect(approval.parts[0].data).toMatchObject({
      approval_id: approvalId,
      decision: 'approved',
      decided_by: 'alice',
    });
    expect(input.status.message.parts).toEqual([
      { text: 'which region should the release go to?', mediaType: 'text/plain' },
    ]);
    expect(tasks[2].status.message).toBeUndefined();
  });

  it('the cited receipt is an artifact of the turn that ran it', () => {
    const artifact = tasks[2].artifacts.find((a: any) => a.artifactId === `receipt:${receiptId}`);
    expect(artifact.metadata.handoff).toMatchObject({ kind: 'receipt', cited: true, result: 'PASSED' });
    expect(artifact.parts[0].data).toMatchObject({ receipt_id: receiptId, contract_id: links[2], exit_code: 0 });
    expect(tasks.filter((t) => t.artifacts.some((a: any) => a.artifactId.startsWith('receipt:')))).toHaveLength(1);
  });

  it("each Task carries its handoff statement's payload digest, the one the signed export writes", () => {
    const key = generate(home, 'keys');
    const signed = join(home, 'signed.jsonl');
    runOk(home, ['attest', 'export', '--chain', links[0], '--out', signed], { HANDOFF_SIGNING_KEY: key.private_key });
    const lines = readFileSync(signed, 'utf8').trimEnd().split('\n');
    const head = JSON.parse(
      Buffer.from(JSON.parse(lines[lines.length - 1]).dsseEnvelope.payload, 'base64').toString('utf8'),
    );
    const digests = tasks.map((t) => t.metadata.handoff.statement.payload_sha256);
    expect(digests).toEqual(headDigests(head).slice(0, 5));
    expect(tasks[4].metadata.handoff.statement.payload_sha256).toBe(head.predicate.tip);
  });

  it('--contract-id exports the chain from its root up to that turn', () => {
    const out = join(home, 'upto.jsonl');
    const r = runOk(home, ['attest', 'export', '--format', 'a2a', '--contract-id', links[1], '--out', out, '--json']);
    expect(r.json).toMatchObject({ tasks: 2, tip: links[1] });
    const upto = readTasks(out);
    expectA2a(upto);
    expect(upto).toEqual(tasks.slice(0, 2));
    // Without --json: one line saying what was written.
    const text = runOk(home, ['attest', 'export', '--format', 'a2a', '--contract-id', links[1], '--out', out]);
    expect(text.stdout).toBe(`OK: wrote 2 A2A task(s) to ${out} (context ${links[0]}, tip ${links[1]}).\n`);
  });
});

describe('a dispatched turn, then the gate captures it degraded', () => {
  it('DISPATCHED is submitted; the capture is failed and says degraded; both valid', () => {
    const home = tempHome('handoff-a2a-');
    const { id, handoffId } = dispatch(home);
    const out = join(home, 'tasks.jsonl');
    runOk(home, ['attest', 'export', '--format', 'a2a', '--chain', id, '--out', out]);
    const [submitted] = readTasks(out);
    expect(submitted.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(submitted.metadata.handoff).toMatchObject({ agent_state: 'DISPATCHED', degraded: false, statement: null });
    expectA2a([submitted]);

    // What the stop gate's backstop capture writes (src/gate/capture.ts), through the store's own statement.
    const db = rawStore(home);
    try {
      const envelope = { ...submitted.artifacts[0].parts[0].data, degraded: true };
      const json = JSON.stringify(envelope);
      expect(captureOpenRow(db, { id: handoffId, json, harnessId: null, now: new Date().toISOString() })).toBe(true);
    } finally {
      db.close();
    }
    runOk(home, ['attest', 'export', '--format', 'a2a', '--contract-id', id, '--out', out]);
    const [captured] = readTasks(out);
    expect(captured.status.state).toBe('TASK_STATE_FAILED');
    expect(captured.metadata.handoff).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      degraded: true,
    });
    expectA2a([captured]);
  });
});

describe('the state table (docs/attest.md)', () => {
  const row = (agent_state: string, cut_reason: string | null = null) =>
    ({ agent_state, cut_reason }) as Pick<HandoffRow, 'agent_state' | 'cut_reason'>;

  it.each([
    ['DISPATCHED', null, 'TASK_STATE_SUBMITTED', false],
    ['DISPATCHED', 'never_finalized', 'TASK_STATE_SUBMITTED', false],
    ['IN_PROGRESS', null, 'TASK_STATE_WORKING', false],
    ['COMPLETE', null, 'TASK_STATE_COMPLETED', false],
    ['NEEDS_VERIFICATION', null, 'TASK_STATE_COMPLETED', false],
    ['NEEDS_INPUT', null, 'TASK_STATE_INPUT_REQUIRED', false],
    ['APPROVAL_REQUEST', null, 'TASK_STATE_AUTH_REQUIRED', false],
    ['BLOCKED', null, 'TASK_STATE_FAILED', false],
    ['IN_PROGRESS', 'backstop_capture', 'TASK_STATE_FAILED', true],
  ])('%s (cut %s) -> %s, degraded %s', (state, cut, expected, degraded) => {
    expect(a2aState(row(state, cut))).toEqual({ state: expected, degraded });
  });

  it('covers every row state, each spelled as the A2A v1 SDK spells a TaskState', () => {
    const mapped = ROW_STATES.map((s) => a2aState(row(s)).state);
    expect(new Set(mapped)).toEqual(new Set(EXPORTED_STATES));
    for (const s of EXPORTED_STATES) expect(sdkStateOf(s), s).toBeGreaterThan(0);
    // v0.3's spellings are no TaskState of v1.
    for (const old of ['submitted', 'working', 'completed', 'input-required', 'auth-required'])
      expect(sdkStateOf(old), old).toBeLessThan(1);
  });
});

describe('a working turn with evidence blobs, built from its facts', () => {
  // The row's columns this build has, as a Partial: a column another branch adds does not break the literal.
  const ROW: Partial<HandoffRow> = {
    id: 7,
    contract_id: 'a0123456789abcdef.0123456789ab',
    agent_id: 'a0123456789abcdef',
    workspace: 'ws',
    agent_state: 'IN_PROGRESS',
    cut_reason: null,
    raw_handoff_json: '{"agent_status":{"agent_state":"IN_PROGRESS"}}',
    kind: null,
    plan_task_id: null,
    parent_handoff_id: null,
    brief_id: null,
    continues_handoff_id: null,
    harness_id: null,
    goal: null,
    consolidation: 0,
    require_receipt: 0,
    can_write_json: null,
    acceptance_json: null,
    created_at: '2026-12-06T11:00:00.000Z',
    updated_at: '2026-12-06T11:05:00.000Z',
    finalized_at: null,
  };
  const facts = (blobs: TurnFacts['blobs']): TurnFacts => ({
    row: ROW as HandoffRow,
    root: 'a0123456789abcdef.0123456789ab',
    link: 1,
    continues: null,
    statementSha256: null,
    receipts: [],
    blobs,
  });
  const sha = (c: string) => c.repeat(64);

  it('each cited blob is one artifact (two paths of the same bytes are one blob); the Task is valid', () => {
    const task = taskOf(
      facts([
        { path: '/evidence/ws/report.txt', sha256: sha('a') },
        { path: '/evidence/ws/copy.txt', sha256: sha('a') },
        { path: '/evidence/ws/shot.png', sha256: sha('b') },
      ]),
    );
    const json = JSON.parse(JSON.stringify(task));
    expectA2a([json]);
    expect(json.status).toEqual({ state: 'TASK_STATE_WORKING', timestamp: '2026-12-06T11:05:00.000Z' });
    expect(json.artifacts.slice(1)).toEqual([
      {
        artifactId: `evidence:${sha('a')}`,
        name: '/evidence/ws/report.txt',
        parts: [
          {
            data: { sha256: sha('a'), paths: ['/evidence/ws/report.txt', '/evidence/ws/copy.txt'] },
            mediaType: 'application/json',
          },
        ],
        metadata: { handoff: { kind: 'evidence', sha256: sha('a') } },
      },
      expect.objectContaining({ artifactId: `evidence:${sha('b')}`, name: '/evidence/ws/shot.png' }),
    ]);
  });

  it('the check refuses what A2A v1 does not declare (so a pass means something)', () => {
    const good = JSON.parse(JSON.stringify(taskOf(facts([]))));
    expect(a2aTaskProblems(good)).toEqual([]);
    const bad: [string, (t: any) => void][] = [
      ['a v0.3 state', (t) => (t.status.state = 'completed')],
      ['a v0.3 kind', (t) => (t.kind = 'task')],
      ['a part with two contents', (t) => (t.artifacts[0].parts[0].text = 'x')],
      ['a part with none', (t) => delete t.artifacts[0].parts[0].data],
      ['an artifact without parts', (t) => (t.artifacts[0].parts = [])],
      ['a number for an id', (t) => (t.id = 7)],
      ['no context', (t) => delete t.contextId],
      ['an artifact id twice', (t) => t.artifacts.push(t.artifacts[0])],
    ];
    for (const [name, mutate] of bad) {
      const t = structuredClone(good);
      mutate(t);
      expect(a2aTaskProblems(t), name).not.toEqual([]);
    }
  });
});

describe('refusals write nothing', () => {
  const home = tempHome('handoff-a2a-');
  let id: string;
  beforeAll(() => {
    id = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    runOk(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
    runOk(home, ['contract', 'finalize', '--draft-id', id, '--json']);
  });

  it.each([
    ['an unknown --format', ['--format', 'xml', '--chain', 'ID'], 'USAGE', 2],
    ['a chain id that is no contract id', ['--format', 'a2a', '--chain', '../x'], 'INVALID_DRAFT_ID', 2],
    ['no --out', ['--format', 'a2a', '--chain', 'ID', '--out', ''], 'USAGE', 2],
    ['a contract with no row', ['--format', 'a2a', '--chain', 'a0123456789abcdef.0123456789ab'], 'ROW_NOT_FOUND', 3],
  ])('%s: %s', (_name, args, code, exit) => {
    const out = join(home, 'refused.jsonl');
    const argv = ['attest', 'export', ...args.map((a) => (a === 'ID' ? id : a))];
    if (!argv.includes('--out')) argv.push('--out', out);
    const before = snapshot(home);
    const r = run(home, [...argv, '--json']);
    expect([r.code, r.json?.code]).toEqual([exit, code]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(snapshot(home)).toEqual(before);
  });
});
