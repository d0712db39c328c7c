/**
 * `contract gc` also removes debris: draft temp files, evidence temp blobs and spill folders older
 * than 1 hour whose owner pid (in the name) is not alive, and blobs no row references older than the age rule (7
 * days) when the store exists, is readable, and every referenced blob is present. `--dry-run` lists and removes
 * nothing. Ages are set with utimes, never waited for.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, tempHome } from '../helpers/cli.js';
import { initDraft } from '../helpers/drafts.js';
import { dbFile, expectCleanFailure, runJson } from '../helpers/store-cli.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const gc = (home: string, ...args: string[]) => runJson(home, ['contract', 'gc', ...args]);
/** A pid that surely belonged to a process that is gone. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid;
const LIVE = process.pid;

function aged(path: string, ageMs: number): string {
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
  return path;
}

function file(path: string, ageMs: number, body = 'x'): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, body);
  return aged(path, ageMs);
}

function spill(home: string, pid: number, ageMs: number): string {
  const dir = join(home, 'tmp', `spill-${pid}-Ab12Cd`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'stdout'), 'partial output');
  return aged(dir, ageMs);
}

/** A brief with one referenced blob (evidence add of > 4096 bytes); returns its stored path. */
function referencedBlob(home: string): string {
  expect(runJson(home, ['brief', 'add', 'b', '--workspace', 'ws']).code).toBe(0);
  const r = runJson(home, [
    'evidence',
    'add',
    '--brief',
    'b',
    '--ac',
    'AC-1',
    '--type',
    'text',
    '--text',
    'r'.repeat(5000),
    '--workspace',
    'ws',
  ]);
  expect(r.code, r.stdout).toBe(0);
  return r.json.evidence.artifact_path as string;
}

const kinds = (json: any): [string, string][] =>
  (json.debris as { kind: string; path: string }[]).map((d): [string, string] => [d.kind, d.path]).sort();

describe('gc removes abandoned debris', () => {
  it('draft temps, evidence temps and spill folders: old and owner gone → removed; live owner or young → kept', () => {
    const home = tempHome();
    const id = initDraft(home);
    const dead = deadPid();
    const drafts = join(home, 'drafts');
    const oldDeadTemp = file(join(drafts, `.${id}.${dead}.abcd1234.tmp`), 2 * HOUR, '{');
    const oldDeadLockTemp = file(join(drafts, `.${id}.${dead}.abcd1234.lock.tmp`), 2 * HOUR, '{');
    const oldLiveTemp = file(join(drafts, `.${id}.${LIVE}.abcd1234.tmp`), 2 * HOUR, '{');
    const youngDeadTemp = file(join(drafts, `.${id}.${dead}.beef0000.tmp`), 10 * 60_000, '{');
    const evDir = join(home, 'evidence', 'ws', 'b', 'AC-1');
    const evOldDead = file(join(evDir, `.${randomUUID()}.${dead}.tmp`), 2 * HOUR);
    const evOldLive = file(join(evDir, `.${randomUUID()}.${LIVE}.tmp`), 2 * HOUR);
    const evLegacy = file(join(evDir, `.${randomUUID()}.tmp`), 2 * HOUR);
    const evYoung = file(join(evDir, `.${randomUUID()}.${dead}.tmp`), 10 * 60_000);
    const spillOldDead = spill(home, dead, 2 * HOUR);
    const spillOldLive = spill(home, LIVE, 2 * HOUR);
    const spillYoungDead = spill(home, deadPid(), 10 * 60_000);

    const preview = snapshot(home);
    const dry = gc(home, '--dry-run');
    expect(dry.code, dry.stdout).toBe(0);
    expect(snapshot(home)).toEqual(preview);

    const r = gc(home);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.removed.map((x: any) => [x.reason, x.draft_id]).sort()).toEqual([
      ['temp', id],
      ['temp', id],
    ]);
    expect(kinds(r.json)).toEqual(
      [
        ['evidence_temp', evLegacy],
        ['evidence_temp', evOldDead],
        ['spill', spillOldDead],
      ].sort(),
    );
    expect(kinds(dry.json)).toEqual(kinds(r.json));
    for (const gone of [oldDeadTemp, oldDeadLockTemp, evOldDead, evLegacy, spillOldDead])
      expect(existsSync(gone), gone).toBe(false);
    for (const kept of [oldLiveTemp, youngDeadTemp, evOldLive, evYoung, spillOldLive, spillYoungDead])
      expect(existsSync(kept), kept).toBe(true);
  });

  it('unreferenced blobs older than the age rule go; referenced, young and non-file entries stay; emptied folders are pruned', () => {
    const home = tempHome();
    const ref = aged(referencedBlob(home), 30 * DAY);
    const orphanDir = join(home, 'evidence', 'ws', 'old-brief', 'AC-9');
    const orphan = file(join(orphanDir, `${randomUUID()}.txt`), 8 * DAY);
    const youngOrphan = file(join(home, 'evidence', 'ws', 'b', 'AC-1', `${randomUUID()}.txt`), 6 * DAY);
    const receiptOrphan = file(join(home, 'evidence', 'ws', '_receipts', 'R-0123456789abcdef', 'stdout'), 9 * DAY);
    const outside = file(join(tempHome(), 'outside.txt'), 30 * DAY);
    const link = join(home, 'evidence', 'ws', 'b', 'AC-1', 'link.txt');
    symlinkSync(outside, link);
    const r = gc(home);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.blobs).toEqual({ status: 'done' });
    expect(kinds(r.json)).toEqual(
      [
        ['blob', orphan],
        ['blob', receiptOrphan],
      ].sort() as [string, string][],
    );
    expect(existsSync(ref)).toBe(true);
    expect(existsSync(youngOrphan)).toBe(true);
    expect([lstatSync(link).isSymbolicLink(), existsSync(outside)]).toEqual([true, true]);
    expect(existsSync(join(home, 'evidence', 'ws', 'old-brief'))).toBe(false);
    expect(existsSync(join(home, 'evidence', 'ws', '_receipts'))).toBe(false);
    expect(existsSync(join(home, 'evidence'))).toBe(true);
    // --max-age-days moves the blob rule with the draft rule.
    expect(kinds(gc(home, '--max-age-days', '5').json)).toEqual([['blob', youngOrphan]]);
  });

  it('no blob is removed without a store, or while a referenced blob is missing; the sweep says why', () => {
    const noStore = tempHome();
    const lonely = file(join(noStore, 'evidence', 'ws', 'b', 'AC-1', `${randomUUID()}.bin`), 30 * DAY);
    const a = gc(noStore);
    expect([a.code, a.json.blobs.status, a.json.debris]).toEqual([0, 'skipped', []]);
    expect(a.json.blobs.reason).toMatch(/no store/);
    expect(existsSync(lonely)).toBe(true);
    expect(existsSync(dbFile(noStore))).toBe(false);

    const home = tempHome();
    const ref = referencedBlob(home);
    rmSync(ref);
    const orphan = file(join(home, 'evidence', 'ws', 'b', 'AC-2', `${randomUUID()}.txt`), 30 * DAY);
    const temp = file(join(home, 'evidence', 'ws', 'b', 'AC-2', `.${randomUUID()}.${deadPid()}.tmp`), 2 * HOUR);
    const r = gc(home);
    expect(r.code).toBe(0);
    expect(r.json.blobs).toMatchObject({ status: 'skipped', missing: [ref] });
    expect(kinds(r.json)).toEqual([['evidence_temp', temp]]);
    expect(existsSync(orphan)).toBe(true);
  });

  it('an unreadable store: exit 4 and nothing removed, debris included', () => {
    const home = tempHome();
    const temp = file(join(home, 'evidence', 'ws', 'b', 'AC-1', `.${randomUUID()}.${deadPid()}.tmp`), 2 * HOUR);
    spill(home, deadPid(), 2 * HOUR);
    writeFileSync(dbFile(home), 'not a database, just enough text to be read as a header ..................');
    const before = snapshot(home);
    expectCleanFailure(gc(home), 4, 'STORE_UNREADABLE');
    expect(snapshot(home)).toEqual(before);
    expect(existsSync(temp)).toBe(true);
    expect(readdirSync(join(home, 'tmp'))).toHaveLength(1);
  });
});
