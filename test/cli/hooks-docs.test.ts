/**
 * The per-harness example configs of docs/hooks.md: each file is shown on the page as it is, and each command runs as
 * the harness runs it (through a shell, its own input on stdin), `handoff` resolved to the built binary.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, tempHome } from '../helpers/cli.js';
import { dispatchJson, writeJsonLines } from '../helpers/gate.js';

const doc = readFileSync(join(REPO, 'docs', 'hooks.md'), 'utf8');
const example = (name: string): any => {
  const text = readFileSync(join(REPO, 'docs', 'examples', name), 'utf8');
  expect(doc).toContain(text);
  return JSON.parse(text);
};

function runHook(home: string, command: string, input: object): { code: number; stdout: string; stderr: string } {
  expect(command).toMatch(/^handoff contract gate --harness [a-z]+ /);
  const shell = command.replace(/^handoff\b/, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`);
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws' };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_STORE_URL;
  const r = spawnSync('/bin/sh', ['-c', shell], { input: JSON.stringify(input), env, cwd: home, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Each harness: its example's one command, its input (the run id of a dispatched contract, or another; the transcript
 * of the turn, in `home`), and what the gate answers with and without a contract.
 */
const cases: [
  string,
  string,
  (j: any) => { command: string; timeoutS: number },
  (run: string, home: string) => object,
  (r: ReturnType<typeof runHook>) => void,
  (r: ReturnType<typeof runHook>) => void,
][] = [
  [
    'codex',
    'codex-hooks.json',
    (j) => ({ command: j.hooks.Stop[0].hooks[0].command, timeoutS: j.hooks.Stop[0].hooks[0].timeout }),
    (run) => ({
      session_id: run,
      turn_id: 't1',
      transcript_path: null,
      cwd: '/tmp',
      hook_event_name: 'Stop',
      model: 'gpt-5',
      permission_mode: 'default',
      stop_hook_active: false,
      last_assistant_message: null,
    }),
    (r) => expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expect.stringMatching(/^\[CONTRACT REJECTED\] /)]),
    (r) => expect(r).toEqual({ code: 0, stdout: '', stderr: '' }),
  ],
  [
    'gemini',
    'gemini-settings.json',
    (j) => ({
      command: j.hooks.AfterAgent[0].hooks[0].command,
      timeoutS: j.hooks.AfterAgent[0].hooks[0].timeout / 1000,
    }),
    (run, home) => ({
      session_id: run,
      // The turn's transcript: its first user message names no contract, as an interactive turn's does.
      transcript_path: writeJsonLines(home, 'session.jsonl', [{ type: 'user', content: 'Fix the failing test.' }]),
      cwd: '/tmp',
      hook_event_name: 'AfterAgent',
      timestamp: '2026-12-03T07:00:00Z',
      prompt: 'x',
      prompt_response: 'y',
      stop_hook_active: false,
    }),
    (r) => expect([r.code, JSON.parse(r.stdout).decision]).toEqual([0, 'block']),
    (r) => expect(r).toEqual({ code: 0, stdout: '{}\n', stderr: '' }),
  ],
  [
    'copilot',
    'copilot-hooks.json',
    (j) => ({ command: j.hooks.agentStop[0].bash, timeoutS: j.hooks.agentStop[0].timeoutSec }),
    (run, home) => ({
      sessionId: run,
      timestamp: 1764745200000,
      cwd: '/tmp',
      transcriptPath: writeJsonLines(home, 'events.jsonl', [
        { type: 'user.message', data: { content: 'Fix the failing test.' } },
      ]),
      stopReason: 'end_turn',
      stop_hook_active: false,
    }),
    (r) => expect([r.code, JSON.parse(r.stdout).decision]).toEqual([0, 'block']),
    (r) => expect(r).toEqual({ code: 0, stdout: '', stderr: '' }),
  ],
  [
    'cursor',
    'cursor-hooks.json',
    (j) => ({ command: j.hooks.stop[0].command, timeoutS: 30 }),
    (run) => ({
      conversation_id: run,
      generation_id: 'g',
      hook_event_name: 'stop',
      workspace_roots: ['/tmp'],
      status: 'completed',
      loop_count: 0,
    }),
    (r) => expect([r.code, Object.keys(JSON.parse(r.stdout))]).toEqual([0, ['followup_message']]),
    (r) => expect(r).toEqual({ code: 0, stdout: '{}\n', stderr: '' }),
  ],
];

describe('docs/hooks.md: the example config of each harness', () => {
  it.each(cases)(
    '%s (%s): blocks a dispatched run that never finalized, lets a run without a contract stop',
    (_h, file, pick, input, blocked, free) => {
      const home = tempHome();
      const { command, timeoutS } = pick(example(file));
      expect(timeoutS).toBeGreaterThanOrEqual(30);
      dispatchJson(home, ['--goal', 'g', '--harness-id', 'run-1']);
      blocked(runHook(home, command, input('run-1', home)));
      free(runHook(home, command, input('interactive', home)));
    },
  );
});
