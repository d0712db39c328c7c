/**
 * Waiting for a held draft lock is cheap: a retry that finds the very lock file it judged live (same inode, same
 * mtime) does not read and judge it again until a second has passed, so a hundred waiters leave the CPU to the holder.
 * A changed lock (released, re-taken, replaced) is judged at once.
 */
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as judge from '../../src/drafts/lock-judge.js';
import { acquireLock } from '../../src/drafts/lock.js';
import { isHandoffError } from '../../src/errors.js';
import { tempHome } from '../helpers/cli.js';

vi.mock('../../src/drafts/lock-judge.js', async (original) => {
  const real = await original<typeof import('../../src/drafts/lock-judge.js')>();
  return { ...real, inspect: vi.fn(real.inspect) };
});

const ID = 'a0123456789abcdef.0123456789ab';

/** A lock of this very process (live: its pid and start time are ours), with `token`. */
const lockText = (token: string): string =>
  `${JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token, proc_start: judge.procStart('self') })}\n`;

/** A lock held by this very process. */
function liveLock(home: string): string {
  mkdirSync(join(home, 'drafts'), { recursive: true, mode: 0o700 });
  const path = join(home, 'drafts', `${ID}.lock`);
  writeFileSync(path, lockText('held'));
  return path;
}

/**
 * Writers taking the lock one after another: every 50 ms a new lock replaces the last (published by rename, so the
 * lock is never free) until `stop()`, which answers how many there were.
 */
function handOn(path: string): { stop(): number } {
  let n = 0;
  const timer = setInterval(() => {
    writeFileSync(`${path}.tmp`, lockText(`next-${++n}`));
    renameSync(`${path}.tmp`, path);
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return n;
    },
  };
}

async function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'acquired',
    (e: unknown) => (isHandoffError(e) ? e.code : String(e)),
  );
}

describe('waiting for a held lock', () => {
  it('an unchanged live lock is read and judged once per second, not on every 10-50 ms retry', async () => {
    const home = tempHome();
    liveLock(home);
    const inspect = vi.mocked(judge.inspect);
    inspect.mockClear();
    const t0 = Date.now();
    expect(await outcome(acquireLock({ HANDOFF_HOME: home }, ID, { waitMs: 600 }))).toBe('DRAFT_LOCKED');
    const elapsed = Date.now() - t0;
    // Without the rule every retry (about 20 in 600 ms) reads the lock; with it, one read per started second.
    expect(inspect.mock.calls.length).toBeLessThanOrEqual(1 + Math.floor(elapsed / 1000));
  });

  it('a lock released meanwhile is taken at the next retry', async () => {
    const home = tempHome();
    const path = liveLock(home);
    vi.mocked(judge.inspect).mockClear();
    const waiting = outcome(acquireLock({ HANDOFF_HOME: home }, ID, { waitMs: 60_000 }));
    // Released once the waiter has judged it live (its first read), well inside the second it would trust it.
    await vi.waitFor(() => expect(vi.mocked(judge.inspect)).toHaveBeenCalled(), { timeout: 30_000, interval: 5 });
    unlinkSync(path);
    expect(await waiting).toBe('acquired');
  });

  it('a lock that keeps changing hands is waited for past the wait limit, and taken once the writers ahead are done', async () => {
    const home = tempHome();
    const path = liveLock(home);
    // Writers ahead of us, for three times the wait limit; then the last one releases the lock.
    const queue = handOn(path);
    const t0 = Date.now();
    const waiting = outcome(acquireLock({ HANDOFF_HOME: home }, ID, { waitMs: 2000 }));
    await new Promise((done) => setTimeout(done, 6000));
    const handedOn = queue.stop();
    unlinkSync(path);
    expect(await waiting).toBe('acquired');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(6000);
    expect(handedOn).toBeGreaterThan(10);
  }, 60_000);

  it('one holder that keeps the lock for the wait limit still turns the waiter away, however long it waited before', async () => {
    const home = tempHome();
    const path = liveLock(home);
    const queue = handOn(path);
    const t0 = Date.now();
    const waiting = outcome(acquireLock({ HANDOFF_HOME: home }, ID, { waitMs: 1000 }));
    await new Promise((done) => setTimeout(done, 1500));
    queue.stop(); // the last writer now keeps it
    expect(await waiting).toBe('DRAFT_LOCKED');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
  }, 60_000);
});
