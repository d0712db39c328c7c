/**
 * `evidence run` spills captured output under the data root (`<root>/tmp/spill-<pid>-…`), never
 * in $TMPDIR; when the capture fails (a file-size limit, an unwritable spill folder) the child's process group is
 * stopped and reaped, no receipt is recorded, and the verb exits 4 RECEIPT_CAPTURE_FAILED without a stack trace.
 * The child writes its pids first, so the test can check afterwards that none of them is left (no timing asserted).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run, tempHome, type RunResult } from '../helpers/cli.js';
import { waitGone } from '../helpers/process.js';
import { initDraft, readDraftJson } from '../helpers/drafts.js';
import { countRows } from '../helpers/store-cli.js';

/** The shell command: record the shell's pid and a grandchild's, then print past the inline threshold, then wait. */
const noisy = (pidFile: string, bytes: number): string =>
  `echo $$ > ${pidFile}; sleep 60 & echo $! >> ${pidFile}; head -c ${bytes} /dev/zero; wait`;

function toResult(r: ReturnType<typeof spawnSync>): RunResult {
  const stdout = String(r.stdout ?? '');
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, stdout, stderr: String(r.stderr ?? ''), json };
}

/** `handoff ...args` under `prefix` (a shell snippet run before exec: a ulimit, a read-only mount). */
function runUnder(home: string, prefix: string, args: string[], unshare = false): RunResult {
  const script = `${prefix}; exec "$@"`;
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  const argv = ['-c', script, 'sh', process.execPath, BIN, ...args];
  const r = unshare
    ? spawnSync('unshare', ['-m', 'bash', ...argv], { env, cwd: home, encoding: 'utf8' })
    : spawnSync('bash', argv, { env, cwd: home, encoding: 'utf8' });
  return toResult(r);
}

async function expectGone(pidFile: string): Promise<void> {
  expect(existsSync(pidFile)).toBe(true);
  const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
  expect(pids).toHaveLength(2);
  for (const pid of pids) await waitGone(pid);
}

describe('evidence run spills under the data root', () => {
  it('TMPDIR=/nonexistent: the run is recorded in full, its spill folder under <root>/tmp is removed', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = run(
      home,
      ['evidence', 'run', '--json', '--draft-id', id, '--shell', '--', 'head -c 10000 /dev/zero; echo'],
      {
        env: { TMPDIR: '/nonexistent' },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.json.receipt).toMatchObject({ stdout_bytes: 10_001, exit_code: 0 });
    expect(r.json.receipt.stdout_path).toEqual(expect.stringContaining(join(home, 'evidence')));
    expect(readdirSync(join(home, 'tmp'))).toEqual([]);
    expect(readDraftJson(home, id).evidence_report.commands_run).toHaveLength(1);
  });
});

describe('a capture that fails stops the child and records nothing', () => {
  it('a file-size limit (ulimit -f): RECEIPT_CAPTURE_FAILED exit 4, the group reaped, no receipt, no spill left', async () => {
    const home = tempHome();
    const id = initDraft(home);
    const draftBefore = readFileSync(join(home, 'drafts', `${id}.json`), 'utf8');
    const pidFile = join(home, 'pids');
    const r = runUnder(home, 'ulimit -f 4', [
      'evidence',
      'run',
      '--json',
      '--draft-id',
      id,
      '--timeout',
      '600',
      '--shell',
      '--',
      noisy(pidFile, 200_000),
    ]);
    expect([r.code, r.json?.code], r.stdout + r.stderr).toEqual([4, 'RECEIPT_CAPTURE_FAILED']);
    expect(r.json.status).toBe('error');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    await expectGone(pidFile);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    expect(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8')).toBe(draftBefore);
    expect(readdirSync(join(home, 'tmp'))).toEqual([]);
    expect(existsSync(join(home, 'evidence'))).toBe(false);
  });

  it('an unwritable spill folder (read-only <root>/tmp): the same, human mode one line', async () => {
    const home = tempHome();
    const id = initDraft(home);
    // A store with a row already, so "no receipt" is a real check.
    expect(run(home, ['approval', 'request', '--content', 'x']).code).toBe(0);
    mkdirSync(join(home, 'tmp'));
    const pidFile = join(home, 'pids');
    const tmp = join(home, 'tmp');
    const r = runUnder(
      home,
      `mount --bind ${tmp} ${tmp} && mount -o remount,bind,ro ${tmp}`,
      ['evidence', 'run', '--draft-id', id, '--shell', '--', noisy(pidFile, 50_000)],
      true,
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^Error: .*RECEIPT_CAPTURE_FAILED\]\n$/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    await expectGone(pidFile);
    expect(countRows(home, 'receipts')).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
