import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import {
  dbFile,
  draftPath,
  envelopeIn,
  expectCleanFailure,
  mintDraft,
  prefix,
  runJson,
  seedRow,
  withStore,
  writeDraft,
} from '../helpers/store-cli.js';

const HOUR = 3_600_000;
const gc = (home: string, ...args: string[]) => runJson(home, ['contract', 'gc', ...args]);

function draftAged(home: string, ageMs: number, id = mintDraft()): string {
  const path = writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
  return id;
}

function setAge(path: string, ageMs: number): void {
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
}

describe('contract gc', () => {
  it('no store: only aged drafts and old temp files go; other files are left alone; no store is created', () => {
    const home = tempHome();
    const old = draftAged(home, 8 * 24 * HOUR);
    const young = draftAged(home, 6 * 24 * HOUR);
    // The writer pid in a temp name must be gone for the temp to go: one that surely is.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const oldTemp = join(home, 'drafts', `.${old}.${dead}.abcd1234.tmp`);
    const youngTemp = join(home, 'drafts', `.${young}.${dead}.abcd1234.tmp`);
    writeFileSync(oldTemp, '{');
    writeFileSync(youngTemp, '{');
    setAge(oldTemp, 2 * HOUR);
    const stranger = join(home, 'drafts', 'notes.json');
    writeFileSync(stranger, '{}');
    setAge(stranger, 30 * 24 * HOUR);
    const r = gc(home);
    expect(r.code).toBe(0);
    expect(r.json.status).toBe('ok');
    expect(r.json.dry_run).toBe(false);
    expect(r.json.kept).toBe(1);
    expect(r.json.removed.map((x: any) => [x.draft_id, x.reason, x.agent_state])).toEqual([
      [old, 'aged', null],
      [old, 'temp', null],
    ]);
    expect(r.json.removed[0].age_hours).toBeGreaterThan(191);
    expect(r.json.removed[0].mtime).toMatch(/Z$/);
    expect(existsSync(draftPath(home, old))).toBe(false);
    expect(existsSync(draftPath(home, young))).toBe(true);
    expect(existsSync(oldTemp)).toBe(false);
    expect(existsSync(youngTemp)).toBe(true);
    expect(existsSync(stranger)).toBe(true);
    expect(existsSync(dbFile(home))).toBe(false);
  });

  it('spent: a closed row past the grace window; DISPATCHED, IN_PROGRESS and young closed drafts are kept; rows never touched', () => {
    const home = tempHome();
    const spent = draftAged(home, 25 * HOUR);
    const inGrace = draftAged(home, 23 * HOUR);
    const dispatched = draftAged(home, 48 * HOUR);
    const captured = draftAged(home, 48 * HOUR);
    const noRow = draftAged(home, 48 * HOUR);
    seedRow(home, { contract_id: spent, agent_state: 'COMPLETE' });
    seedRow(home, { contract_id: inGrace, agent_state: 'NEEDS_INPUT' });
    seedRow(home, { contract_id: dispatched });
    seedRow(home, { contract_id: captured, agent_state: 'IN_PROGRESS' });
    const r = gc(home);
    expect(r.json.removed).toEqual([
      expect.objectContaining({ draft_id: spent, reason: 'spent', agent_state: 'COMPLETE' }),
    ]);
    expect(r.json.kept).toBe(4);
    for (const id of [inGrace, dispatched, captured, noRow]) expect(existsSync(draftPath(home, id))).toBe(true);
    expect(withStore(home, (db) => (db.prepare('SELECT COUNT(*) AS n FROM handoffs').get() as { n: number }).n)).toBe(
      4,
    );
    const shorter = gc(home, '--grace-hours', '0');
    expect(shorter.json.removed.map((x: any) => x.draft_id)).toEqual([inGrace]);
    const aged = gc(home, '--max-age-days', '1');
    expect(aged.json.removed.map((x: any) => x.reason)).toEqual(['aged', 'aged', 'aged']);
  });

  it('--dry-run reports the same selection and deletes nothing', () => {
    const home = tempHome();
    draftAged(home, 9 * 24 * HOUR);
    const spent = draftAged(home, 30 * HOUR);
    seedRow(home, { contract_id: spent, agent_state: 'BLOCKED' });
    const before = snapshot(home);
    const preview = gc(home, '--dry-run');
    expect(preview.json.dry_run).toBe(true);
    expect(snapshot(home)).toEqual(before);
    const human = run(home, ['contract', 'gc', '--dry-run']).stdout;
    expect(human).toMatch(/^would remove a[0-9a-f]+\.[0-9a-f]+ \(aged, /m);
    expect(human.trimEnd().split('\n').pop()).toBe('Would remove 2 draft(s), kept 0.');
    const sweep = gc(home);
    expect(sweep.json.removed.map((x: any) => [x.draft_id, x.reason])).toEqual(
      preview.json.removed.map((x: any) => [x.draft_id, x.reason]),
    );
    expect(run(home, ['contract', 'gc']).stdout).toBe('Removed 0 draft(s), kept 0.\n');
  });

  it('a draft whose lock is held is kept', () => {
    const home = tempHome();
    const id = draftAged(home, 10 * 24 * HOUR);
    writeFileSync(
      join(home, 'drafts', `${id}.lock`),
      `${JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token: 'x' })}\n`,
    );
    const r = gc(home);
    expect(r.json).toMatchObject({ removed: [], kept: 1 });
    expect(existsSync(draftPath(home, id))).toBe(true);
  });

  it('an unreadable store is exit 4 and nothing is deleted; bad numbers are exit 2', () => {
    const home = tempHome();
    draftAged(home, 10 * 24 * HOUR);
    writeFileSync(dbFile(home), 'not a database, only text. '.repeat(40));
    const before = snapshot(home);
    expectCleanFailure(gc(home), 4, 'STORE_UNREADABLE');
    expect(snapshot(home)).toEqual(before);
    for (const args of [
      ['--max-age-days', '0'],
      ['--max-age-days', '1.5'],
      ['--grace-hours', '-1'],
      ['--grace-hours', 'x'],
    ]) {
      expectCleanFailure(gc(home, ...args), 2, 'USAGE');
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('an unreadable store with no draft files still refuses (exit 4) before deleting an old temp file', () => {
    const home = tempHome();
    const id = mintDraft();
    mkdirSync(join(home, 'drafts'), { recursive: true, mode: 0o700 });
    const oldTemp = join(home, 'drafts', `.${id}.123.abcd1234.tmp`);
    writeFileSync(oldTemp, '{');
    setAge(oldTemp, 3 * HOUR);
    writeFileSync(dbFile(home), 'not a database, only text. '.repeat(40));
    const before = snapshot(home);
    expectCleanFailure(gc(home), 4, 'STORE_UNREADABLE');
    expectCleanFailure(gc(home, '--dry-run'), 4, 'STORE_UNREADABLE');
    const human = run(home, ['contract', 'gc']);
    expect(human.code).toBe(4);
    expect(human.stdout).toBe('');
    expect(existsSync(oldTemp)).toBe(true);
    expect(snapshot(home)).toEqual(before);
  });

  it('integer flags are canonical decimal: a leading zero or a sign is exit 2; --grace-hours 0 is accepted', () => {
    const home = tempHome();
    for (const args of [
      ['--max-age-days', '07'],
      ['--max-age-days', '+7'],
      ['--grace-hours', '00'],
      ['--grace-hours', '024'],
    ]) {
      expectCleanFailure(gc(home, ...args), 2, 'USAGE');
    }
    expect(gc(home, '--grace-hours', '0', '--max-age-days', '1').code).toBe(0);
  });
});
