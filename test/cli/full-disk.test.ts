/**
 * A full disk (a small tmpfs filled up): the store's writes are STORE_WRITE_FAILED (exit 4, "no space"), never
 * STORE_UNREADABLE, with nothing written; reads still work; a draft write saves the draft and skips its mirror, which
 * the next write makes once there is room again.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, type RunResult } from '../helpers/cli.js';

let mnt: string;
beforeEach(() => {
  mnt = mkdtempSync(join(tmpdir(), 'handoff-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
});
afterEach(() => {
  execFileSync('umount', [mnt]);
  rmSync(mnt, { recursive: true, force: true });
});

/** Writes `file` until the device is full; false when nothing more fits. */
function fillFile(file: string, chunk: number): boolean {
  const fd = openSync(file, 'w');
  const buf = Buffer.alloc(chunk, 1);
  let wrote = 0;
  try {
    for (;;) {
      writeSync(fd, buf);
      wrote++;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return wrote > 0;
}

/** Fills the device to the last byte, then frees `room` bytes (tmpfs gives back the pages of a truncated file). */
function fillUp(room = 0): void {
  const filler = join(mnt, 'filler');
  fillFile(filler, 64 * 1024);
  if (room > 0) truncateSync(filler, statSync(filler).size - room);
}

/**
 * Each call is a process of its own, as an agent's calls are: SQLite keeps per-process state for an open file (its
 * locks and shared-memory index), and what a full disk does to a fresh open is what this file is about.
 */
const hf = (home: string, args: string[]): RunResult =>
  run(home, [...args, '--json'], { env: { HANDOFF_WORKSPACE: 'ws' }, process: true });

describe('a full disk', () => {
  it('store writes are STORE_WRITE_FAILED with nothing written; reads work; a draft write skips only its mirror', () => {
    const home = join(mnt, 'root');
    mkdirSync(home);
    expect(hf(home, ['brief', 'add', 'pay']).code).toBe(0);
    const dispatched = hf(home, ['contract', 'dispatch', '--goal', 'g']).json.contract_id as string;
    // Room for a draft save (a few pages), none for the store's -shm file (32 KB).
    fillUp(24 * 1024);

    const set = hf(home, ['contract', 'set', 'agent_status.next_action', 'while full', '--draft-id', dispatched]);
    expect([set.code, set.json?.mirrored, set.json?.mirror_skipped_reason], set.stdout + set.stderr).toEqual([
      0,
      false,
      'store_error',
    ]);
    expect(hf(home, ['contract', 'view', '--draft-id', dispatched]).json.envelope.agent_status.next_action).toBe(
      'while full',
    );
    const add = hf(home, ['brief', 'add', 'other']);
    expect([add.code, add.json?.code], add.stdout + add.stderr).toEqual([4, 'STORE_WRITE_FAILED']);
    expect(add.json.error).toContain('no space');
    expect(hf(home, ['contract', 'list']).json?.count).toBe(1);
    expect(hf(home, ['brief', 'list']).json?.briefs.map((b: { name: string }) => b.name)).toEqual(['pay']);

    // Room again: the next write mirrors; the refused brief was never written.
    unlinkSync(join(mnt, 'filler'));
    const again = hf(home, ['contract', 'set', 'agent_status.next_action', 'room again', '--draft-id', dispatched]);
    expect([again.code, again.json?.mirrored]).toEqual([0, true]);
    const db = new Database(join(home, 'handoff.db'), { readonly: true });
    const row = db.prepare('SELECT raw_handoff_json FROM handoffs WHERE contract_id = ?').get(dispatched) as {
      raw_handoff_json: string;
    };
    db.close();
    expect(JSON.parse(row.raw_handoff_json).agent_status.next_action).toBe('room again');
    expect(hf(home, ['brief', 'list']).json?.briefs.map((b: { name: string }) => b.name)).toEqual(['pay']);
  });

  it('with no room at all, a store write is still STORE_WRITE_FAILED and a read still works', () => {
    const home = join(mnt, 'root');
    mkdirSync(home);
    expect(hf(home, ['brief', 'add', 'pay']).code).toBe(0);
    fillUp();
    const add = hf(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x']);
    expect([add.code, add.json?.code], add.stdout + add.stderr).toEqual([4, 'STORE_WRITE_FAILED']);
    expect(hf(home, ['brief', 'list']).json?.briefs[0]).toMatchObject({ name: 'pay', evidence_count: 0 });
  });
});
