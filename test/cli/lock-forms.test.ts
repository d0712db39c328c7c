/**
 * A lock path of the wrong form (a dangling symlink, a symlink to a file, a directory, a FIFO) is
 * stale at once and removed itself (never followed), so the next writer gets through instead of waiting 15 s for
 * DRAFT_LOCKED; a lock whose live pid was reused by another process (proc_start differs) is stale too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { waitGone } from '../helpers/process.js';
import { initDraft, readDraftJson } from '../helpers/drafts.js';

const lockOf = (home: string, id: string): string => join(home, 'drafts', `${id}.lock`);

const setProse = (home: string, id: string, value: string) =>
  run(home, ['contract', 'set', 'report_prose', value, '--draft-id', id, '--json']);

describe('locks of the wrong form are stale at once', () => {
  it('a dangling symlink: removed itself, its target never created; the write lands', () => {
    const home = tempHome();
    const id = initDraft(home);
    const target = join(mkdtempSync(join(tmpdir(), 'handoff-elsewhere-')), 'planted');
    symlinkSync(target, lockOf(home, id));
    const r = setProse(home, id, 'through');
    expect(r.code, r.stdout).toBe(0);
    expect(readDraftJson(home, id).report_prose).toBe('through');
    expect(existsSync(lockOf(home, id)) || isLink(lockOf(home, id))).toBe(false);
    expect(existsSync(target)).toBe(false);
  });

  it('a symlink to a regular file outside: the link is unlinked, the file it names is untouched', () => {
    const home = tempHome();
    const id = initDraft(home);
    const outside = mkdtempSync(join(tmpdir(), 'handoff-elsewhere-'));
    const file = join(outside, 'precious');
    writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token: 'not-a-lock' }));
    symlinkSync(file, lockOf(home, id));
    const before = snapshot(outside);
    expect(setProse(home, id, 'x').code).toBe(0);
    expect(snapshot(outside)).toEqual(before);
    expect(isLink(lockOf(home, id))).toBe(false);
  });

  it('a directory (with content) and a FIFO at the lock path: removed, the write lands', () => {
    const home = tempHome();
    const id = initDraft(home);
    mkdirSync(join(lockOf(home, id), 'inner'), { recursive: true });
    writeFileSync(join(lockOf(home, id), 'inner', 'f'), 'x');
    expect(setProse(home, id, 'dir').code).toBe(0);
    expect(existsSync(lockOf(home, id))).toBe(false);
    expect(spawnSync('mkfifo', [lockOf(home, id)]).status).toBe(0);
    expect(setProse(home, id, 'fifo').code).toBe(0);
    expect(readDraftJson(home, id).report_prose).toBe('fifo');
    expect(existsSync(lockOf(home, id))).toBe(false);
  });

  it('a planted guard of the wrong form does not stop the breaking either', () => {
    const home = tempHome();
    const id = initDraft(home);
    symlinkSync(join(home, 'nowhere'), lockOf(home, id));
    symlinkSync(join(home, 'nowhere-either'), `${lockOf(home, id)}.break`);
    expect(setProse(home, id, 'x').code).toBe(0);
  });
});

describe('a reused pid does not keep a lock alive (proc_start)', () => {
  it('a lock naming a live pid whose process started at another time is stale at once; with its real start time it holds the lock', async () => {
    const home = tempHome();
    const id = initDraft(home);
    // A live process on this host, not ours: the lock claims its pid but another start time (the pid was reused).
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    const pid = sleeper.pid as number;
    try {
      writeFileSync(
        lockOf(home, id),
        JSON.stringify({ pid, host: hostname(), start: Date.now(), token: 'reused', proc_start: '1' }),
      );
      const r = setProse(home, id, 'reused');
      expect(r.code, r.stdout).toBe(0);
      expect(readDraftJson(home, id).report_prose).toBe('reused');
      // The same live pid with its real start time holds the lock: the next writer waits (DRAFT_LOCKED after 15 s).
      const start = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
      writeFileSync(
        lockOf(home, id),
        JSON.stringify({ pid, host: hostname(), start: Date.now(), token: 'held', proc_start: start }),
      );
      const held = setProse(home, id, 'blocked');
      expect([held.code, held.json.code, held.json.holder_pid]).toEqual([4, 'DRAFT_LOCKED', pid]);
    } finally {
      sleeper.kill('SIGKILL');
      await waitGone(pid);
    }
  });
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
