/**
 * docs/examples/claude-settings.json is the configuration docs/hooks.md documents: each hook command runs here, as
 * Claude Code runs it (through a shell, hook JSON on stdin), with `handoff` replaced by the built binary.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, run, tempHome } from '../helpers/cli.js';
import { deliver, finalizeAs, stopInput, subagentStop, writeTranscript } from '../helpers/gate.js';

interface HookEntry {
  matcher?: string;
  hooks: { type: string; command: string; timeout: number }[];
}

type Settings = { hooks: Record<string, HookEntry[]> };
const settingsFile = (name: string): Settings =>
  JSON.parse(readFileSync(join(REPO, 'docs', 'examples', name), 'utf8')) as Settings;
const settings = settingsFile('claude-settings.json');
const strict = settingsFile('claude-settings-strict.json');

function commandOf(event: string, from: Settings = settings): string {
  const entries = from.hooks[event];
  expect(entries).toHaveLength(1);
  expect(entries[0].hooks).toHaveLength(1);
  const hook = entries[0].hooks[0];
  expect(hook.type).toBe('command');
  expect(hook.timeout).toBe(30);
  expect(hook.command).toMatch(/^handoff contract gate\b/);
  return hook.command;
}

/** Runs a hook command through /bin/sh, `handoff` resolved to the built binary, like Claude Code would. */
function runHook(home: string, command: string, input: string): { code: number; stdout: string; stderr: string } {
  const shellCommand = command.replace(/^handoff\b/, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`);
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws' };
  delete env.HANDOFF_DB;
  const r = spawnSync('/bin/sh', ['-c', shellCommand], { input, env, cwd: home, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function dispatchBlock(home: string, args: string[]): { id: string; block: string } {
  const r = run(home, ['contract', 'dispatch', '--workspace', 'ws', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return { id: r.stdout.match(/^contract_id: (\S+)$/m)![1], block: r.stdout };
}

describe('docs/examples/claude-settings.json', () => {
  it('gates the contract-bearing subagent types only', () => {
    const matcher = new RegExp(`^(?:${settings.hooks.SubagentStop[0].matcher})$`);
    for (const t of ['implementer', 'verifier', 'investigator']) expect(matcher.test(t)).toBe(true);
    for (const t of ['Explore', 'general-purpose', 'Plan']) expect(matcher.test(t)).toBe(false);
    expect(settings.hooks.Stop[0].matcher).toBeUndefined();
  });

  it('SubagentStop: blocks an unfinalized dispatched subagent (2), allows it once finalized (0), blocks one without contract (2), fails open (1)', () => {
    const home = tempHome();
    const command = commandOf('SubagentStop');
    const { id, block } = dispatchBlock(home, ['--goal', 'implement it']);
    const transcript = writeTranscript(home, 'agent-1.jsonl', `Implement it.\n\n${block}`, ['tool_use', 'end_turn']);
    const input = subagentStop({ session: 'sess', agentId: 'run-1', agentType: 'implementer', transcript, cwd: home });

    const blocked = runHook(home, command, input);
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr).toMatch(/^\[CONTRACT REJECTED\] .*\(ROW_NOT_FINALIZED\)\n/);
    expect(blocked.stderr).toContain('This is block 1 of 2:');

    finalizeAs(home, id, 'BLOCKED', { failure_report: null });
    expect(runHook(home, command, input)).toEqual({ code: 0, stdout: '', stderr: '' });

    const none = runHook(
      home,
      command,
      subagentStop({
        session: 'sess',
        agentId: 'run-2',
        transcript: writeTranscript(home, 'agent-2.jsonl', 'Look around.', ['end_turn']),
        cwd: home,
      }),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('(ROW_NOT_FOUND)');
    expect(none.stderr).toContain('--harness-id run-2');

    const broken = runHook(home, command, 'not json');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^handoff contract gate: .*\. Stop not gated\.\n$/);
  });

  it('SubagentStop: a max_tokens line in the transcript is recorded, not obeyed: the unfinished agent is blocked (2)', () => {
    const home = tempHome();
    const { block } = dispatchBlock(home, ['--goal', 'implement it']);
    const transcript = writeTranscript(home, 'agent-1.jsonl', block, ['end_turn', 'max_tokens']);
    const r = runHook(home, commandOf('SubagentStop'), subagentStop({ agentId: 'run-3', transcript, cwd: home }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROW_NOT_FINALIZED');
  });

  it('Stop: an interactive session without a contract stops freely (0); a headless worker is held to its contract (2)', () => {
    const home = tempHome();
    const command = commandOf('Stop');
    const session = writeTranscript(home, 'session.jsonl', 'hello, please refactor this file', ['end_turn']);
    expect(runHook(home, command, stopInput({ session: 'interactive', transcript: session, cwd: home }))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });

    // A headless worker whose session id was passed to dispatch --harness-id.
    const { id } = dispatchBlock(home, [
      '--goal',
      'worker task',
      '--harness-id',
      '7b0c7c0e-2f55-4a4e-9d7e-0d6f5f3f1a11',
    ]);
    const worker = stopInput({
      session: '7b0c7c0e-2f55-4a4e-9d7e-0d6f5f3f1a11',
      transcript: join(home, 'absent.jsonl'),
      cwd: home,
      extra: { stop_reason: 'end_turn' },
    });
    const blocked = runHook(home, command, worker);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain(id);
    finalizeAs(home, id, 'NEEDS_INPUT');
    expect(runHook(home, command, worker).code).toBe(0);

    // A headless worker whose prompt carries the block.
    const other = dispatchBlock(home, ['--goal', 'second worker']);
    const t = writeTranscript(home, 'worker.jsonl', `Do this.\n\n${other.block}`, ['end_turn']);
    expect(runHook(home, command, stopInput({ session: 'worker-2', transcript: t, cwd: home })).code).toBe(2);
  });
});

describe('docs/examples/claude-settings-strict.json', () => {
  it('is the strict pair docs/hooks.md shows, on the same agents', () => {
    const doc = readFileSync(join(REPO, 'docs', 'hooks.md'), 'utf8');
    expect(doc).toContain(readFileSync(join(REPO, 'docs', 'examples', 'claude-settings-strict.json'), 'utf8'));
    expect(commandOf('SubagentStop', strict)).toMatch(/--on-store-error block --on-missing block/);
    expect(strict.hooks.SubagentStop[0].matcher).toBe(settings.hooks.SubagentStop[0].matcher);
    expect(commandOf('Stop', strict)).toMatch(/--on-missing allow --on-store-error block/);
  });

  it('a damaged store: the default configuration lets the stop through (1), the strict one blocks it (2) and finally gives up (0)', () => {
    const home = tempHome();
    const { block } = dispatchBlock(home, ['--goal', 'implement it']);
    const transcript = writeTranscript(home, 'agent-1.jsonl', block, ['end_turn']);
    const input = subagentStop({ session: 'sess', agentId: 'run-9', agentType: 'implementer', transcript, cwd: home });
    writeFileSync(join(home, 'handoff.db'), 'SQLite format 3\0 truncated by someone');
    expect(runHook(home, commandOf('SubagentStop'), input).code).toBe(1);
    const first = runHook(home, commandOf('SubagentStop', strict), input);
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/^\[CONTRACT REJECTED\] .*\(STORE_UNREADABLE\)/);
    expect(first.stderr).toContain('This is block 1 of 2:');
    // Claude Code delivers each block (its record in the transcript) and calls again, continuing.
    const again = subagentStop({
      session: 'sess',
      agentId: 'run-9',
      agentType: 'implementer',
      transcript,
      cwd: home,
      extra: { stop_hook_active: true },
    });
    deliver(transcript, first.stderr);
    const second = runHook(home, commandOf('SubagentStop', strict), again);
    expect(second.code).toBe(2);
    deliver(transcript, second.stderr);
    const third = runHook(home, commandOf('SubagentStop', strict), again);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout).systemMessage).toContain('STORE_UNREADABLE');
  });

  it('a healthy store: the strict configuration judges exactly as the default one', () => {
    const home = tempHome();
    const { id, block } = dispatchBlock(home, ['--goal', 'implement it']);
    const transcript = writeTranscript(home, 'agent-1.jsonl', block, ['end_turn']);
    const input = subagentStop({ session: 'sess', agentId: 'run-8', agentType: 'implementer', transcript, cwd: home });
    expect(runHook(home, commandOf('SubagentStop', strict), input).code).toBe(2);
    finalizeAs(home, id, 'BLOCKED', { failure_report: null });
    expect(runHook(home, commandOf('SubagentStop', strict), input)).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
