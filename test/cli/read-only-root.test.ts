/**
 * Read verbs on a read-only data root or store file. Tests run as root here, and root ignores
 * permission bits, so "read-only" is made real with a read-only bind mount inside a private mount namespace
 * (`unshare -m`): the binary runs in the namespace, sees EROFS like any user would, and the mount disappears with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
import { BIN, snapshot, tempHome, type RunResult } from '../helpers/cli.js';
import { closeDraft, initDraft } from '../helpers/drafts.js';
import { buildAt } from '../helpers/store.js';
import { closeDb, type Db } from '../../src/store/db.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { dbFile, expectCleanFailure, mintDraft, runJson } from '../helpers/store-cli.js';

/** Runs `handoff ...args` with `target` (the data root or one file) mounted read-only for that process only. */
function runReadOnly(home: string, target: string, args: string[], input = ''): RunResult {
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_WORKSPACE;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', target, process.execPath, BIN, ...args], {
    env,
    cwd: home,
    input,
    encoding: 'utf8',
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** A store holding a brief, evidence, an approval, a dispatched row whose draft is gone, and a closed valid row. */
function populated(): { home: string; dispatched: string; closed: string } {
  const home = tempHome();
  expect(runJson(home, ['brief', 'add', 'b', '--workspace', 'ws', '--ac', 'AC-1=works']).code).toBe(0);
  expect(
    runJson(home, [
      'evidence',
      'add',
      '--brief',
      'b',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'ok',
      '--workspace',
      'ws',
    ]).code,
  ).toBe(0);
  expect(runJson(home, ['approval', 'request', '--content', 'x']).code).toBe(0);
  const d = runJson(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws']);
  const dispatched = d.json.contract_id as string;
  rmSync(join(home, 'drafts', `${dispatched}.json`));
  const closed = initDraft(home);
  closeDraft(home, closed);
  return { home, dispatched, closed };
}

describe('read verbs on a read-only data root', () => {
  it('list, chain, validate, brief and evidence reads, approval list and receipts work; nothing is written', () => {
    const { home, closed } = populated();
    const before = snapshot(home);
    const ok = (args: string[]): RunResult => {
      const r = runReadOnly(home, home, [...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      return r;
    };
    expect(ok(['contract', 'list']).json).toMatchObject({ status: 'ok', count: 2 });
    expect(ok(['contract', 'chain', '--draft-id', closed]).json).toMatchObject({ links: 1 });
    ok(['contract', 'validate', '--draft-id', closed]);
    expect(ok(['brief', 'list', '--workspace', 'ws']).json.count).toBe(1);
    ok(['brief', 'show', 'b', '--workspace', 'ws']);
    expect(ok(['evidence', 'list', '--brief', 'b', '--workspace', 'ws']).json.count).toBe(1);
    ok(['evidence', 'show', '1', '--verify']);
    expect(ok(['approval', 'list']).json.count).toBe(1);
    ok(['evidence', 'receipts', '--draft-id', closed]);
    expect(snapshot(home)).toEqual(before);
  });

  it('view of a dispatched row without a draft shows the row (envelope_source "row") instead of adopting', () => {
    const { home, dispatched } = populated();
    const before = snapshot(home);
    const r = runReadOnly(home, home, ['contract', 'view', '--draft-id', dispatched, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      status: 'ok',
      draft_id: dispatched,
      envelope_source: 'row',
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
    });
    expect(r.json.adopted).toBeUndefined();
    expect(snapshot(home)).toEqual(before);
  });

  it("the gate's look-ups work: a finalized valid row is allowed; the count goes to $TMPDIR/handoff-gate-<uid>/", () => {
    const { home, closed, dispatched } = populated();
    const before = snapshot(home);
    const allow = runReadOnly(home, home, [
      'contract',
      'gate',
      '--draft-id',
      closed,
      '--stop-reason',
      'end_turn',
      '--json',
    ]);
    expect([allow.code, allow.json?.decision], allow.stderr).toEqual([0, 'allow']);
    const block = runReadOnly(home, home, [
      'contract',
      'gate',
      '--draft-id',
      dispatched,
      '--stop-reason',
      'end_turn',
      '--json',
    ]);
    expect([block.code, block.json?.codes]).toEqual([2, ['ROW_NOT_FINALIZED']]);
    // Neither the store nor <root>/gate/ can hold the count: it is kept under $TMPDIR.
    expect([block.json.attempt, block.json.counter_error, block.json.count]).toEqual([1, undefined, undefined]);
    expect(snapshot(home)).toEqual(before);
  });

  it('a read-only store file in a writable root reads the same way', () => {
    const { home } = populated();
    const before = snapshot(home);
    const r = runReadOnly(home, dbFile(home), ['contract', 'list', '--json']);
    expect([r.code, r.json?.count]).toEqual([0, 2]);
    expect(snapshot(home)).toEqual(before);
  });

  it('a writer killed mid-use left -wal and -shm: every read verb works and sees the latest write; nothing written', () => {
    const { home, closed } = populated();
    killedWriter(dbFile(home), "INSERT INTO briefs (workspace, name) VALUES ('ws', 'late')");
    expect(existsSync(`${dbFile(home)}-wal`) && existsSync(`${dbFile(home)}-shm`)).toBe(true);
    // An aged draft: the dry run reports it without taking its lock (no lock file can be made here).
    const aged = initDraft(home);
    const old = new Date(Date.now() - 30 * 86_400_000);
    utimesSync(join(home, 'drafts', `${aged}.json`), old, old);
    const before = snapshot(home);
    const ok = (args: string[]): RunResult => {
      const r = runReadOnly(home, home, [...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      return r;
    };
    expect(ok(['contract', 'list']).json.count).toBe(2);
    expect(ok(['brief', 'list', '--workspace', 'ws']).json.briefs.map((b: { name: string }) => b.name)).toEqual([
      'b',
      'late',
    ]);
    expect(ok(['evidence', 'list', '--brief', 'b', '--workspace', 'ws']).json.count).toBe(1);
    ok(['evidence', 'show', '1', '--verify']);
    ok(['evidence', 'receipts', '--draft-id', closed]);
    ok(['evidence', 'orphans']);
    expect(ok(['approval', 'list']).json.count).toBe(1);
    ok(['contract', 'validate', '--draft-id', closed]);
    const gc = ok(['contract', 'gc', '--dry-run']);
    expect(gc.json.removed.map((r: { draft_id: string; reason: string }) => [r.draft_id, r.reason])).toEqual([
      [aged, 'aged'],
    ]);
    expect(snapshot(home)).toEqual(before);
  });

  it('an empty -wal file is read past; a -wal with content but no -shm: STORE_UNREADABLE (exit 4) naming it', () => {
    const { home } = populated();
    writeFileSync(`${dbFile(home)}-wal`, '');
    expect(runReadOnly(home, home, ['contract', 'list', '--json']).json?.count).toBe(2);
    killedWriter(dbFile(home), "INSERT INTO briefs (workspace, name) VALUES ('ws', 'late')");
    rmSync(`${dbFile(home)}-shm`);
    const before = snapshot(home);
    const r = runReadOnly(home, home, ['contract', 'list', '--json']);
    expectCleanFailure(r, 4, 'STORE_UNREADABLE');
    expect(r.json.error).toContain('-wal');
    expect(snapshot(home)).toEqual(before);
  });

  it('an older schema is read as it is where the query allows, else STORE_NEEDS_MIGRATION (exit 4); never migrated', () => {
    const home = tempHome();
    const v1 = buildAt(dbFile(home), 1);
    closeDb(v1);
    const id = mintDraft();
    seedRowV1(home, id);
    writeBrief(home);
    const before = snapshot(home);
    const list = runReadOnly(home, home, ['contract', 'list', '--json']);
    expect([list.code, list.json?.count], list.stdout + list.stderr).toEqual([0, 1]);
    expect(list.json.handoffs[0]).toMatchObject({ contract_id: id, require_receipt: false, finalized_at: null });
    expect(runReadOnly(home, home, ['contract', 'chain', '--draft-id', id, '--json']).code).toBe(0);
    // The evidence listing reads evidence.receipt_id (added by migration 0002): this schema cannot answer it.
    const ev = runReadOnly(home, home, ['evidence', 'list', '--brief', 'b', '--workspace', 'ws', '--json']);
    expectCleanFailure(ev, 4, 'STORE_NEEDS_MIGRATION');
    expect(snapshot(home)).toEqual(before);
    // Nothing migrated it: still version 1.
    expect(versionOf(home)).toBe(1);
  });
});

/** A process that writes `sql` to the store in WAL mode and is killed before it closes: -wal and -shm stay. */
function killedWriter(file: string, sql: string): void {
  const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(${JSON.stringify(file)}); db.pragma('journal_mode = WAL'); db.exec(${JSON.stringify(sql)}); process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['-e', script]);
  expect(r.signal).toBe('SIGKILL');
}

function seedRowV1(home: string, id: string): void {
  const db = rawV1(home);
  db.prepare(
    `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, created_at, updated_at)
     VALUES (?, ?, 'ws', 'BLOCKED', NULL, '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  ).run(id, id.split('.')[0]);
  db.close();
}

function writeBrief(home: string): void {
  const db = rawV1(home);
  db.prepare("INSERT INTO briefs (workspace, name) VALUES ('ws', 'b')").run();
  db.close();
}

function rawV1(home: string): Db {
  const Database = loadSqlite();
  return new Database(dbFile(home));
}

function versionOf(home: string): number {
  const db = rawV1(home);
  try {
    return (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v;
  } finally {
    db.close();
  }
}
