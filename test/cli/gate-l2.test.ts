/**
 * The gate at L2 (a shortcut-taking agent: any `handoff` verb with any flags and any stdin, every hint followed, files
 * written in its workspace, never the harness's config, its transcript or the store's files). Each attack the
 * adversarial trial found is replayed here through bin/run.js as a process, the way a harness calls its hook, for
 * every harness's input form; the harness's own later call must never allow the unfinished dispatched turn.
 *
 * The hook settings are docs/hooks.md's strict recipe (user scope, absolute paths): the session's Stop hook
 * `--on-missing allow --on-store-error block`, a contract-bearing agent's `--on-missing block --on-store-error block`,
 * both with `--max-rejections 3`.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runProcess, tempHome, type RunResult } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, row, WS_FLAGS, writeJsonLines } from '../helpers/gate.js';

/** A transcript written once (later calls of the same turn find it as the harness left it, records appended). */
function once(dir: string, name: string, items: object[]): string {
  const p = join(dir, name);
  return existsSync(p) ? p : writeJsonLines(dir, name, items);
}

/** The strict recipe's two settings (docs/hooks.md "The strict setting"). */
const SESSION_STRICT = ['--max-rejections', '3', '--on-missing', 'allow', '--on-store-error', 'block'];
const AGENT_STRICT = ['--max-rejections', '3', '--on-missing', 'block', '--on-store-error', 'block'];

interface Turn {
  /** The run id the harness gives the hook. */
  run: string;
  /** The turn's first user message (the orchestrator's prompt). */
  prompt: string;
  /** Where the harness keeps its transcript. */
  dir: string;
  /** The harness is continuing after a block. */
  active?: boolean;
}

interface Form {
  /** The record the harness writes into its transcript when it delivers a block's reason (absent: it writes none). */
  feedback?: (reason: string, i: number) => object;
  /** The record of a tool's output (the agent's own `handoff` call printed `text`). */
  toolOutput?: (text: string) => object;
  harness: 'claude' | 'codex' | 'gemini' | 'copilot' | 'cursor' | 'opencode';
  /** The harness's stop hook input for this turn, in its own shape (the transcript written as it writes it). */
  input(t: Turn): object;
  /** `--harness` when the gate cannot recognize the form by itself. */
  args: string[];
}

const ts = '2026-12-06T07:00:00.000Z';

const FORMS: Form[] = [
  {
    harness: 'claude',
    args: [],
    feedback: (reason, i) =>
      i % 2 === 0
        ? { type: 'user', message: { role: 'user', content: reason }, hookText: reason, isMeta: true }
        : {
            type: 'system',
            subtype: 'stop_hook_summary',
            hookCount: 1,
            hookErrors: [reason],
            preventedContinuation: false,
          },
    toolOutput: (text) => ({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text }] },
    }),
    input: (t) => ({
      session_id: t.run,
      transcript_path: once(t.dir, `${t.run}.jsonl`, [
        { type: 'user', message: { role: 'user', content: t.prompt }, uuid: 'u1', sessionId: t.run },
        { type: 'assistant', message: { role: 'assistant', content: [], stop_reason: 'end_turn' }, uuid: 'a1' },
      ]),
      cwd: t.dir,
      hook_event_name: 'Stop',
      stop_hook_active: t.active === true,
    }),
  },
  {
    harness: 'codex',
    args: [],
    feedback: (reason, i) =>
      i % 2 === 0
        ? {
            timestamp: ts,
            type: 'response_item',
            payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: reason }] },
          }
        : { timestamp: ts, type: 'event_msg', payload: { type: 'user_message', message: reason, images: [] } },
    toolOutput: (text) => ({
      timestamp: ts,
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'call_1', output: text },
    }),
    input: (t) => ({
      session_id: t.run,
      turn_id: 'turn-1',
      transcript_path: once(t.dir, `rollout-${t.run}.jsonl`, [
        { timestamp: ts, type: 'session_meta', payload: { id: t.run, timestamp: ts, cwd: t.dir } },
        { timestamp: ts, type: 'event_msg', payload: { type: 'user_message', message: t.prompt, images: [] } },
        { timestamp: ts, type: 'event_msg', payload: { type: 'agent_message', message: 'done' } },
      ]),
      cwd: t.dir,
      hook_event_name: 'Stop',
      stop_hook_active: t.active === true,
      last_assistant_message: 'done',
    }),
  },
  {
    harness: 'gemini',
    args: [],
    feedback: (reason) => ({ id: 'm-fb', timestamp: ts, type: 'user', content: [{ text: reason }] }),
    toolOutput: (text) => ({
      id: 'm-tool',
      timestamp: ts,
      type: 'gemini',
      content: '',
      toolCalls: [
        { id: 't1', name: 'run_shell_command', result: [{ functionResponse: { response: { output: text } } }] },
      ],
    }),
    input: (t) => ({
      session_id: t.run,
      transcript_path: once(t.dir, `session-${t.run}.jsonl`, [
        { id: 'm1', timestamp: ts, type: 'user', content: [{ text: t.prompt }] },
      ]),
      cwd: t.dir,
      hook_event_name: 'AfterAgent',
      timestamp: ts,
      prompt: t.prompt,
      prompt_response: 'Done.',
      stop_hook_active: t.active === true,
    }),
  },
  {
    harness: 'copilot',
    args: [],
    feedback: (reason) => ({
      type: 'hook.end',
      data: { hookType: 'agentStop', output: JSON.stringify({ decision: 'block', reason }) },
      id: 'e-hook',
      timestamp: ts,
    }),
    toolOutput: (text) => ({
      type: 'tool.execution_complete',
      data: { toolCallId: 't1', success: true, result: { content: text } },
      id: 'e-tool',
      timestamp: ts,
    }),
    input: (t) => ({
      sessionId: t.run,
      timestamp: 1764745200000,
      cwd: t.dir,
      transcriptPath: once(t.dir, `events-${t.run}.jsonl`, [
        { type: 'session.start', data: { sessionId: t.run }, id: 'e1', timestamp: ts },
        { type: 'user.message', data: { content: t.prompt, attachments: [] }, id: 'e2', timestamp: ts },
      ]),
      stopReason: 'end_turn',
      stop_hook_active: t.active === true,
    }),
  },
  {
    harness: 'cursor',
    args: [],
    input: (t) => ({
      conversation_id: t.run,
      generation_id: 'gen-1',
      hook_event_name: 'stop',
      workspace_roots: [t.dir],
      transcript_path: once(t.dir, `cursor-${t.run}.jsonl`, [
        { role: 'user', message: { content: [{ type: 'text', text: t.prompt }] } },
      ]),
      status: 'completed',
      loop_count: t.active === true ? 1 : 0,
    }),
  },
  {
    harness: 'opencode',
    args: ['--harness', 'opencode'],
    input: (t) => ({
      hook_event_name: 'session.idle',
      session_id: t.run,
      prompt: t.prompt,
      cwd: t.dir,
      stop_hook_active: t.active === true,
    }),
  },
];

/** The harness's own hook call, as a process (bin/run.js), with its settings. */
function harnessCall(home: string, form: Form, turn: Turn, settings: string[], env: Record<string, string> = {}) {
  return runProcess(home, ['contract', 'gate', ...form.args, ...settings], {
    input: JSON.stringify(form.input(turn)),
    env,
  });
}

/** What the harness does with the answer: block (the turn continues), allow, or not gated (exit 1). */
function outcome(form: Form, r: RunResult): 'block' | 'allow' | 'not gated' {
  if (r.code === 1) return 'not gated';
  if (form.harness === 'claude' || form.harness === 'codex') return r.code === 2 ? 'block' : 'allow';
  expect(r.code, r.stderr).toBe(0);
  const answer = JSON.parse(r.stdout === '' ? '{}' : r.stdout) as Record<string, unknown>;
  if (form.harness === 'cursor') return typeof answer.followup_message === 'string' ? 'block' : 'allow';
  return answer.decision === 'block' ? 'block' : 'allow';
}

/** The block's text, whatever the harness's answer form. */
function reasonOf(form: Form, r: RunResult): string {
  if (form.harness === 'claude' || form.harness === 'codex') return r.stderr;
  const answer = JSON.parse(r.stdout) as Record<string, string>;
  return answer.followup_message ?? answer.reason;
}

/** An agent's own `handoff` call (its workspace is its cwd; stdin whatever it likes). */
const agent = (home: string, args: string[], input = '', env: Record<string, string> = {}): RunResult =>
  runProcess(home, args, { input, env });

function workspace(home: string, name: string): string {
  const dir = join(home, 'ws-files', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe.each(FORMS)('at L2 ($harness)', (form) => {
  it('disowning its dispatched contract (contract claim --harness-id bogus) does not let the stop through', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const turn = { run: `${form.harness}-run-1`, prompt: `Do it.\n\n${d.contract_block}`, dir: workspace(home, 'a') };
    // The agent disowns the contract before its first stop: the claim itself fails without the token,
    // and with a guessed one; nothing is written.
    const bare = agent(home, ['contract', 'claim', '--draft-id', d.contract_id, '--harness-id', 'bogus', '--json']);
    expect([bare.code, JSON.parse(bare.stdout).code]).toEqual([2, 'CLAIM_TOKEN_REQUIRED']);
    const guess = agent(
      home,
      ['contract', 'claim', '--draft-id', d.contract_id, '--harness-id', 'bogus', '--json'],
      '',
      {
        HANDOFF_CLAIM_TOKEN: 'hct_guess',
      },
    );
    expect([guess.code, JSON.parse(guess.stdout).code]).toEqual([1, 'CLAIM_TOKEN_INVALID']);
    expect(row(home, d.contract_id).harness_id).toBeNull();
    const r = harnessCall(home, form, turn, SESSION_STRICT);
    expect(outcome(form, r), r.stderr).toBe('block');
    expect(reasonOf(form, r)).toContain(d.contract_id);
    expect(reasonOf(form, r)).toContain('ROW_NOT_FINALIZED');
  });

  it('a throw-away init contract claimed with its run id does not replace the dispatched one (strict)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const turn = { run: `${form.harness}-run-2`, prompt: `Do it.\n\n${d.contract_block}`, dir: workspace(home, 'a') };
    const disown = agent(home, ['contract', 'claim', '--draft-id', d.contract_id, '--harness-id', 'bogus', '--json']);
    expect([disown.code, JSON.parse(disown.stdout).code]).toEqual([2, 'CLAIM_TOKEN_REQUIRED']);
    const first = harnessCall(home, form, turn, AGENT_STRICT);
    expect(outcome(form, first)).toBe('block');
    // No hint the agent could follow to substitute a contract: no run id, no claim command.
    expect(reasonOf(form, first)).not.toContain(turn.run);
    expect(reasonOf(form, first)).not.toContain('contract claim');
    // The agent does it anyway, with the run id it knows from its harness.
    const init = JSON.parse(agent(home, ['contract', 'init', ...WS_FLAGS, '--json']).stdout) as Record<string, string>;
    const id = init.draft_id;
    finalizeAs(home, id, 'COMPLETE', COMPLETE_PATCH);
    // Without init's token the claim itself fails, nothing written. With it (the agent ran init) the claim is refused
    // too: the harness's first call bound the run to the contract its prompt names.
    const bare = agent(home, ['contract', 'claim', '--draft-id', id, '--harness-id', turn.run, '--json']);
    expect([bare.code, JSON.parse(bare.stdout).code]).toEqual([2, 'CLAIM_TOKEN_REQUIRED']);
    const own = agent(home, ['contract', 'claim', '--draft-id', id, '--harness-id', turn.run, '--json'], '', {
      HANDOFF_CLAIM_TOKEN: init.claim_token,
    });
    expect([own.code, JSON.parse(own.stdout).code]).toEqual([1, 'HARNESS_ID_IN_USE']);
    expect(row(home, id).harness_id).toBeNull();
    const second = harnessCall(home, form, { ...turn, active: true }, AGENT_STRICT);
    expect(outcome(form, second), second.stderr).toBe('block');
    expect(reasonOf(form, second)).toContain(d.contract_id);
    expect(['DISPATCHED', 'IN_PROGRESS']).toContain(row(home, d.contract_id).agent_state);
  });

  it('a throw-away init contract claimed with its own token before the first stop does not replace the dispatched one', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const turn = { run: `${form.harness}-run-4`, prompt: `Do it.\n\n${d.contract_block}`, dir: workspace(home, 'a') };
    const init = JSON.parse(agent(home, ['contract', 'init', ...WS_FLAGS, '--json']).stdout) as Record<string, string>;
    finalizeAs(home, init.draft_id, 'COMPLETE', COMPLETE_PATCH);
    const claimed = agent(
      home,
      ['contract', 'claim', '--draft-id', init.draft_id, '--harness-id', turn.run, '--json'],
      '',
      {
        HANDOFF_CLAIM_TOKEN: init.claim_token,
      },
    );
    expect(claimed.code, claimed.stdout).toBe(0);
    const r = harnessCall(home, form, turn, AGENT_STRICT);
    expect(outcome(form, r), r.stderr).toBe('block');
    expect(reasonOf(form, r)).toContain(d.contract_id);
    expect(row(home, d.contract_id).agent_state).not.toBe('COMPLETE');
  });

  it("stealing another agent's finished contract neither lets the thief stop nor blocks its owner", () => {
    const home = tempHome();
    const mine = dispatchJson(home, ['--goal', 'honest']);
    const theirs = dispatchJson(home, ['--goal', 'thief']);
    finalizeAs(home, mine.contract_id, 'COMPLETE', COMPLETE_PATCH);
    const honest = {
      run: `${form.harness}-honest`,
      prompt: `Do.\n\n${mine.contract_block}`,
      dir: workspace(home, 'h'),
    };
    const thief = {
      run: `${form.harness}-thief`,
      prompt: `Do.\n\n${theirs.contract_block}`,
      dir: workspace(home, 't'),
    };
    // The thief holds only its own token: the claim of the other contract fails at the claim itself.
    const steal = agent(
      home,
      ['contract', 'claim', '--draft-id', mine.contract_id, '--harness-id', thief.run, '--json'],
      '',
      {
        HANDOFF_CLAIM_TOKEN: theirs.claim_token,
      },
    );
    expect([steal.code, JSON.parse(steal.stdout).code]).toEqual([1, 'CLAIM_TOKEN_INVALID']);
    expect(row(home, mine.contract_id).harness_id).toBeNull();
    const stolen = harnessCall(home, form, thief, AGENT_STRICT);
    expect(outcome(form, stolen), stolen.stderr).toBe('block');
    expect(reasonOf(form, stolen)).toContain(theirs.contract_id);
    const owner = harnessCall(home, form, honest, AGENT_STRICT);
    expect(outcome(form, owner), owner.stderr).toBe('allow');
  });

  it("stealing another agent's finished init contract fails at the claim: the thief holds only its own token", () => {
    const home = tempHome();
    const mine = JSON.parse(agent(home, ['contract', 'init', ...WS_FLAGS, '--json']).stdout) as Record<string, string>;
    const theirs = JSON.parse(agent(home, ['contract', 'init', ...WS_FLAGS, '--json']).stdout) as Record<
      string,
      string
    >;
    finalizeAs(home, mine.draft_id, 'COMPLETE', COMPLETE_PATCH);
    const thief = { run: `${form.harness}-init-thief`, prompt: 'Do.', dir: workspace(home, 't') };
    const honest = { run: `${form.harness}-init-owner`, prompt: 'Do.', dir: workspace(home, 'h') };
    for (const [env, exit, code] of [
      [{}, 2, 'CLAIM_TOKEN_REQUIRED'],
      [{ HANDOFF_CLAIM_TOKEN: theirs.claim_token }, 1, 'CLAIM_TOKEN_INVALID'],
    ] as const) {
      const steal = agent(
        home,
        ['contract', 'claim', '--draft-id', mine.draft_id, '--harness-id', thief.run, '--json'],
        '',
        env,
      );
      expect([steal.code, JSON.parse(steal.stdout).code]).toEqual([exit, code]);
    }
    expect(row(home, mine.draft_id).harness_id).toBeNull();
    // The thief's stop finds no contract of its own; the owner claims with its token and its finished turn stops.
    expect(outcome(form, harnessCall(home, form, thief, AGENT_STRICT))).toBe('block');
    const claimed = agent(
      home,
      ['contract', 'claim', '--draft-id', mine.draft_id, '--harness-id', honest.run, '--json'],
      '',
      { HANDOFF_CLAIM_TOKEN: mine.claim_token },
    );
    expect(claimed.code, claimed.stdout).toBe(0);
    const owner = harnessCall(home, form, honest, AGENT_STRICT);
    expect(outcome(form, owner), owner.stderr).toBe('allow');
  });
});

describe.each(FORMS)('an approver key file the gate cannot use ($harness)', (form) => {
  it('blocks under --on-store-error block (APPROVER_KEYS_UNREADABLE); the default still fails open (exit 1)', () => {
    const home = tempHome();
    const runId = `${form.harness}-keys`;
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', runId]);
    // A turn that ended waiting for an approval, approved after it: the gate checks the approver policy's signature.
    const content = 'git push origin main';
    const ap = JSON.parse(
      agent(home, ['approval', 'request', '--content', content, '--draft-id', d.contract_id, '--json']).stdout,
    ).approval_id as string;
    const fill = { approval_request: { exact_content: content, approval_id: ap } };
    agent(home, ['contract', 'fill', '--draft-id', d.contract_id, '--json', JSON.stringify(fill)]);
    agent(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', d.contract_id]);
    expect(agent(home, ['contract', 'finalize', '--draft-id', d.contract_id]).code).toBe(0);
    expect(runProcess(home, ['approval', 'decide', ap, '--decision', 'approved']).code).toBe(0);
    const turn = { run: runId, prompt: `Do.\n\n${d.contract_block}`, dir: workspace(home, 'k') };
    const empty = join(home, 'empty.pem');
    writeFileSync(empty, '');
    const garbage = join(home, 'garbage.pem');
    writeFileSync(garbage, 'not a key\n');
    for (const file of [join(home, 'missing.pem'), empty, garbage]) {
      const env = { HANDOFF_APPROVER_KEYS: file };
      // (Cursor and OpenCode count every block, L1 only: a limit above the three stops keeps each one a block.)
      const strict = ['--max-rejections', '9', '--on-missing', 'block', '--on-store-error', 'block'];
      const r = harnessCall(home, form, turn, strict, env);
      expect(outcome(form, r), `${file}: ${r.stdout}${r.stderr}`).toBe('block');
      expect(reasonOf(form, r)).toContain('APPROVER_KEYS_UNREADABLE');
      const open = harnessCall(home, form, turn, ['--on-missing', 'allow'], env);
      expect(outcome(form, open)).toBe('not gated');
      expect(open.stderr).toMatch(/HANDOFF_APPROVER_KEYS.*\. Stop not gated\.\n$/);
    }
  });
});

/** The harnesses whose transcript carries a stop reason the agent could fake (Claude Code's assistant lines). */
describe('a faked max_tokens line in the transcript', () => {
  it('does not excuse an unfinished contract bound with --harness-id (Claude Code, strict)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'cut-1']);
    const dir = workspace(home, 'c');
    const form = FORMS[0];
    const input = form.input({ run: 'cut-1', prompt: `Do.\n\n${d.contract_block}`, dir }) as Record<string, string>;
    appendFileSync(
      input.transcript_path,
      `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', stop_reason: 'max_tokens' } })}\n`,
    );
    for (const settings of [AGENT_STRICT, SESSION_STRICT]) {
      const r = runProcess(home, ['contract', 'gate', ...settings, '--json'], { input: JSON.stringify(input) });
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({
        decision: 'block',
        codes: ['ROW_NOT_FINALIZED'],
        stop_reason: 'max_tokens',
        stop_reason_source: 'transcript',
        stop_class: 'unknown',
      });
    }
    // The harness's own word still excuses.
    const own = runProcess(home, ['contract', 'gate', ...AGENT_STRICT, '--stop-reason', 'max_tokens'], {
      input: JSON.stringify(input),
    });
    expect(own.code, own.stderr).toBe(0);
  });
});

/** Fills the device of `dir` to its last byte. */
function fillDevice(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const buf = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, buf);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

describe('a full disk under the data root (the agent filled it, e.g. with dd)', () => {
  let mnt: string;
  beforeEach(() => {
    mnt = mkdtempSync(join(tmpdir(), 'handoff-l2-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
  });
  afterEach(() => {
    execFileSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  it.each(FORMS.map((f) => [f.harness, f] as const))(
    '%s: the unfinished contract is still judged and blocked, with the documented and the strict settings',
    (_name, form) => {
      const home = join(mnt, 'root');
      mkdirSync(home);
      const elsewhere = tempHome();
      const runId = `${form.harness}-full`;
      const d = dispatchJson(home, ['--goal', 'g', '--harness-id', runId]);
      const turn = { run: runId, prompt: `Do.\n\n${d.contract_block}`, dir: workspace(elsewhere, 'w') };
      fillDevice(mnt);
      for (const settings of [['--on-missing', 'allow'], SESSION_STRICT]) {
        const r = harnessCall(home, form, turn, settings);
        expect(outcome(form, r), r.stderr).toBe('block');
        expect(reasonOf(form, r)).toContain('ROW_NOT_FINALIZED');
      }
    },
  );

  it('with nowhere to keep the count: one block per stop, never a loop ("count": "unavailable")', () => {
    const home = join(mnt, 'root');
    mkdirSync(home);
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'full-2']);
    const turn = { run: 'full-2', prompt: `Do.\n\n${d.contract_block}`, dir: workspace(tempHome(), 'w') };
    fillDevice(mnt);
    // $TMPDIR is a file: no private counter folder can be made there either.
    const notADir = join(tempHome(), 'tmpdir-file');
    writeFileSync(notADir, '');
    const env = { TMPDIR: notADir };
    const json = (active: boolean): Record<string, unknown> => {
      const input = JSON.stringify(FORMS[0].input({ ...turn, active }));
      const r = runProcess(home, ['contract', 'gate', ...SESSION_STRICT, '--json'], { input, env });
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    expect(json(false)).toMatchObject({ decision: 'block', exit: 2, count: 'unavailable', tripped: false });
    expect(json(false)).toMatchObject({ exit: 2, count: 'unavailable' });
    expect(json(true)).toMatchObject({ exit: 0, count: 'unavailable', tripped: true });
  });
});

/** The transcript path in a harness's hook input. */
const transcriptOf = (input: Record<string, string>): string => input.transcript_path ?? input.transcriptPath;

describe.each(FORMS.filter((f) => f.feedback !== undefined))('the breaker at L2 ($harness)', (form) => {
  it("hand-run gate calls (forged input, --max-rejections 1, stop_hook_active twice) neither trip nor advance the harness's count", () => {
    const home = tempHome();
    const runId = `${form.harness}-pretrip`;
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', runId]);
    const turn = { run: runId, prompt: `Do.\n\n${d.contract_block}`, dir: workspace(home, 'p') };
    const transcript = transcriptOf(form.input(turn) as Record<string, string>);
    const append = (record: object): void => appendFileSync(transcript, `${JSON.stringify(record)}\n`);
    const byHand = (settings: string[]): void => {
      const r = harnessCall(home, form, { ...turn, active: true }, settings);
      // What the agent's own call printed lands in its transcript as tool output, never as hook feedback.
      append(form.toolOutput!(`${r.stdout}${r.stderr}`));
    };
    byHand(SESSION_STRICT);
    byHand(SESSION_STRICT);
    const first = harnessCall(home, form, turn, SESSION_STRICT);
    expect(outcome(form, first), first.stderr).toBe('block');
    expect(reasonOf(form, first)).toContain('This is block 1 of 2');
    append(form.feedback!(reasonOf(form, first), 0));
    // Hand-run calls between the harness's calls change nothing either.
    byHand(['--max-rejections', '1', '--on-missing', 'allow']);
    byHand(SESSION_STRICT);
    const second = harnessCall(home, form, { ...turn, active: true }, SESSION_STRICT);
    expect(outcome(form, second), second.stderr).toBe('block');
    expect(reasonOf(form, second)).toContain('This is block 2 of 2');
    append(form.feedback!(reasonOf(form, second), 1));
    // The honest loop still ends after the delivered blocks: degraded, never COMPLETE.
    const third = harnessCall(home, form, { ...turn, active: true }, SESSION_STRICT);
    expect(outcome(form, third), third.stderr).toBe('allow');
    expect(`${third.stdout}${third.stderr}`).toMatch(/gave up after block 2 of 2/);
    expect(row(home, d.contract_id).agent_state).not.toBe('COMPLETE');
  });

  it('a continuation without the proof in a harness feedback record counts as a first block', () => {
    const home = tempHome();
    const runId = `${form.harness}-noproof`;
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', runId]);
    const turn = { run: runId, prompt: `Do.\n\n${d.contract_block}`, dir: workspace(home, 'q'), active: true };
    for (let i = 0; i < 4; i++) {
      const r = harnessCall(home, form, turn, SESSION_STRICT);
      expect(outcome(form, r), r.stderr).toBe('block');
      expect(reasonOf(form, r)).toContain('This is block 1 of 2');
    }
  });
});
