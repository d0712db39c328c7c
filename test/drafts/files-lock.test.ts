import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDraft, saveDraft } from '../../src/drafts/files.js';
import { acquireLock, breakStale, inspect, LockSet, procStart, tryLock } from '../../src/drafts/lock.js';
import { listCandidates } from '../../src/drafts/resolve.js';
import { HandoffError } from '../../src/errors.js';
import { tempHome } from '../helpers/cli.js';

const ID = 'a0123456789abcdef.0123456789ab';
const envOf = (home: string): NodeJS.ProcessEnv => ({ HANDOFF_HOME: home });

/** A pid that is certainly dead: a child that already exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid;

async function caught(p: Promise<unknown>): Promise<HandoffError> {
  try {
    await p;
  } catch (e) {
    return e as HandoffError;
  }
  throw new Error('expected a rejection');
}

describe('draft files', () => {
  it('saves 2-space JSON + newline, 0600 in a 0700 folder, and reads it back', () => {
    const home = tempHome();
    saveDraft(envOf(home), ID, { b: 1, a: [] });
    const path = join(home, 'drafts', `${ID}.json`);
    expect(readFileSync(path, 'utf8')).toBe('{\n  "b": 1,\n  "a": []\n}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'drafts')).mode & 0o777).toBe(0o700);
    expect(readDraft(envOf(home), ID)).toMatchObject({ state: 'ok', envelope: { b: 1, a: [] } });
    expect(readdirSync(join(home, 'drafts'))).toEqual([`${ID}.json`]);
  });

  it('missing file → missing; a folder that does not exist is not created by a read', () => {
    const home = tempHome();
    expect(readDraft(envOf(home), ID).state).toBe('missing');
    expect(existsSync(join(home, 'drafts'))).toBe(false);
  });

  it.each([
    ['not json', 'nope {'],
    ['an array', '[1]'],
    ['null', 'null'],
    ['a string', '"x"'],
    ['empty', ''],
  ])('a file holding %s → DRAFT_UNREADABLE, exit 3', (_what, text) => {
    const home = tempHome();
    mkdirSync(join(home, 'drafts'));
    writeFileSync(join(home, 'drafts', `${ID}.json`), text);
    expect(() => readDraft(envOf(home), ID)).toThrow(expect.objectContaining({ code: 'DRAFT_UNREADABLE', exit: 3 }));
  });

  it('a directory or FIFO under the name → DRAFT_UNREADABLE without hanging', () => {
    const home = tempHome();
    mkdirSync(join(home, 'drafts', `${ID}.json`), { recursive: true });
    expect(() => readDraft(envOf(home), ID)).toThrow(expect.objectContaining({ code: 'DRAFT_UNREADABLE' }));
    const fifoId = 'a0123456789abcdef.ffffff';
    spawnSync('mkfifo', [join(home, 'drafts', `${fifoId}.json`)]);
    expect(() => readDraft(envOf(home), fifoId)).toThrow(expect.objectContaining({ code: 'DRAFT_UNREADABLE' }));
  });

  it('a failed save → DRAFT_WRITE_FAILED (exit 4), the temp file removed, the target untouched', () => {
    const home = tempHome();
    // The target name is a non-empty directory, so the rename fails after the temp file was written.
    mkdirSync(join(home, 'drafts', `${ID}.json`), { recursive: true });
    writeFileSync(join(home, 'drafts', `${ID}.json`, 'keep'), 'x');
    expect(() => saveDraft(envOf(home), ID, { a: 1 })).toThrow(
      expect.objectContaining({ code: 'DRAFT_WRITE_FAILED', exit: 4 }),
    );
    expect(readdirSync(join(home, 'drafts'))).toEqual([`${ID}.json`]);
  });

  it('candidates: valid ids only, newest first, ties by id descending; lock and temp files never count', () => {
    const home = tempHome();
    const dir = join(home, 'drafts');
    mkdirSync(dir);
    const ids = ['a0000000000000001.aaaaaa', 'a0000000000000002.bbbbbb', 'a0000000000000002.cccccc'];
    for (const id of ids) writeFileSync(join(dir, `${id}.json`), '{}');
    for (const junk of [
      'A0000000000000001.aaaaaa.json',
      'x.json',
      `${ids[0]}.lock`,
      `.${ids[0]}.1.abcd1234.tmp`,
      'a0000000000000001.json',
    ]) {
      writeFileSync(join(dir, junk), '{}');
    }
    const t = new Date('2030-01-01T00:00:00.000Z');
    utimesSync(join(dir, `${ids[0]}.json`), t, new Date(t.getTime() + 5));
    utimesSync(join(dir, `${ids[1]}.json`), t, t);
    utimesSync(join(dir, `${ids[2]}.json`), t, t);
    expect(listCandidates(envOf(home)).map((c) => c.draftId)).toEqual([ids[0], ids[2], ids[1]]);
    expect(listCandidates(envOf(home), undefined, 'a0000000000000002').map((c) => c.draftId)).toEqual([ids[2], ids[1]]);
  });
});

describe('per-draft lock', () => {
  it('is exclusive, holds pid and start time, and is released', async () => {
    const home = tempHome();
    const before = Date.now();
    const lock = await acquireLock(envOf(home), ID);
    const after = Date.now();
    const info = JSON.parse(readFileSync(lock.path, 'utf8'));
    expect(info.pid).toBe(process.pid);
    // The start time is taken while acquiring (bounds from this process's own clock, whatever the machine's speed).
    expect(info.start >= before && info.start <= after).toBe(true);
    expect(tryLock(envOf(home), ID)).toBeUndefined();
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    const again = tryLock(envOf(home), ID);
    expect(again).toBeDefined();
    again?.release();
    expect(readdirSync(join(home, 'drafts'))).toEqual([]);
  });

  it('a held lock → DRAFT_LOCKED (exit 4) naming the holder after the wait', async () => {
    const home = tempHome();
    const lock = await acquireLock(envOf(home), ID);
    const t0 = Date.now();
    const err = await caught(acquireLock(envOf(home), ID, { waitMs: 300 }));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect([err.code, err.exit, err.data.holder_pid]).toEqual(['DRAFT_LOCKED', 4, process.pid]);
    lock.release();
  });

  it('waits for a holder that releases', async () => {
    const home = tempHome();
    const lock = await acquireLock(envOf(home), ID);
    setTimeout(() => lock.release(), 150);
    // A generous wait: the outcome (the lock is taken once released) must not depend on the machine's load.
    const second = await acquireLock(envOf(home), ID, { waitMs: 60_000 });
    second.release();
  });

  it.each([
    ['a dead pid', () => ({ pid: deadPid(), host: hostname(), start: Date.now(), token: 'x' })],
    ['older than 120 s', () => ({ pid: process.ppid, host: hostname(), start: Date.now() - 121_000, token: 'x' })],
    ['another host, older than 120 s', () => ({ pid: 1, host: 'elsewhere', start: Date.now() - 200_000, token: 'x' })],
  ])('a stale lock (%s) is broken at once', (_what, info) => {
    const home = tempHome();
    mkdirSync(join(home, 'drafts'));
    writeFileSync(join(home, 'drafts', `${ID}.lock`), JSON.stringify(info()));
    // Broken at once: a single non-waiting try takes it (a live lock would make tryLock return undefined).
    const lock = tryLock(envOf(home), ID)!;
    expect(lock).toBeDefined();
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(readdirSync(join(home, 'drafts'))).toEqual([]);
  });

  it("a lock records proc_start, its owner's process start time (/proc/<pid>/stat field 22)", async () => {
    const home = tempHome();
    const lock = await acquireLock(envOf(home), ID);
    const own = readFileSync('/proc/self/stat', 'utf8');
    const start = own.slice(own.lastIndexOf(')') + 2).split(' ')[19];
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).proc_start).toBe(start);
    expect(procStart('self')).toBe(start);
    lock.release();
  });

  it('pid reuse: our own pid or a live pid with another proc_start is stale; without proc_start the old rule holds', () => {
    const home = tempHome();
    mkdirSync(join(home, 'drafts'));
    const path = join(home, 'drafts', `${ID}.lock`);
    const write = (extra: Record<string, unknown>): void =>
      writeFileSync(
        path,
        JSON.stringify({ pid: process.ppid, host: hostname(), start: Date.now(), token: 'x', ...extra }),
      );
    write({});
    expect(tryLock(envOf(home), ID)).toBeUndefined();
    write({ proc_start: procStart(process.ppid) });
    expect(tryLock(envOf(home), ID)).toBeUndefined();
    write({ proc_start: '1' });
    const reused = tryLock(envOf(home), ID);
    expect(reused).toBeDefined();
    reused?.release();
    writeFileSync(
      path,
      JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token: 'x', proc_start: '1' }),
    );
    const own = tryLock(envOf(home), ID);
    expect(own).toBeDefined();
    own?.release();
  });

  it('a live lock on another host inside 120 s is respected', async () => {
    const home = tempHome();
    mkdirSync(join(home, 'drafts'));
    writeFileSync(
      join(home, 'drafts', `${ID}.lock`),
      JSON.stringify({ pid: 1, host: 'elsewhere', start: Date.now(), token: 'x' }),
    );
    expect((await caught(acquireLock(envOf(home), ID, { waitMs: 100 }))).code).toBe('DRAFT_LOCKED');
  });

  it('release never removes a lock that is no longer ours', async () => {
    const home = tempHome();
    const lock = await acquireLock(envOf(home), ID);
    writeFileSync(lock.path, JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token: 'other' }));
    lock.release();
    expect(existsSync(lock.path)).toBe(true);
  });

  it('LockSet releases all and, after a failure, removes the folders it created', async () => {
    const top = tempHome();
    const home = join(top, 'nested', 'root');
    const set = new LockSet(envOf(home));
    await set.add(ID);
    await set.add('a0123456789abcdef.aaaaaa');
    await set.add(ID);
    expect(set.ids).toEqual([ID, 'a0123456789abcdef.aaaaaa']);
    set.releaseAll(true);
    expect(existsSync(join(home, 'drafts'))).toBe(false);
    expect(readdirSync(top)).toEqual([]);
  });
});

describe('breaking a stale lock (race-safe)', () => {
  const lockAt = (home: string): string => {
    mkdirSync(join(home, 'drafts'), { recursive: true });
    return join(home, 'drafts', `${ID}.lock`);
  };
  const info = (pid: number, token: string): string =>
    `${JSON.stringify({ pid, host: hostname(), start: Date.now(), token })}\n`;

  it('removes the judged lock of a dead owner, and leaves no guard file', () => {
    const path = lockAt(tempHome());
    writeFileSync(path, info(deadPid(), 'dead0000'));
    const judged = inspect(path);
    expect(judged?.info?.token).toBe('dead0000');
    breakStale(path, judged!);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.break`)).toBe(false);
  });

  it('never removes a lock that was released and re-taken after the judgement, even on the same inode', () => {
    const path = lockAt(tempHome());
    writeFileSync(path, info(deadPid(), 'dead0000'));
    const judged = inspect(path)!;
    // The owner released and a live writer took the lock anew; the file system handed out the same inode.
    writeFileSync(path, info(process.pid, 'live1111'));
    expect(statSync(path).ino).toBe(judged.ino);
    breakStale(path, judged);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ token: 'live1111' });
  });

  it('does nothing while another breaker holds the guard; a guard left by a killed breaker expires', () => {
    const path = lockAt(tempHome());
    writeFileSync(path, info(deadPid(), 'dead0000'));
    const judged = inspect(path)!;
    writeFileSync(`${path}.break`, '1\n');
    breakStale(path, judged);
    expect(existsSync(path)).toBe(true);
    const old = (Date.now() - 10_000) / 1000;
    utimesSync(`${path}.break`, old, old);
    breakStale(path, judged); // clears the expired guard
    breakStale(path, judged);
    expect(existsSync(path)).toBe(false);
  });
});
