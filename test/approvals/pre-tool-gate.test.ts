import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, finalizeAs, rawStore, writeTranscript } from '../helpers/gate.js';
import { canonicalJson } from '../../src/receipts/jcs.js';
import { generate } from '../helpers/attest.js';

/** A git work tree (the repository root the gate makes paths relative to) with the run's transcript in it. */
function setup(patterns: string[] = ['Bash(git push *)'], env: Record<string, string> = {}) {
  const home = tempHome();
  const repo = join(home, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
  const flags = patterns.flatMap((p) => ['--require-approval', p]);
  const d =
    patterns.length === 0 && Object.keys(env).length === 0
      ? undefined
      : run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal', 'g', ...flags, '--json'], { env });
  const out = d?.json;
  const transcript = writeTranscript(home, 't.jsonl', out?.contract_block ?? 'no contract here');
  return { home, repo, transcript, cid: out?.contract_id as string };
}

const claudeInput = (s: { transcript: string; repo: string }, tool: string, input: object, id = 'toolu_1'): string =>
  JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'sess-1',
    transcript_path: s.transcript,
    cwd: s.repo,
    tool_name: tool,
    tool_input: input,
    tool_use_id: id,
  });

const gate = (home: string, input: string, args: string[] = [], env: Record<string, string> = {}) =>
  run(home, ['approval', 'gate', ...args], { input, env });

function approve(home: string, cid: string, content: string, decision = 'approved'): string {
  const r = run(home, ['approval', 'request', '--draft-id', cid, '--content', content, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const id = r.json.approval_id as string;
  expect(run(home, ['approval', 'decide', id, '--decision', decision]).code).toBe(0);
  return id;
}

const approvalRow = (home: string, id: string): any => {
  const db = rawStore(home);
  try {
    return db.prepare('SELECT * FROM approvals WHERE id = ?').get(id);
  } finally {
    db.close();
  }
};

describe('approval gate (pre-tool hook)', () => {
  it('allows a call matching no pattern without opening the store (an unusable store file is never read)', () => {
    const s = setup();
    const broken = join(s.home, 'not-a-db');
    writeFileSync(broken, 'this is not a SQLite file');
    const r = gate(s.home, claudeInput(s, 'Bash', { command: 'git status' }), [], { HANDOFF_DB: broken });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    // The same store problem on a matching call: denied by default, allowed under --on-store-error allow.
    const push = claudeInput(s, 'Bash', { command: 'git push origin main' });
    const denied = gate(s.home, push, [], { HANDOFF_DB: broken });
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(/the store could not be asked \(STORE_/);
    expect(gate(s.home, push, ['--on-store-error', 'allow'], { HANDOFF_DB: broken }).code).toBe(0);
  });

  it('HANDOFF_APPROVAL_PATTERNS applies without a contract block; with no store and no contract a match is denied', () => {
    const home = tempHome();
    const s = { home, repo: home, transcript: writeTranscript(home, 't.jsonl', 'hello') };
    const env = { HANDOFF_APPROVAL_PATTERNS: 'Bash(rm -rf *)' };
    expect(gate(home, claudeInput(s, 'Bash', { command: 'ls' }), [], env).code).toBe(0);
    const r = gate(home, claudeInput(s, 'Bash', { command: 'rm -rf build' }), [], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no contract of this run was found');
    expect(r.stderr).toContain('handoff contract dispatch');
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });

  it('denies an unapproved matching call with the exact request to run; an approval lets it run once', () => {
    const s = setup();
    const push = 'git push origin main';
    const denied = gate(s.home, claudeInput(s, 'Bash', { command: push }));
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain(`handoff approval request --draft-id ${s.cid} --content 'git push origin main'`);
    expect(denied.stderr).toContain('APPROVAL_REQUEST');
    expect(denied.stderr).toContain('handoff approval wait');
    // A pending approval is not enough.
    const pending = run(s.home, ['approval', 'request', '--draft-id', s.cid, '--content', push, '--json']).json;
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push })).code).toBe(2);
    expect(run(s.home, ['approval', 'decide', pending.approval_id, '--decision', 'approved']).code).toBe(0);
    // The same command written otherwise (argv-equal, as receipts compare commands) is the approved call.
    const ok = gate(s.home, claudeInput(s, 'Bash', { command: "git  push origin 'main'" }, 'toolu_ok'));
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const used = approvalRow(s.home, pending.approval_id);
    expect(used).toMatchObject({ status: 'used', used_by_tool_use_id: 'toolu_ok', used_by_contract_id: s.cid });
    expect(used.used_by_handoff_id).toBe(1);
    // approval show names the tool call that used it, in JSON and for a human.
    const shown = run(s.home, ['approval', 'show', pending.approval_id, '--json']);
    expect(shown.json.approval).toMatchObject({ approval_status: 'used', used_by_tool_use_id: 'toolu_ok' });
    expect(run(s.home, ['approval', 'show', pending.approval_id]).stdout).toContain('\nused by tool call: toolu_ok\n');
    // Used once: the next identical call is denied.
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push }, 'toolu_again')).code).toBe(2);
  });

  it('Copilot names no transcript: the block is read from its session events file under HOME, by a UUID session id only', () => {
    const s = setup();
    const session = '3b9aa490-ba9b-482e-99d7-2a7e4c0d1e2f';
    const events = join(s.home, '.copilot', 'session-state', session);
    mkdirSync(events, { recursive: true });
    const prompt = readFileSync(s.transcript, 'utf8');
    const content = (JSON.parse(prompt.split('\n')[0]) as { message: { content: string } }).message.content;
    writeFileSync(join(events, 'events.jsonl'), `${JSON.stringify({ type: 'user.message', data: { content } })}\n`);
    const input = (sessionId: string) =>
      JSON.stringify({ sessionId, cwd: s.repo, toolName: 'bash', toolArgs: { command: 'git push origin main' } });
    const env = { HOME: s.home };
    const denied = gate(s.home, input(session), [], env);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ permissionDecision: 'deny' });
    expect(denied.stdout).toContain(`--draft-id ${s.cid}`);
    // A session id that is not a UUID never becomes a path: no pattern known, the call is allowed.
    expect(gate(s.home, input('../../etc'), [], env)).toMatchObject({ code: 0, stdout: '' });
  });

  it('a rejected approval, or one of other content, lets nothing run', () => {
    const s = setup();
    approve(s.home, s.cid, 'git push origin main', 'rejected');
    approve(s.home, s.cid, 'git push origin other');
    expect(gate(s.home, claudeInput(s, 'Bash', { command: 'git push origin main' })).code).toBe(2);
  });

  it('a finalize of the contract citing the approval the gate used is accepted (not APPROVAL_ALREADY_USED)', () => {
    const s = setup();
    const push = 'git push origin main';
    const id = approve(s.home, s.cid, push);
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push })).code).toBe(0);
    const fin = finalizeAs(s.home, s.cid, 'COMPLETE', {
      ...COMPLETE_PATCH,
      approval_request: { approval_id: id, exact_content: push },
    });
    expect(fin.agent_state).toBe('COMPLETE');
  });

  it('a finalize elsewhere in the chain (a continuation) citing it is accepted too; another chain is refused', () => {
    const s = setup();
    const push = 'git push origin main';
    const id = approve(s.home, s.cid, push);
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push })).code).toBe(0);
    finalizeAs(s.home, s.cid, 'BLOCKED');
    const link = run(s.home, [
      'contract',
      'add',
      'evidence_report.commands_run',
      'late',
      '--draft-id',
      s.cid,
      '--json',
    ]);
    expect(link.code, link.stderr).toBe(0);
    const next = link.json.continuation.contract_id as string;
    const cite = { ...COMPLETE_PATCH, approval_request: { approval_id: id, exact_content: push } };
    expect(finalizeAs(s.home, next, 'COMPLETE', cite).agent_state).toBe('COMPLETE');
    // Another contract of the same agent citing it: still used elsewhere.
    const other = run(s.home, [
      'contract',
      'dispatch',
      '--workspace',
      'ws',
      '--goal',
      'g',
      '--agent-id',
      s.cid.split('.')[0],
      '--json',
    ]).json;
    // The write itself is refused (the cross-check runs on each write), or else the finalize.
    const filled = run(s.home, ['contract', 'fill', '--draft-id', other.contract_id, '--json', JSON.stringify(cite)]);
    run(s.home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', other.contract_id]);
    const fin = run(s.home, ['contract', 'finalize', '--draft-id', other.contract_id, '--json']);
    expect(fin.code).not.toBe(0);
    expect(filled.stdout + filled.stderr + fin.stdout).toMatch(/APPROVAL_ALREADY_USED|APPROVAL_FOREIGN/);
  });

  it('under HANDOFF_APPROVER_KEYS only an approval signed by a trusted approver lets the call run', () => {
    const s = setup();
    const approver = generate(s.home, 'approver', 'ed25519');
    const policy = { HANDOFF_APPROVER_KEYS: approver.public_key };
    const push = 'git push origin main';
    const plain = approve(s.home, s.cid, push);
    const denied = gate(s.home, claudeInput(s, 'Bash', { command: push }), [], policy);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('APPROVAL_UNSIGNED');
    expect(approvalRow(s.home, plain).status).toBe('approved');
    const r = run(s.home, ['approval', 'request', '--draft-id', s.cid, '--content', push, '--json']);
    const signed = r.json.approval_id as string;
    const d = run(s.home, ['approval', 'decide', signed, '--decision', 'approved', '--key', approver.private_key]);
    expect(d.code, d.stderr).toBe(0);
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push }, 'toolu_signed'), [], policy).code).toBe(0);
    expect(approvalRow(s.home, signed)).toMatchObject({ status: 'used', used_by_tool_use_id: 'toolu_signed' });
    expect(approvalRow(s.home, plain).status).toBe('approved');
  });

  it("states the use like finalize's used transition, signed with the store's key", () => {
    const s = setup();
    const store = generate(s.home, 'store', 'ed25519');
    const env = { HANDOFF_SIGNING_KEY: store.private_key };
    const push = 'git push origin main';
    const id = approve(s.home, s.cid, push);
    expect(gate(s.home, claudeInput(s, 'Bash', { command: push }), [], env).code).toBe(0);
    const db = rawStore(s.home);
    try {
      const rows = db
        .prepare("SELECT payload, signer FROM attestations WHERE kind = 'approval' AND subject_id = ? ORDER BY id")
        .all(id) as { payload: string; signer: string | null }[];
      const last = rows[rows.length - 1];
      expect(JSON.parse(last.payload).predicate.decision).toBe('used');
      expect(last.signer).toBe('store');
    } finally {
      db.close();
    }
  });

  it('Write(…) patterns: the canonical JSON of {tool, input} with the path relative to the repository root', () => {
    const s = setup(['Write(migrations/**)']);
    const input = { file_path: join(s.repo, 'migrations', '0009.sql'), content: 'DROP TABLE x;' };
    expect(gate(s.home, claudeInput(s, 'Write', { file_path: join(s.repo, 'src/a.ts'), content: '' })).code).toBe(0);
    const denied = gate(s.home, claudeInput(s, 'Write', input));
    expect(denied.code).toBe(2);
    const content = canonicalJson({ tool: 'Write', input: { ...input, file_path: 'migrations/0009.sql' } });
    expect(denied.stderr).toContain(content.replace(/'/g, "'\\''"));
    approve(s.home, s.cid, content);
    expect(gate(s.home, claudeInput(s, 'Write', input)).code).toBe(0);
    expect(gate(s.home, claudeInput(s, 'Write', input)).code).toBe(2);
  });

  it('answers each harness in its deny form', () => {
    const s = setup();
    const command = 'git push origin main';
    // The transcript is Claude Code's, which the other harnesses do not read: the project default names the pattern.
    const env = { HANDOFF_APPROVAL_PATTERNS: 'Bash(git push *)' };
    const codex = gate(
      s.home,
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        turn_id: 't',
        session_id: 's',
        transcript_path: s.transcript,
        cwd: s.repo,
        tool_name: 'Bash',
        tool_input: { command },
      }),
      [],
      env,
    );
    expect(codex.code).toBe(2);
    const gemini = gate(
      s.home,
      JSON.stringify({
        hook_event_name: 'BeforeTool',
        session_id: 's',
        transcript_path: s.transcript,
        cwd: s.repo,
        tool_name: 'run_shell_command',
        tool_input: { command },
      }),
      ['--harness', 'gemini'],
      env,
    );
    expect(gemini.code).toBe(2);
    expect(gemini.stderr).toContain('needs an approval');
    const copilot = gate(
      s.home,
      JSON.stringify({ toolName: 'bash', toolArgs: JSON.stringify({ command }), cwd: s.repo }),
      [],
      env,
    );
    expect(copilot.code).toBe(0);
    expect(JSON.parse(copilot.stdout)).toMatchObject({ permissionDecision: 'deny' });
    expect(JSON.parse(copilot.stdout).permissionDecisionReason).toContain('needs an approval');
    const cursor = gate(
      s.home,
      JSON.stringify({ hook_event_name: 'beforeShellExecution', conversation_id: 'c', command, cwd: s.repo }),
      [],
      env,
    );
    expect(cursor.code).toBe(0);
    expect(JSON.parse(cursor.stdout)).toMatchObject({ permission: 'deny' });
    const cursorOk = gate(
      s.home,
      JSON.stringify({ hook_event_name: 'beforeShellExecution', conversation_id: 'c', command: 'ls', cwd: s.repo }),
      [],
      env,
    );
    expect(JSON.parse(cursorOk.stdout)).toEqual({ permission: 'allow' });
  });

  it('bad hook input is HOOK_INPUT_INVALID and fails open (exit 1)', () => {
    const home = tempHome();
    for (const input of ['', 'nope', '{"hook_event_name":"Stop"}', '[]']) {
      const r = gate(home, input);
      expect(r.code, input).toBe(1);
      expect(r.stderr).toMatch(/^handoff approval gate: .*\. Call not gated\.\n$/);
    }
  });
});

describe('approval wait', () => {
  it('exits 124 while pending, 0 approved, 1 rejected; a bad id or timeout is a usage error', () => {
    const s = setup();
    const p = run(s.home, ['approval', 'request', '--draft-id', s.cid, '--content', 'x', '--json']).json.approval_id;
    expect(run(s.home, ['approval', 'wait', p, '--timeout', '50ms']).code).toBe(124);
    expect(run(s.home, ['approval', 'decide', p, '--decision', 'approved']).code).toBe(0);
    expect(run(s.home, ['approval', 'wait', p, '--json']).json).toMatchObject({ approval_status: 'approved' });
    const q = approve(s.home, s.cid, 'y', 'rejected');
    expect(run(s.home, ['approval', 'wait', q]).code).toBe(1);
    expect(run(s.home, ['approval', 'wait', 'P-1']).code).toBe(2);
    expect(run(s.home, ['approval', 'wait', p, '--timeout', '10']).code).toBe(2);
    expect(run(s.home, ['approval', 'wait', `P-${'0'.repeat(32)}`]).code).toBe(3);
  });
});
