/**
 * One verdict, each harness's answer: the gate reads the stop hook input and the transcript of Codex CLI, Gemini CLI,
 * Copilot CLI and Cursor in the shapes those harnesses write, and answers in the form each one continues on.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, row, writeJsonLines } from '../helpers/gate.js';

const gate = (home: string, input: object | string, args: string[] = []) =>
  run(home, ['contract', 'gate', ...args], { input: typeof input === 'string' ? input : JSON.stringify(input) });

/** A Codex rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`): Codex's own context comes before the prompt. */
function codexRollout(dir: string, prompt: string): string {
  const ts = '2026-12-03T07:00:00.000Z';
  return writeJsonLines(dir, 'rollout-2026-12-03T07-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl', [
    {
      timestamp: ts,
      type: 'session_meta',
      payload: {
        id: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        timestamp: ts,
        cwd: dir,
        originator: 'codex_exec',
        cli_version: '0.170.0',
      },
    },
    {
      timestamp: ts,
      type: 'response_item',
      payload: {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }],
      },
    },
    {
      timestamp: ts,
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
    },
    { timestamp: ts, type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [] } },
    { timestamp: ts, type: 'turn_context', payload: { turn_id: 'turn-1', cwd: dir, model: 'gpt-5' } },
    { timestamp: ts, type: 'event_msg', payload: { type: 'agent_message', message: 'done' } },
  ]);
}

const codexStop = (session: string, turn: string, transcript: string | null, active = false) => ({
  session_id: session,
  turn_id: turn,
  transcript_path: transcript,
  cwd: '/tmp',
  hook_event_name: 'Stop',
  model: 'gpt-5',
  permission_mode: 'default',
  stop_hook_active: active,
  last_assistant_message: 'All done.',
});

describe('Codex CLI', () => {
  it('finds the contract in the rollout transcript: a finalized one is allowed at once, an unfinished one blocked with exit 2', () => {
    const home = tempHome();
    const done = dispatchJson(home, ['--goal', 'done']);
    finalizeAs(home, done.contract_id, 'COMPLETE', COMPLETE_PATCH);
    const t1 = codexRollout(home, `Do it.\n\n${done.contract_block}`);
    expect(gate(home, codexStop('s-1', 'turn-1', t1))).toMatchObject({ code: 0, stdout: '', stderr: '' });

    const open = dispatchJson(home, ['--goal', 'open']);
    const t2 = codexRollout(mkdtempSync(join(tmpdir(), 'codex-')), `Do it.\n\n${open.contract_block}`);
    const r = gate(home, codexStop('s-2', 'turn-1', t2), ['--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({
      harness: 'codex',
      exit: 2,
      lane: 'prompt_block',
      contract_id: open.contract_id,
      codes: ['ROW_NOT_FINALIZED'],
      breaker_key: 'codex:turn:s-2:turn-1',
    });
    expect(row(home, open.contract_id).harness_id).toBe('s-2');
    const human = gate(home, codexStop('s-2', 'turn-1', t2, true));
    expect([human.code, human.stdout]).toEqual([2, '']);
    expect(human.stderr).toMatch(/^\[CONTRACT REJECTED\] /);
  });

  it('the breaker is keyed by the turn: a new turn_id counts from one', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 's-3']);
    const args = ['--json', '--max-rejections', '2'];
    const t = codexRollout(mkdtempSync(join(tmpdir(), 'codex-')), 'Do it.');
    const first = gate(home, codexStop('s-3', 'turn-a', t), args);
    expect(first.json).toMatchObject({ exit: 2, attempt: 1 });
    // Codex delivers the block: the reason comes back to the model as a message it records in the rollout.
    appendFileSync(
      t,
      `${JSON.stringify({ type: 'event_msg', payload: { type: 'user_message', message: first.json.reason } })}\n`,
    );
    expect(gate(home, codexStop('s-3', 'turn-a', t, true), args).json).toMatchObject({
      exit: 0,
      tripped: true,
      contract_id: d.contract_id,
    });
    expect(gate(home, codexStop('s-3', 'turn-b', t), args).json).toMatchObject({
      exit: 2,
      attempt: 1,
      breaker_key: 'codex:turn:s-3:turn-b',
    });
  });
});

const afterAgent = (session: string, prompt: string, transcript?: string, active = false) => ({
  session_id: session,
  transcript_path: transcript ?? '/nonexistent/session.json',
  cwd: '/tmp',
  hook_event_name: 'AfterAgent',
  timestamp: '2026-12-03T07:00:00.000Z',
  prompt,
  prompt_response: 'Done.',
  stop_hook_active: active,
});

describe('Gemini CLI', () => {
  it('reads the prompt from stdin; blocks with {"decision":"block"} on exit 0, allows with {}', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const blocked = gate(home, afterAgent('g-1', `Work.\n\n${d.contract_block}`));
    expect(blocked.code).toBe(0);
    const answer = JSON.parse(blocked.stdout);
    expect(Object.keys(answer)).toEqual(['decision', 'reason']);
    expect(answer).toMatchObject({
      decision: 'block',
      reason: expect.stringMatching(/^\[CONTRACT REJECTED\] .*ROW_NOT_FINALIZED/),
    });
    expect(blocked.stderr).toBe('');
    finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    expect(gate(home, afterAgent('g-1', 'a later prompt', undefined, true))).toMatchObject({
      code: 0,
      stdout: '{}\n',
      stderr: '',
    });
  });

  it('reads the first user message of its session file when the prompt names no contract', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const session = join(home, 'session-2026-12-03T07-00-1a2b3c4d.json');
    writeFileSync(
      session,
      JSON.stringify(
        {
          sessionId: 'g-2',
          projectHash: 'ab12',
          startTime: '2026-12-03T07:00:00.000Z',
          lastUpdated: '2026-12-03T07:00:05.000Z',
          messages: [
            {
              id: 'm1',
              timestamp: '2026-12-03T07:00:00.000Z',
              type: 'user',
              content: [{ text: `Work.\n\n${d.contract_block}` }],
            },
            {
              id: 'm2',
              timestamp: '2026-12-03T07:00:04.000Z',
              type: 'gemini',
              content: 'Done.',
              model: 'gemini-2.5-pro',
            },
          ],
        },
        null,
        2,
      ),
    );
    const r = gate(home, afterAgent('g-2', 'continue', session), ['--json']);
    expect(r.json).toMatchObject({
      harness: 'gemini',
      exit: 0,
      decision: 'block',
      lane: 'prompt_block',
      contract_id: d.contract_id,
    });
  });

  it('the breaker holds although Gemini has no cap: it trips, and a new turn (stop_hook_active false) counts again', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'g', '--harness-id', 'g-3']);
    const session = writeJsonLines(home, 'session-g-3.jsonl', [{ id: 'm1', type: 'user', content: [{ text: 'x' }] }]);
    // Gemini delivers a block's reason as the next user message of its chat file.
    const deliverGemini = (reason: string): void =>
      appendFileSync(session, `${JSON.stringify({ id: 'm2', type: 'user', content: [{ text: reason }] })}\n`);
    const first = gate(home, afterAgent('g-3', 'x', session), ['--json']);
    deliverGemini(first.json.reason);
    const second = gate(home, afterAgent('g-3', 'x', session, true), ['--json']);
    deliverGemini(second.json.reason);
    const trip = gate(home, afterAgent('g-3', 'x', session, true));
    expect([first.json.attempt, second.json.attempt]).toEqual([1, 2]);
    expect(trip.code).toBe(0);
    expect(JSON.parse(trip.stdout).systemMessage).toMatch(/gave up after block 2 of 2/);
    expect(gate(home, afterAgent('g-3', 'x', session, true), ['--json']).json).toMatchObject({
      tripped: true,
      exit: 0,
    });
    expect(gate(home, afterAgent('g-3', 'next turn', session), ['--json']).json).toMatchObject({
      tripped: false,
      attempt: 1,
      decision: 'block',
    });
  });

  it('a problem of the gate itself: exit 1, empty stdout', () => {
    const home = tempHome();
    const r = gate(home, afterAgent('g-4', 'x'), ['--max-rejections', 'zero']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/ Stop not gated\.\n$/);
  });
});

const agentStop = (session: string, transcript: string, stopReason = 'end_turn', active = false) => ({
  sessionId: session,
  timestamp: 1764745200000,
  cwd: '/tmp',
  transcriptPath: transcript,
  stopReason,
  stop_hook_active: active,
});

describe('Copilot CLI', () => {
  it('camelCase input and its events.jsonl transcript; blocks only through {"decision":"block"}', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const events = writeJsonLines(home, 'events.jsonl', [
      {
        type: 'session.start',
        data: { sessionId: 'c-1', copilotVersion: '1.0.100' },
        id: 'e1',
        timestamp: '2026-12-03T07:00:00.000Z',
      },
      {
        type: 'user.message',
        data: { content: `Work.\n\n${d.contract_block}`, attachments: [] },
        id: 'e2',
        timestamp: '2026-12-03T07:00:01.000Z',
      },
      { type: 'assistant.message', data: { content: 'Done.' }, id: 'e3', timestamp: '2026-12-03T07:00:02.000Z' },
    ]);
    const blocked = gate(home, agentStop('c-1', events));
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({
      decision: 'block',
      reason: expect.stringContaining('ROW_NOT_FINALIZED'),
    });
    // Copilot delivers the block: its hook.end event records the hook's output.
    const hookEnd = (output: string): void =>
      appendFileSync(events, `${JSON.stringify({ type: 'hook.end', data: { hookType: 'agentStop', output } })}\n`);
    hookEnd(blocked.stdout);
    expect(row(home, d.contract_id).harness_id).toBe('c-1');
    const json = gate(home, agentStop('c-1', events, 'end_turn', true), ['--json']);
    hookEnd(JSON.stringify({ decision: 'block', reason: json.json.reason }));
    expect(json.json).toMatchObject({
      harness: 'copilot',
      exit: 0,
      decision: 'block',
      lane: 'harness_id',
      stop_reason: 'end_turn',
      stop_reason_source: 'input',
      stop_class: 'violation',
    });
    // The trip's message goes to stderr: Copilot shows nothing from stdout on an allow.
    const trip = gate(home, agentStop('c-1', events, 'end_turn', true));
    expect([trip.code, trip.stdout]).toEqual([0, '']);
    expect(trip.stderr).toMatch(/gave up after block 2 of 2/);
    finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    expect(gate(home, agentStop('c-1', events))).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a stop hook called before events.jsonl holds the prompt: the gate waits for it, finds the contract and blocks', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const start = {
      type: 'session.start',
      data: { sessionId: 'c-2', copilotVersion: '1.0.102' },
      id: 'e1',
      timestamp: '2026-12-03T07:00:00.000Z',
    };
    const prompt = {
      type: 'user.message',
      data: { content: `Work.\n\n${d.contract_block}`, attachments: [] },
      id: 'e2',
      timestamp: '2026-12-03T07:00:01.000Z',
    };
    // When the hook is called the transcript holds only the session's start; the prompt lands 0.3 s later, put in
    // place whole by a process of its own (this thread waits on the in-process gate meanwhile).
    const events = writeJsonLines(home, 'events.jsonl', [start]);
    const full = writeJsonLines(home, 'events.full', [start, prompt]);
    const writer = spawn('sh', ['-c', 'sleep 0.3 && mv "$0" "$1"', full, events], { stdio: 'ignore' });
    const blocked = gate(home, agentStop('c-2', events), ['--on-missing', 'allow', '--json']);
    expect(blocked.json).toMatchObject({ decision: 'block', lane: 'prompt_block', contract_id: d.contract_id });
    expect(row(home, d.contract_id).harness_id).toBe('c-2');
    writer.kill();
  });
});

const cursorStop = (conversation: string, status: string, loopCount: number, transcript?: string) => ({
  conversation_id: conversation,
  generation_id: 'gen-1',
  model: 'claude-4-sonnet',
  hook_event_name: 'stop',
  cursor_version: '1.7.2',
  workspace_roots: ['/tmp/w'],
  user_email: null,
  transcript_path: transcript ?? null,
  status,
  loop_count: loopCount,
});

describe('Cursor (documented input)', () => {
  it('blocks with {"followup_message"}, allows with {}; a user abort allows; a BOM in front of the payload is read', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const t = writeJsonLines(home, 'transcript.jsonl', [
      {
        role: 'user',
        message: { content: [{ type: 'text', text: `<user_query>\nWork.\n\n${d.contract_block}\n</user_query>` }] },
      },
      { role: 'assistant', message: { content: [{ type: 'text', text: 'Done.' }] } },
    ]);
    const blocked = gate(home, `\uFEFF${JSON.stringify(cursorStop('cv-1', 'completed', 0, t))}`);
    expect(blocked.code).toBe(0);
    expect(Object.keys(JSON.parse(blocked.stdout))).toEqual(['followup_message']);
    expect(JSON.parse(blocked.stdout).followup_message).toMatch(/^\[CONTRACT REJECTED\] .*ROW_NOT_FINALIZED/);

    const aborted = gate(home, cursorStop('cv-1', 'aborted', 1), ['--json']);
    expect(aborted.json).toMatchObject({
      harness: 'cursor',
      decision: 'allow',
      exit: 0,
      stop_class: 'abort',
      contract_id: d.contract_id,
      attempt: null,
    });
    expect(aborted.json.systemMessage).toMatch(/stopped by the user \(aborted\)/);
    const human = gate(home, cursorStop('cv-2', 'aborted', 0));
    expect([human.code, human.stdout]).toEqual([0, '{}\n']);
  });
});

describe('recognizing the harness', () => {
  it('an input of no known shape is bad input: exit 1, not gated, one line', () => {
    const home = tempHome();
    const r = gate(home, { event: 'done', session: 'x' });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/unrecognized hook input .*\. Stop not gated\.\n$/);
  });

  it('--harness pins the reading: a Claude Code input under --harness gemini is refused', () => {
    const home = tempHome();
    const r = gate(home, { hook_event_name: 'Stop', session_id: 's' }, ['--harness', 'gemini']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('for --harness gemini');
    expect(gate(home, { hook_event_name: 'Stop', session_id: 's' }, ['--harness', 'klingon']).stderr).toMatch(
      /--harness "klingon" must be/,
    );
  });

  it('Claude Code is answered as before; --json says which harness', () => {
    const home = tempHome();
    const r = gate(home, { hook_event_name: 'Stop', session_id: 's', stop_hook_active: false }, [
      '--json',
      '--on-missing',
      'allow',
    ]);
    expect(r.json).toMatchObject({ harness: 'claude', decision: 'allow', exit: 0 });
  });
});
