import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  contractIdsInText,
  lastAssistantStopReason,
  messageText,
  promptContractIds,
} from '../../src/gate/transcript.js';

const ID = 'a0123456789abcdef.0123456789ab';
const ID2 = 'afedcba9876543210.ba9876543210';
const dir = mkdtempSync(join(tmpdir(), 'handoff-transcript-'));
let n = 0;

function transcript(lines: (object | string)[]): string {
  const p = join(dir, `t${n++}.jsonl`);
  writeFileSync(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return p;
}

const user = (content: unknown): object => ({ type: 'user', message: { role: 'user', content } });
const assistant = (stop_reason: unknown): object => ({
  type: 'assistant',
  message: { role: 'assistant', content: [{ type: 'text', text: 'x' }], stop_reason },
});

describe('contract ids in a prompt', () => {
  it.each<[string, string[]]>([
    [`task\n\n# Your Contract\ncontract_id: ${ID}\nagent_id: a0123456789abcdef`, [ID]],
    [`contract_id: ${ID}   \r\n`, [ID]],
    [`contract_id: ${ID}\ncontract_id: ${ID}`, [ID]],
    [`contract_id: ${ID}\ncontract_id: ${ID2}`, [ID, ID2]],
    [`  contract_id: ${ID}`, []],
    [`see contract_id: ${ID}`, []],
    [`contract_id: ${ID} (yours)`, []],
    [`contract_id: ${ID.toUpperCase()}`, []],
    [`contract_id:${ID}`, []],
  ])('%j', (text, ids) => {
    expect(contractIdsInText(text)).toEqual(ids);
  });

  it('concatenates text blocks with no separator, ignoring other blocks', () => {
    expect(
      messageText([{ type: 'text', text: 'task\n' }, { type: 'image' }, { type: 'text', text: `contract_id: ${ID}` }]),
    ).toBe(`task\ncontract_id: ${ID}`);
    expect(
      messageText([
        { type: 'text', text: 'task' },
        { type: 'text', text: `contract_id: ${ID}` },
      ]),
    ).toBe(`taskcontract_id: ${ID}`);
    expect(messageText(42)).toBeUndefined();
  });

  it('a block boundary is not a line break: only lines of the concatenated text carry an id', () => {
    const mid = [
      { type: 'text', text: 'see ' },
      { type: 'text', text: `contract_id: ${ID}` },
    ];
    expect(contractIdsInText(messageText(mid) as string)).toEqual([]);
    const split = [
      { type: 'text', text: 'contract_id: ' },
      { type: 'text', text: ID },
    ];
    expect(contractIdsInText(messageText(split) as string)).toEqual([ID]);
  });
});

describe('promptContractIds (lane 3)', () => {
  it('reads only the first user line (string content or text blocks)', () => {
    const p = transcript([
      { type: 'summary' },
      user(`do it\n\ncontract_id: ${ID}`),
      assistant(null),
      user(`contract_id: ${ID2}`),
    ]);
    expect(promptContractIds(p)).toEqual({ foundPrompt: true, ids: [ID] });
    const q = transcript([
      user([
        { type: 'text', text: 'do it\n\n' },
        { type: 'text', text: `contract_id: ${ID2}` },
      ]),
    ]);
    expect(promptContractIds(q).ids).toEqual([ID2]);
    const glued = transcript([
      user([
        { type: 'text', text: 'do it' },
        { type: 'text', text: `contract_id: ${ID2}` },
      ]),
    ]);
    expect(promptContractIds(glued)).toEqual({ foundPrompt: true, ids: [] });
  });

  it('skips malformed lines and yields nothing for a missing, unreadable or non-regular transcript', () => {
    const p = transcript(['{not json', user(`contract_id: ${ID}`)]);
    expect(promptContractIds(p).ids).toEqual([ID]);
    expect(promptContractIds(join(dir, 'absent.jsonl'))).toEqual({ foundPrompt: false, ids: [] });
    const d = join(dir, 'a-directory');
    mkdirSync(d);
    expect(promptContractIds(d)).toEqual({ foundPrompt: false, ids: [] });
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(promptContractIds(fifo)).toEqual({ foundPrompt: false, ids: [] });
    expect(promptContractIds(undefined)).toEqual({ foundPrompt: false, ids: [] });
  });

  it("Qwen Code's chat recording: the prompt's parts, after the recording's other lines", () => {
    const qwenUser = (text: string): object => ({
      type: 'user',
      sessionId: 's',
      message: { role: 'user', parts: [{ text }] },
    });
    const p = transcript([{ type: 'system', subtype: 'ui_telemetry' }, qwenUser(`task\n\ncontract_id: ${ID}`)]);
    expect(promptContractIds(p, 'qwen')).toEqual({ foundPrompt: true, ids: [ID] });
    // Claude Code's reader finds no prompt in it (no content): the adapter is what reads it.
    expect(promptContractIds(p, 'claude').ids).toEqual([]);
    // The first user message is the prompt: an id in a later one (a hook's feedback, the agent's words) is not.
    const later = transcript([qwenUser('task'), qwenUser(`contract_id: ${ID}`)]);
    expect(promptContractIds(later, 'qwen')).toEqual({ foundPrompt: true, ids: [] });
  });

  it('reads at most the first 4 MiB: a prompt beyond the bound is not seen', () => {
    const filler = { type: 'system', text: 'x'.repeat(1024 * 1024) };
    const late = transcript([filler, filler, filler, filler, user(`contract_id: ${ID}`)]);
    expect(promptContractIds(late)).toEqual({ foundPrompt: false, ids: [] });
    const early = transcript([user(`contract_id: ${ID}`), filler, filler, filler, filler, filler]);
    expect(promptContractIds(early).ids).toEqual([ID]);
  });
});

describe('lastAssistantStopReason (fallback)', () => {
  it('takes the last assistant line, skipping later non-assistant lines', () => {
    const p = transcript([
      user('hi'),
      assistant('tool_use'),
      user([{ type: 'tool_result' }]),
      assistant('end_turn'),
      { type: 'system' },
    ]);
    expect(lastAssistantStopReason(p)).toBe('end_turn');
  });

  it('a last assistant line without a stop reason yields none', () => {
    expect(lastAssistantStopReason(transcript([assistant('end_turn'), assistant(null)]))).toBeUndefined();
    expect(lastAssistantStopReason(transcript([user('x')]))).toBeUndefined();
    expect(lastAssistantStopReason(join(dir, 'absent.jsonl'))).toBeUndefined();
  });

  it('reads only the last 1 MiB and ignores the partial first line of the tail', () => {
    const p = transcript([assistant('max_tokens'), { type: 'system', text: 'y'.repeat(2 * 1024 * 1024) }]);
    expect(lastAssistantStopReason(p)).toBeUndefined();
    // The big assistant line is cut by the bound; its tail fragment must not be parsed as a line.
    const q = transcript([
      assistant('end_turn'),
      { type: 'assistant', message: { stop_reason: 'tool_use', text: 'z'.repeat(2 * 1024 * 1024) } },
    ]);
    expect(lastAssistantStopReason(q)).toBeUndefined();
  });
});
