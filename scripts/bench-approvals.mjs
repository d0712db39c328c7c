// Part of npm run bench: the pre-tool approval gate on a tool call that matches no approval pattern, the cost every
// tool call of a run pays once `hooks install --approvals` wired it. The run's transcript holds a contract block with
// a require_approval: line and HANDOFF_APPROVAL_PATTERNS is set, so the gate reads both and opens no store.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The row `{name, args, env, input}` for the bench's rounds, in a data root of its own (`homes` gets it). */
export function approvalGateVerb({ BIN, env, homes }) {
  const home = mkdtempSync(join(tmpdir(), 'handoff-bench-approvals-'));
  homes.push(home);
  const repo = join(home, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  const aenv = { ...env, HANDOFF_HOME: home, HANDOFF_APPROVAL_PATTERNS: 'Bash(rm -rf *)' };
  const r = spawnSync(
    process.execPath,
    [BIN, 'contract', 'dispatch', '--goal', 'bench turn', '--require-approval', 'Bash(git push *)', '--json'],
    { env: aenv, encoding: 'utf8', cwd: home },
  );
  if (r.status !== 0) throw new Error(`bench: contract dispatch exited ${r.status}: ${r.stderr}`);
  const block = JSON.parse(r.stdout).contract_block;
  const transcript = join(home, 'transcript.jsonl');
  writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: block } })}\n`);
  const input = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'bench',
    transcript_path: transcript,
    cwd: repo,
    tool_name: 'Bash',
    tool_input: { command: 'git status' },
    tool_use_id: 'toolu_bench',
  });
  return {
    name: 'approval gate (unmatched call)',
    args: () => ['approval', 'gate', '--harness', 'claude'],
    env: aenv,
    input: () => input,
  };
}
