import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeWith, freshHome, gitRepo, hf, newDraft, nodeCmd, receipt } from '../helpers/receipts-cli.js';

const gate = (home: string, d: string) =>
  hf(home, ['contract', 'gate', '--draft-id', d, '--stop-reason', 'end_turn', '--json'], {
    input: JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' }),
  });

describe('stop gate: the time-invariant receipt checks', () => {
  it('allows a clean close whose receipt is still intact, even after the tree changed (never RECEIPT_STALE)', () => {
    const repo = gitRepo();
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    expect(
      closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id }).code,
    ).toBe(0);
    writeFileSync(join(repo, 'app.js'), 'changed\n');
    const r = gate(home, d);
    expect(r.code).toBe(0);
    expect(r.json.decision).toBe('allow');
  });

  it('blocks (exit 2, never excused) a closed row whose cited receipt output was altered', () => {
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('process.stdout.write("q".repeat(5000))')).receipt;
    expect(
      closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id }).code,
    ).toBe(0);
    writeFileSync(rc.stdout_path, 'tampered');
    const r = gate(home, d);
    expect(r.code).toBe(2);
    expect(r.json.codes).toEqual(['RECEIPT_TAMPERED']);
    expect(r.json.errors[0].path).toBe('evidence_report.verification.receipt');
    const truncated = hf(home, ['contract', 'gate', '--draft-id', d, '--stop-reason', 'max_tokens', '--json'], {
      input: JSON.stringify({ hook_event_name: 'Stop', session_id: 's2' }),
    });
    expect(truncated.code).toBe(2);
  });
});
