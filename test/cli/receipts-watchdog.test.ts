/**
 * kill -9 of `evidence run` while its command runs: the command's process group dies with the tool (its watchdog
 * reads EOF on the pipe only the tool held), and nothing half-recorded is left: no receipt row, no output blob, the
 * draft unchanged.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { processGone, waitGone } from '../helpers/process.js';
import { freshHome, hf, newDraft, WS } from '../helpers/receipts-cli.js';

/** Resolves with the file's content once it holds a full line (the budget is the test's timeout). */
async function lineOf(path: string): Promise<string> {
  for (;;) {
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (text.endsWith('\n')) return text.trim();
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Resolves once the watchdog of group `pgid` runs (its argv names the group): the run is armed. */
async function watchdogOf(pgid: number): Promise<void> {
  const needle = `handoff-watchdog\0${pgid}\0`;
  for (;;) {
    for (const n of readdirSync('/proc')) {
      if (!/^\d+$/.test(n)) continue;
      let cmd: string | undefined;
      try {
        cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
      } catch {
        cmd = undefined; // the process ended meanwhile
      }
      if (cmd?.endsWith(needle) === true) return;
    }
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('evidence run killed with SIGKILL', () => {
  it('takes its command group with it (TERM, then KILL for what ignores TERM); no receipt, no blob, draft unchanged', async () => {
    const home = freshHome();
    const d = newDraft(home);
    const draftBefore = readFileSync(join(home, 'drafts', `${d}.json`), 'utf8');
    const pidFile = join(home, 'child.pid');
    // The command ignores TERM (so does the sleep it starts: an ignored signal is inherited) and writes its pid.
    const script = `trap '' TERM; echo $$ > '${pidFile}'; sleep 300; echo done`;
    const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: WS };
    const tool = spawn(
      process.execPath,
      [BIN, 'evidence', 'run', '--json', '--draft-id', d, '--', 'sh', '-c', script],
      { env, cwd: home, stdio: 'ignore' },
    );
    onTestFinished(() => {
      // Whatever the outcome, nothing of this test runs on (a failure would otherwise leave the command behind).
      tool.kill('SIGKILL');
      const left = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
      if (left > 1 && !processGone(left)) process.kill(-left, 'SIGKILL');
    });
    const pid = Number(await lineOf(pidFile));
    expect(pid).toBeGreaterThan(1);
    // The watchdog starts right after the command (the same synchronous step of the tool); wait until it runs.
    await watchdogOf(pid);
    const toolDone = new Promise<NodeJS.Signals | null>((res) => tool.on('exit', (_c, s) => res(s)));
    tool.kill('SIGKILL');
    expect(await toolDone).toBe('SIGKILL');
    await waitGone(pid);
    expect(processGone(pid)).toBe(true);

    const receipts = hf(home, ['evidence', 'receipts', '--draft-id', d, '--json']);
    expect([receipts.code, receipts.json.count]).toEqual([0, 0]);
    expect(existsSync(join(home, 'evidence', WS, '_receipts'))).toBe(false);
    expect(readFileSync(join(home, 'drafts', `${d}.json`), 'utf8')).toBe(draftBefore);
  }, 30_000);

  it('a run that ends normally leaves nothing behind it: a process its command started in the background keeps running', async () => {
    const home = freshHome();
    const d = newDraft(home);
    const pidFile = join(home, 'bg.pid');
    const r = hf(home, [
      'evidence',
      'run',
      '--json',
      '--draft-id',
      d,
      '--',
      'sh',
      '-c',
      `sleep 300 >/dev/null 2>&1 & echo $! > '${pidFile}'`,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const pid = Number(await lineOf(pidFile));
    onTestFinished(() => {
      if (!processGone(pid)) process.kill(pid, 'SIGKILL');
    });
    // The watchdog stood down: give it the chance to do harm (its grace is 2 s), then the process must still be there.
    await new Promise((res) => setTimeout(res, 3000));
    expect(processGone(pid)).toBe(false);
  }, 30_000);
});
