/**
 * The real loop through the built binary: an orchestrator dispatches a plan-task-bound producer, the block goes
 * into the subagent's prompt the way Claude Code writes its transcript, the SubagentStop hook gates the stop, the
 * agent repairs and closes NEEDS_VERIFICATION, and a verifier dispatched on the producer's row completes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { deliver, rejections, row, subagentStop, writeTranscript } from '../helpers/gate.js';

describe('dispatch -> prompt -> gate -> finalize -> verifier', () => {
  it('plays the whole loop', () => {
    const home = tempHome();
    const h = (args: string[], input?: string) => run(home, args, { input, env: { HANDOFF_WORKSPACE: 'billing-api' } });

    // 1. The orchestrator dispatches the producer and takes the block from stdout.
    const taskText = 'Add idempotency keys to POST /payments.';
    const dispatched = h([
      'contract',
      'dispatch',
      '--goal',
      taskText,
      '--plan-task-id',
      'T-42',
      '--acceptance',
      'Duplicate POST returns the first response',
    ]);
    expect(dispatched.code, dispatched.stderr).toBe(0);
    const block = dispatched.stdout;
    const contractId = block.match(/^contract_id: (\S+)$/m)![1];
    const agentId = block.match(/^agent_id: (\S+)$/m)![1];
    const handoffId = Number(block.match(/^handoff_id: (\d+)$/m)![1]);
    expect(dispatched.stderr).toMatch(
      new RegExp(`^claim_token=hct_[A-Za-z0-9_-]{43}\ndispatched handoff_id=${handoffId} contract_id=${contractId}\n$`),
    );

    // 2. Claude Code starts the subagent: the Task prompt is the first user line of its own transcript.
    const transcript = writeTranscript(home, 'agent-a1b2c3.jsonl', `${taskText}\n\n${block}`, [
      'tool_use',
      'tool_use',
      'end_turn',
    ]);
    const hook = subagentStop({
      session: 'sess-main',
      agentId: 'a1b2c3',
      agentType: 'implementer',
      transcript,
      cwd: home,
    });

    // 3. The agent stops without finalizing: blocked, reason on stderr, the draft captured.
    const blocked = h(['contract', 'gate', '--max-rejections', '3'], hook);
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr).toMatch(/^\[CONTRACT REJECTED\] contract .* was never finalized \(ROW_NOT_FINALIZED\)\n/);
    expect(blocked.stderr).toContain(`handoff contract finalize --draft-id ${contractId}`);
    expect(blocked.stderr).toContain('This is block 1 of 2:');
    // Claude Code delivers the block: its record of the hook's feedback lands in the transcript.
    deliver(transcript, blocked.stderr);
    expect(row(home, contractId)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      harness_id: 'a1b2c3',
    });

    // 4. The agent runs its check through the tool (a receipt: the dispatch's default policy), writes its evidence
    // and tries to self-complete: refused (blind verification).
    const ran = h(['evidence', 'run', '--draft-id', contractId, '--json', '--', process.execPath, '-e', '0']);
    expect(ran.code, ran.stderr).toBe(0);
    const proof = ran.json.receipt;
    const fill = h([
      'contract',
      'fill',
      '--draft-id',
      contractId,
      '--json',
      JSON.stringify({
        agent_status: { pending_steps: [], next_action: 'done' },
        work_phase: 'verifying',
        evidence_report: {
          commands_run: [proof.command],
          verification: { type: 'command', command: proof.command, result: 'pass', receipt: proof.receipt_id },
        },
      }),
    ]);
    expect(fill.code, fill.stdout).toBe(0);
    expect(h(['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', contractId]).code).toBe(0);
    const selfComplete = h(['contract', 'finalize', '--draft-id', contractId, '--json']);
    expect(selfComplete.code).toBe(1);
    expect(selfComplete.json).toMatchObject({
      status: 'rejected',
      code: 'BLIND_VERIFICATION_REQUIRED',
      plan_task_id: 'T-42',
    });
    expect(row(home, contractId).agent_state).toBe('IN_PROGRESS');

    // The gate still blocks (attempt 2), now resolving the claimed run id.
    const again = h(
      ['contract', 'gate', '--json'],
      subagentStop({
        session: 'sess-main',
        agentId: 'a1b2c3',
        agentType: 'implementer',
        transcript,
        cwd: home,
        extra: { stop_hook_active: true },
      }),
    );
    expect(again.json).toMatchObject({
      decision: 'block',
      lane: 'harness_id',
      attempt: 2,
      codes: ['ROW_NOT_FINALIZED'],
    });

    // 5. It closes NEEDS_VERIFICATION, proposing its result; the gate allows and resets the counter.
    expect(
      h(['contract', 'set', 'agent_status.agent_state', 'NEEDS_VERIFICATION', '--draft-id', contractId]).code,
    ).toBe(0);
    const fin = h(['contract', 'finalize', '--draft-id', contractId, '--json']);
    expect(fin.json).toMatchObject({
      status: 'ok',
      created: true,
      handoff_id: handoffId,
      agent_state: 'NEEDS_VERIFICATION',
    });
    const allowed = h(['contract', 'gate'], hook);
    expect([allowed.code, allowed.stdout, allowed.stderr]).toEqual([0, '', '']);
    expect(rejections(home)).toEqual([]);
    const producerRow = row(home, contractId);
    expect(producerRow).toMatchObject({
      agent_state: 'NEEDS_VERIFICATION',
      cut_reason: null,
      plan_task_id: 'T-42',
      agent_id: agentId,
    });
    expect(JSON.parse(producerRow.raw_handoff_json).degraded).toBeUndefined();

    // 6. The orchestrator dispatches a verifier on the producer's row.
    const v = h([
      'contract',
      'dispatch',
      '--goal',
      'Verify handoff ' + handoffId,
      '--parent-handoff-id',
      String(handoffId),
      '--json',
    ]);
    expect(v.code, v.stdout).toBe(0);
    expect(v.json).toMatchObject({ kind: 'verifier', bindings: { parent_handoff_id: handoffId, plan_task_id: null } });
    expect(v.json.contract_block).toContain(
      `parent_handoff_id: ${handoffId} (contract ${contractId}, state NEEDS_VERIFICATION)`,
    );
    const verifierId = v.json.contract_id as string;
    const vTranscript = writeTranscript(
      home,
      'agent-d4e5f6.jsonl',
      [{ type: 'text', text: `Verify the work.\n\n${v.json.contract_block}` }],
      ['end_turn'],
    );
    const vHook = subagentStop({
      session: 'sess-main',
      agentId: 'd4e5f6',
      agentType: 'verifier',
      transcript: vTranscript,
      cwd: home,
    });

    // The producer's criteria are readable from its row.
    const listed = h(['contract', 'list', '--contract-id', contractId, '--json']);
    expect(listed.json.handoffs[0].acceptance).toEqual([
      { ac_id: null, description: 'Duplicate POST returns the first response' },
    ]);

    // 7. The verifier runs its check, judges, completes its own contract on the receipt, and the gate allows it.
    const vRan = h(['evidence', 'run', '--draft-id', verifierId, '--json', '--', process.execPath, '-e', '1']);
    expect(vRan.code, vRan.stderr).toBe(0);
    const vProof = vRan.json.receipt;
    expect(
      h([
        'contract',
        'fill',
        '--draft-id',
        verifierId,
        '--json',
        JSON.stringify({
          agent_status: { pending_steps: [], next_action: 'done' },
          evidence_report: {
            verification: { type: 'command', command: vProof.command, result: 'pass', receipt: vProof.receipt_id },
          },
        }),
      ]).code,
    ).toBe(0);
    expect(h(['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', verifierId]).code).toBe(0);
    expect(h(['contract', 'finalize', '--draft-id', verifierId, '--json']).json).toMatchObject({
      status: 'ok',
      agent_state: 'COMPLETE',
    });
    const vGate = h(['contract', 'gate', '--json'], vHook);
    expect(vGate.code).toBe(0);
    expect(vGate.json).toMatchObject({
      decision: 'allow',
      source: 'row',
      lane: 'prompt_block',
      contract_id: verifierId,
      claimed: true,
      agent_state: 'COMPLETE',
    });

    // The outcome: producer NEEDS_VERIFICATION + a clean verifier row pointing at it in COMPLETE.
    const verifiers = h(['contract', 'list', '--parent-handoff-id', String(handoffId), '--json']);
    expect(verifiers.json.handoffs.map((r: any) => [r.contract_id, r.agent_state, r.cut_reason, r.harness_id])).toEqual(
      [[verifierId, 'COMPLETE', null, 'd4e5f6']],
    );
    // The draft files were never edited by the gate.
    expect(JSON.parse(readFileSync(join(home, 'drafts', `${contractId}.json`), 'utf8')).agent_status.agent_state).toBe(
      'NEEDS_VERIFICATION',
    );
  });
});
