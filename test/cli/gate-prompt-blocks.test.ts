/**
 * Lane 3 reads "the concatenated text of its text blocks": blocks are joined with no
 * separator, so a block boundary is never a line break of its own.
 */
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { dispatchJson, gate, subagentStop, writeTranscript } from '../helpers/gate.js';

const g = (home: string, input: string) => gate(home, ['--json', '--max-rejections', '50'], input);

describe('lane 3 over a content array of text blocks', () => {
  it('a contract_id line split across two blocks is found (the blocks are concatenated)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeTranscript(home, 'agent.jsonl', [
      { type: 'text', text: 'Do the task.\n\ncontract_id: ' },
      { type: 'text', text: `${d.contract_id}\n` },
    ]);
    expect(g(home, subagentStop({ agentId: 'sub-split', transcript: t })).json).toMatchObject({
      lane: 'prompt_block',
      contract_id: d.contract_id,
      claimed: true,
    });
  });

  it('a block that continues the previous line does not start a contract_id line', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeTranscript(home, 'agent.jsonl', [
      { type: 'text', text: 'Do the task; see ' },
      { type: 'text', text: `contract_id: ${d.contract_id}` },
    ]);
    expect(g(home, subagentStop({ agentId: 'sub-glued', transcript: t })).json).toMatchObject({
      source: 'row_missing',
      codes: ['ROW_NOT_FOUND'],
    });
  });
});
