/**
 * `handoff hooks test`: a sample stop fed through the installed hook command as the harness runs it, answering in the
 * harness's form and changing nothing (the gate's --dry-run); and the gate's --dry-run by hand. The data root (store,
 * breaker files) is compared byte for byte before and after; a control call without --dry-run shows the comparison
 * sees a write.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { dispatchJson } from '../helpers/gate.js';

function setup() {
  const base = mkdtempSync(join(tmpdir(), 'hooks-test-'));
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home);
  const data = tempHome();
  const env = { HOME: home, CODEX_HOME: join(home, '.codex'), XDG_CONFIG_HOME: join(home, '.config') };
  const handoff = (args: string[]) => run(data, args, { cwd: project, env });
  return { project, home, data, env, handoff };
}

/** The data root's bytes, without mtimes: what a dry run must leave as it was. */
const bytesOf = (dir: string) =>
  Object.fromEntries(Object.entries(snapshot(dir)).map(([k, v]) => [k, `${v.size}:${v.content}`]));

describe('hooks test', () => {
  it('runs the installed Claude Code hook on an unfinished dispatched contract: a block, exit 2 with the reason, nothing written', () => {
    const s = setup();
    const d = dispatchJson(s.data, ['--goal', 'g']);
    expect(s.handoff(['hooks', 'install', '--harness', 'claude']).code).toBe(0);
    const before = bytesOf(s.data);

    const r = s.handoff(['hooks', 'test', '--harness', 'claude', '--contract', d.contract_id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', harness: 'claude', event: 'Stop', answered: true });
    expect(r.json.command).toMatch(/ contract gate --harness claude --on-missing allow$/);
    expect(r.json.input).toMatchObject({ hook_event_name: 'Stop', stop_hook_active: false });
    expect(r.json.answer.exit).toBe(2);
    expect(r.json.answer.stderr).toContain(d.contract_id);
    expect(r.json.verdict).toMatchObject({
      decision: 'block',
      lane: 'prompt_block',
      contract_id: d.contract_id,
      dry_run: true,
      captured: false,
      claimed: false,
      attempt: null,
    });
    expect(bytesOf(s.data)).toEqual(before);

    // The text form names the verdict and the answer.
    const text = s.handoff(['hooks', 'test', '--harness', 'claude', '--contract', d.contract_id]);
    expect(text.stdout).toMatch(/^verdict: block /m);
    expect(text.stdout).toMatch(/^answer: exit 2$/m);
    expect(bytesOf(s.data)).toEqual(before);

    // Control: the same hook without --dry-run writes (the comparison above can see a write).
    const hook = spawnSync('/bin/sh', ['-c', r.json.command as string], {
      input: JSON.stringify(r.json.input).replace(/"transcript_path":"[^"]*",?/, ''),
      env: { ...process.env, ...s.env, HANDOFF_HOME: s.data },
      cwd: s.project,
      encoding: 'utf8',
    });
    expect(hook.status, hook.stderr).toBe(0); // no transcript: no contract found, allowed by --on-missing allow
    const counted = spawnSync('/bin/sh', ['-c', `${r.json.command as string} --draft-id ${d.contract_id}`], {
      input: '',
      env: { ...process.env, ...s.env, HANDOFF_HOME: s.data },
      cwd: s.project,
      encoding: 'utf8',
    });
    expect(counted.status).toBe(2);
    expect(bytesOf(s.data)).not.toEqual(before);
  });

  it('a turn naming no contract is allowed (exit 0); a JSON-answer harness answers in its own form', () => {
    const s = setup();
    const d = dispatchJson(s.data, ['--goal', 'g']);
    expect(s.handoff(['hooks', 'install', '--harness', 'gemini']).code).toBe(0);
    const before = bytesOf(s.data);
    const none = s.handoff(['hooks', 'test', '--harness', 'gemini', '--json']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.json.verdict).toMatchObject({ decision: 'allow', source: 'row_missing', dry_run: true });
    expect(none.json.answer.exit).toBe(0);

    const block = s.handoff(['hooks', 'test', '--harness', 'gemini', '--contract', d.contract_id, '--json']);
    expect(block.json.event).toBe('AfterAgent');
    expect(block.json.answer.exit).toBe(0);
    expect(JSON.parse(block.json.answer.stdout as string)).toMatchObject({ decision: 'block' });
    expect(block.json.verdict).toMatchObject({ decision: 'block', contract_id: d.contract_id });
    expect(bytesOf(s.data)).toEqual(before);
  });

  it('every command-hook harness: its sample stop, through its installed hook, blocks an unfinished contract in its own form', () => {
    const s = setup();
    const d = dispatchJson(s.data, ['--goal', 'g']);
    const before = bytesOf(s.data);
    const forms: Record<string, [number, RegExp]> = {
      claude: [2, /^$/],
      codex: [2, /^$/],
      gemini: [0, /^\{"decision":"block"/],
      copilot: [0, /^\{"decision":"block"/],
      cursor: [0, /^\{"followup_message":/],
    };
    for (const [harness, [exit, stdout]] of Object.entries(forms)) {
      const trust = harness === 'codex' ? ['--no-trust'] : [];
      expect(s.handoff(['hooks', 'install', '--harness', harness, ...trust]).code).toBe(0);
      const r = s.handoff(['hooks', 'test', '--harness', harness, '--contract', d.contract_id, '--json']);
      expect(r.code, `${harness}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.json.verdict, harness).toMatchObject({ decision: 'block', contract_id: d.contract_id, harness });
      expect([r.json.answer.exit, r.json.answer.stdout], harness).toEqual([exit, expect.stringMatching(stdout)]);
    }
    expect(bytesOf(s.data)).toEqual(before);
    // OpenCode runs the gate from its plugin: no command hook to run.
    expect(s.handoff(['hooks', 'test', '--harness', 'opencode', '--json']).json).toMatchObject({ code: 'USAGE' });
  });

  it('qwen: its installed Stop hook (.qwen/settings.json) answers a block by exit 2 with the reason on stderr', () => {
    const s = setup();
    const d = dispatchJson(s.data, ['--goal', 'g']);
    expect(s.handoff(['hooks', 'install', '--harness', 'qwen']).code).toBe(0);
    const config = JSON.parse(readFileSync(join(s.project, '.qwen', 'settings.json'), 'utf8'));
    expect(config.hooks.Stop[0].hooks[0]).toEqual({
      type: 'command',
      command: 'handoff contract gate --harness qwen --on-missing allow',
      timeout: 30,
    });
    const before = bytesOf(s.data);
    // A turn naming no contract (Qwen's chat recording is not read): allowed, in Qwen's form.
    const none = s.handoff(['hooks', 'test', '--harness', 'qwen', '--json']);
    expect(none.json).toMatchObject({ answered: true, event: 'Stop', verdict: { decision: 'allow', harness: 'qwen' } });
    expect(none.json.input).toMatchObject({ hook_event_name: 'Stop', stop_hook_active: false });
    // The same installed command with the contract named by --draft-id blocks: exit 2, the reason on stderr.
    const hook = spawnSync('/bin/sh', ['-c', `${none.json.command as string} --dry-run --draft-id ${d.contract_id}`], {
      input: JSON.stringify(none.json.input),
      env: { ...process.env, ...s.env, HANDOFF_HOME: s.data },
      cwd: s.project,
      encoding: 'utf8',
    });
    expect(hook.status).toBe(2);
    expect(hook.stdout).toBe('');
    expect(hook.stderr).toContain(d.contract_id);
    expect(bytesOf(s.data)).toEqual(before);
  });

  it('without an installed hook: HOOK_NOT_INSTALLED, exit 1, nothing run; a bad --contract is refused', () => {
    const s = setup();
    const r = s.handoff(['hooks', 'test', '--harness', 'codex', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', code: 'HOOK_NOT_INSTALLED' });
    const bad = s.handoff(['hooks', 'test', '--harness', 'claude', '--contract', '../x', '--json']);
    expect(bad.json).toMatchObject({ status: 'error', code: 'INVALID_DRAFT_ID' });
  });

  it('a hook that cannot answer (its handoff is gone) is exit 1: the stop would go through ungated', () => {
    const s = setup();
    expect(s.handoff(['hooks', 'install', '--harness', 'cursor']).code).toBe(0);
    const path = join(s.project, '.cursor', 'hooks.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    expect(config.hooks.stop[0].command).toContain('contract gate');
    const r = run(s.data, ['hooks', 'test', '--harness', 'cursor', '--json'], {
      cwd: s.project,
      env: { ...s.env, HANDOFF_HOME: join(s.data, 'missing') },
    });
    // The data root does not exist: the gate fails open (exit 1), no answer in Cursor's form.
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ answered: false, verdict: null });
    expect(r.json.answer.exit).toBe(1);
  });
});

describe('contract gate --dry-run', () => {
  it('judges as a hook call would, and captures, claims, records and counts nothing', () => {
    const data = tempHome();
    const d = dispatchJson(data, ['--goal', 'g']);
    const before = bytesOf(data);
    for (let i = 0; i < 4; i++) {
      const r = run(data, ['contract', 'gate', '--draft-id', d.contract_id, '--dry-run', '--json']);
      expect(r.code).toBe(2);
      expect(r.json).toMatchObject({ decision: 'block', tripped: false, attempt: null, dry_run: true });
    }
    expect(bytesOf(data)).toEqual(before);
    // Without it the same call counts.
    const counted = run(data, ['contract', 'gate', '--draft-id', d.contract_id, '--json']);
    expect(counted.json).toMatchObject({ decision: 'block', attempt: 1 });
    expect(counted.json.dry_run).toBeUndefined();
    expect(bytesOf(data)).not.toEqual(before);
  });
});
