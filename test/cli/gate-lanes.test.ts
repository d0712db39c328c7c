/** Finding the turn's contract: the three lanes, ambiguity, claiming, the live tip. */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import {
  dispatchJson,
  finalizeAs,
  gate,
  rawStore,
  row,
  stopInput,
  subagentStop,
  writeTranscript,
} from '../helpers/gate.js';

const g = (home: string, input: string, args: string[] = []) =>
  gate(home, ['--json', '--max-rejections', '50', ...args], input);

describe('lane 3 (prompt_block) and its claim', () => {
  it('finds the contract from the block in the first user message, claims it, and later stops resolve in lane 2', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeTranscript(home, 'agent.jsonl', `Do the task.\n\n${d.contract_block}`);
    const first = g(home, subagentStop({ agentId: 'sub-1', transcript: t }));
    expect(first.json).toMatchObject({
      lane: 'prompt_block',
      contract_id: d.contract_id,
      claimed: true,
      handoff_id: d.handoff_id,
    });
    expect(row(home, d.contract_id).harness_id).toBe('sub-1');
    const second = g(home, subagentStop({ agentId: 'sub-1', transcript: '/nonexistent.jsonl' }));
    expect(second.json).toMatchObject({ lane: 'harness_id', contract_id: d.contract_id, claimed: false });
  });

  it('reads the block from text blocks of the content array too', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeTranscript(home, 'agent.jsonl', [
      { type: 'text', text: 'Do the task.' },
      { type: 'text', text: d.contract_block },
    ]);
    expect(g(home, subagentStop({ agentId: 'sub-2', transcript: t })).json).toMatchObject({
      lane: 'prompt_block',
      contract_id: d.contract_id,
    });
  });

  it('a SubagentStop never reads transcript_path (the parent session)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const parent = writeTranscript(home, 'parent.jsonl', d.contract_block);
    const input = subagentStop({ agentId: 'sub-3', transcript: undefined, extra: { transcript_path: parent } });
    expect(g(home, input).json).toMatchObject({ source: 'row_missing', codes: ['ROW_NOT_FOUND'] });
  });

  it('a Stop reads its own transcript_path and claims with the session id', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeTranscript(home, 'session.jsonl', `headless worker\n\n${d.contract_block}`);
    expect(g(home, stopInput({ session: 'sess-w', transcript: t })).json).toMatchObject({
      lane: 'prompt_block',
      claimed: true,
    });
    expect(row(home, d.contract_id).harness_id).toBe('sess-w');
  });

  it('two distinct contract ids in the prompt: the lane does not resolve', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a']);
    const b = dispatchJson(home, ['--goal', 'b']);
    const t = writeTranscript(home, 'agent.jsonl', `${a.contract_block}\n${b.contract_block}`);
    const r = g(home, subagentStop({ agentId: 'sub-4', transcript: t }));
    expect(r.json).toMatchObject({ source: 'row_missing', claimed: false });
    expect(r.stderr).toContain('2 distinct contract ids');
    expect(row(home, a.contract_id).harness_id).toBeNull();
  });

  it('a contract claimed by another run is still judged for the run whose prompt names it (never "missing")', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'other-run']);
    const t = writeTranscript(home, 'agent.jsonl', d.contract_block);
    const r = g(home, subagentStop({ agentId: 'sub-5', transcript: t }));
    expect(r.json).toMatchObject({ source: 'row_unfinalized', lane: 'prompt_block', contract_id: d.contract_id });
    expect(r.stderr).not.toContain('sub-5');
    expect(r.stderr).not.toContain('contract claim');
    expect(row(home, d.contract_id).harness_id).toBe('other-run');
  });

  it('the verdict is on the live tip of the chain the prompt names', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    finalizeAs(home, d.contract_id, 'BLOCKED');
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', d.contract_id, '--json']);
    const tip = w.json.draft_id as string;
    const t = writeTranscript(home, 'agent.jsonl', d.contract_block);
    const r = g(home, subagentStop({ agentId: 'sub-6', transcript: t }));
    expect(r.json).toMatchObject({
      lane: 'prompt_block',
      contract_id: tip,
      agent_state: 'DISPATCHED',
      source: 'row_unfinalized',
      claimed: true,
    });
    expect(row(home, tip).harness_id).toBe('sub-6');
  });
});

describe('lane 2 (harness_id)', () => {
  it('resolves a chain claimed at dispatchJson; its continuation still resolves to the tip', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'uuid-1']);
    expect(g(home, stopInput({ session: 'uuid-1' })).json).toMatchObject({
      lane: 'harness_id',
      contract_id: d.contract_id,
    });
    finalizeAs(home, d.contract_id, 'NEEDS_INPUT');
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', d.contract_id, '--json']);
    expect(g(home, stopInput({ session: 'uuid-1' })).json).toMatchObject({
      lane: 'harness_id',
      contract_id: w.json.draft_id,
    });
  });

  it('two chains carrying the run id are ambiguous: candidates are listed, lane 3 may still resolve', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a', '--harness-id', 'dup']);
    const b = dispatchJson(home, ['--goal', 'b']);
    // Two chains with one run id (an older tool's rows; claim and dispatchJson refuse this today).
    const db = rawStore(home);
    db.prepare('UPDATE handoffs SET harness_id = ? WHERE contract_id = ?').run('dup', b.contract_id);
    db.close();
    const plain = writeTranscript(home, 'plain.jsonl', 'Look around.');
    const r = g(home, subagentStop({ agentId: 'dup', transcript: plain }));
    expect(r.json).toMatchObject({ source: 'row_missing', candidates: [a.contract_id, b.contract_id] });
    expect(r.stderr).toContain('ambiguous');
    expect(r.stderr).toContain(`Candidates (ambiguous): ${a.contract_id}, ${b.contract_id}`);

    const t = writeTranscript(home, 'agent.jsonl', b.contract_block);
    const viaPrompt = g(home, subagentStop({ agentId: 'dup', transcript: t }));
    expect(viaPrompt.json).toMatchObject({ lane: 'prompt_block', contract_id: b.contract_id, claimed: false });
  });
});

describe('lane 1 (draft_id)', () => {
  it('wins over the other lanes and reads stdin when given', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a', '--harness-id', 'sub-9']);
    const b = dispatchJson(home, ['--goal', 'b']);
    const r = g(home, subagentStop({ agentId: 'sub-9', extra: { stop_reason: 'max_tokens' } }), [
      '--draft-id',
      b.contract_id,
    ]);
    expect(r.json).toMatchObject({
      lane: 'draft_id',
      contract_id: b.contract_id,
      stop_reason: 'max_tokens',
      breaker_key: `draft:${b.contract_id}`,
    });
    expect(a.contract_id).not.toBe(b.contract_id);
  });
});
