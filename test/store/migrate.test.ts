import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPLICATION_ID, closeDb, openProbe, openReader, openWriter, type Db } from '../../src/store/db.js';
import { approvalLookup, getApproval, listApprovals, markApprovalUsed } from '../../src/store/sqlite-rows.js';
import { currentVersion, latestVersion, listMigrations, migrate } from '../../src/store/migrate.js';
import {
  buildAt,
  caught,
  migrationsDir,
  rawDb,
  schemaOf,
  schemaSnapshot,
  tempDir,
  tempStore,
} from '../helpers/store.js';

const REPO = join(import.meta.dirname, '..', '..');
const SNAPSHOT = join(REPO, 'test', 'fixtures', 'schema.snapshot.sql');

function fresh(): Db {
  const { env } = tempStore();
  const db = openWriter(env, undefined, { create: true });
  if (db === null) throw new Error('no db');
  return db;
}

describe('migration files', () => {
  it('are numbered 0001… contiguously and contain no transaction or journal/foreign_keys statements', () => {
    const list = listMigrations();
    expect(list.map((m) => m.version)).toEqual(list.map((_, i) => i + 1));
    expect(list.map((m) => m.name)).toEqual([
      '0001_init.sql',
      '0002_receipts.sql',
      '0003_turn_times.sql',
      '0004_approval_use.sql',
      '0005_attestations.sql',
      '0006_list_indexes.sql',
      '0007_mirror_rev.sql',
      '0008_test_changes.sql',
      '0009_approval_gate.sql',
      '0010_claim_tokens.sql',
      '0011_lock_keys.sql',
      '0012_verification_policy.sql',
    ]);
    for (const m of list) {
      const sql = readFileSync(m.path, 'utf8').replace(/--.*$/gm, '');
      expect(sql).not.toMatch(
        /^\s*(BEGIN\s*(TRANSACTION|IMMEDIATE|DEFERRED|EXCLUSIVE)?\s*;|COMMIT|ROLLBACK|END\s+TRANSACTION)/im,
      );
      expect(sql).not.toMatch(/PRAGMA\s+(journal_mode|foreign_keys)/i);
    }
  });

  it('a gap, a duplicate or a malformed name is a packaging bug (INTERNAL, exit 70)', () => {
    const gap = migrationsDir(1, { '0003_x.sql': 'SELECT 1;' });
    expect(caught(() => listMigrations(gap))).toMatchObject({ code: 'INTERNAL', exit: 70 });
    const dup = migrationsDir(2, { '0002_again.sql': 'SELECT 1;' });
    expect(caught(() => listMigrations(dup))).toMatchObject({ code: 'INTERNAL', exit: 70 });
    const bad = migrationsDir(2, { '3_bad.sql': 'SELECT 1;' });
    expect(caught(() => listMigrations(bad))).toMatchObject({ code: 'INTERNAL', exit: 70 });
  });
});

describe('fresh store', () => {
  it('is created with 0700 folders, a 0600 file, WAL, the application id and every version stamped', () => {
    const { dir, file, env } = tempStore();
    const nested = { ...env, HANDOFF_DB: join(dir, 'a', 'b', 'handoff.db') };
    const db = openWriter(nested, undefined, { create: true })!;
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'a', 'b', 'handoff.db')).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    const versions = db.prepare('SELECT version, name, checksum FROM schema_version ORDER BY version').all();
    expect(versions).toHaveLength(latestVersion());
    closeDb(db);
    expect(existsSync(file)).toBe(false);
  });

  it('a writer without create, a reader and a probe never create the file', () => {
    const { file, env } = tempStore();
    expect(openWriter(env, undefined, { create: false })).toBeNull();
    expect(openReader(env)).toBeNull();
    expect(openProbe(env)).toBeNull();
    expect(existsSync(file)).toBe(false);
  });

  it('matches the committed snapshot (test/fixtures/schema.snapshot.sql)', () => {
    const db = fresh();
    const text = schemaSnapshot(db);
    closeDb(db);
    if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, text);
    expect(text).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });
});

describe('upgrade paths equal a fresh build', () => {
  it('for every k in 1…N-1: files 1…k, then the runner, gives the fresh schema', () => {
    const reference = schemaOf(fresh());
    for (let k = 1; k < latestVersion(); k++) {
      const { file, env } = tempStore();
      closeDb(buildAt(file, k));
      const db = openWriter(env, undefined, { create: false })!;
      expect(currentVersion(db)).toBe(latestVersion());
      expect(schemaOf(db)).toEqual(reference);
      closeDb(db);
    }
  });

  it('a version-11 store: its rows get the verification policy any and no checks; the policy is frozen', () => {
    const { file, env } = tempStore();
    const v11 = buildAt(file, 11);
    v11
      .prepare(
        `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, require_receipt)
         VALUES ('a0000000000000001.000000000001', 'a0000000000000001', 'ws', 'DISPATCHED', 'never_finalized', '{}', 1)`,
      )
      .run();
    closeDb(v11);
    const db = openWriter(env, undefined, { create: false })!;
    expect(currentVersion(db)).toBe(latestVersion());
    expect(db.prepare('SELECT verification, checks_json, receipt_freshness_json FROM handoffs').get()).toEqual({
      verification: 'any',
      checks_json: null,
      receipt_freshness_json: null,
    });
    expect(caught(() => db.prepare("UPDATE handoffs SET verification = 'receipt'").run()).message).toMatch(
      /frozen column/,
    );
    closeDb(db);
  });

  it('a version-1 store with rows keeps them; handoffs get require_receipt = 0, evidence receipt_id NULL', () => {
    const { file, env } = tempStore();
    const v1 = buildAt(file, 1);
    expect(currentVersion(v1)).toBe(1);
    v1.prepare("INSERT INTO briefs (workspace, name) VALUES ('ws', 'b1')").run();
    v1.prepare(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, plan_task_id)
       VALUES ('a0000000000000001.000000000001', 'a0000000000000001', 'ws', 'DISPATCHED', 'never_finalized', '{}', 'T-1'),
              ('a0000000000000001.000000000002', 'a0000000000000001', 'ws', 'COMPLETE', NULL, '{"x":1}', NULL)`,
    ).run();
    v1.prepare(
      `INSERT INTO evidence (brief_id, ac_id, type, text, size_bytes, sha256, handoff_id)
       VALUES (1, 'AC-1', 'text', 'hello', 5, '${'a'.repeat(64)}', 2)`,
    ).run();
    closeDb(v1);

    // A probe reads the version-1 store as it is (no migration) and sees require_receipt as 0.
    const probe = openProbe(env)!;
    expect(currentVersion(probe)).toBe(1);
    closeDb(probe);

    const db = openWriter(env, undefined, { create: false })!;
    expect(currentVersion(db)).toBe(latestVersion());
    const rows = db
      .prepare('SELECT contract_id, agent_state, plan_task_id, require_receipt FROM handoffs ORDER BY id')
      .all();
    expect(rows).toEqual([
      {
        contract_id: 'a0000000000000001.000000000001',
        agent_state: 'DISPATCHED',
        plan_task_id: 'T-1',
        require_receipt: 0,
      },
      {
        contract_id: 'a0000000000000001.000000000002',
        agent_state: 'COMPLETE',
        plan_task_id: null,
        require_receipt: 0,
      },
    ]);
    expect(db.prepare('SELECT ac_id, text, receipt_id, handoff_id FROM evidence').all()).toEqual([
      { ac_id: 'AC-1', text: 'hello', receipt_id: null, handoff_id: 2 },
    ]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM briefs').get()).toEqual({ n: 1 });
    closeDb(db);
  });

  it('a version-3 store keeps its approvals through 0004; used is reached only from approved and is final', () => {
    const { file, env } = tempStore();
    const v3 = buildAt(file, 3);
    v3.prepare(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, raw_handoff_json)
       VALUES ('a0000000000000001.000000000001', 'a0000000000000001', 'ws', 'COMPLETE', '{}')`,
    ).run();
    const sha = 'b'.repeat(64);
    v3.prepare(
      `INSERT INTO approvals (id, workspace, agent_id, contract_id, status, exact_content, fingerprint, decided_at, decided_by)
       VALUES ('P-1', 'ws', 'a0000000000000001', NULL, 'pending', 'x', '${sha}', NULL, NULL),
              ('P-2', 'ws', NULL, 'a0000000000000001.000000000001', 'approved', 'y', '${sha}', '2026-01-01T00:00:00.000Z', 'alice')`,
    ).run();
    closeDb(v3);

    // A probe reads the version-3 store as it is: the approval reads never name the new columns.
    const probe = openProbe(env)!;
    expect(currentVersion(probe)).toBe(3);
    expect(approvalLookup(probe)('P-2')).toMatchObject({ found: true, status: 'approved', usedByHandoffId: null });
    expect(getApproval(probe, 'P-2')).toMatchObject({ status: 'approved', used_at: null, used_by_handoff_id: null });
    expect(
      listApprovals(probe, { limit: 10 })
        .map((r) => r.id)
        .sort(),
    ).toEqual(['P-1', 'P-2']);
    closeDb(probe);

    const db = openWriter(env, undefined, { create: false })!;
    expect(currentVersion(db)).toBe(latestVersion());
    expect(
      db
        .prepare('SELECT id, status, decided_at, decided_by, used_at, used_by_handoff_id FROM approvals ORDER BY id')
        .all(),
    ).toEqual([
      { id: 'P-1', status: 'pending', decided_at: null, decided_by: null, used_at: null, used_by_handoff_id: null },
      {
        id: 'P-2',
        status: 'approved',
        decided_at: '2026-01-01T00:00:00.000Z',
        decided_by: 'alice',
        used_at: null,
        used_by_handoff_id: null,
      },
    ]);
    const refused = (sql: string): string => {
      try {
        db.prepare(sql).run();
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    const now = "'2026-02-01T00:00:00.000Z'";
    expect(
      refused(`UPDATE approvals SET status = 'used', used_at = ${now}, used_by_handoff_id = 1 WHERE id = 'P-1'`),
    ).toMatch(/transition refused/);
    expect(refused(`UPDATE approvals SET status = 'used' WHERE id = 'P-2'`)).toMatch(/CHECK constraint/);
    expect(
      refused(
        `UPDATE approvals SET status = 'used', used_at = ${now}, used_by_handoff_id = 1, decided_at = ${now} WHERE id = 'P-2'`,
      ),
    ).toMatch(/keeps its decision/);
    expect(markApprovalUsed(db, 'P-1', 1, '2026-02-01T00:00:00.000Z')).toBe(false);
    expect(markApprovalUsed(db, 'P-2', 1, '2026-02-01T00:00:00.000Z')).toBe(true);
    expect(getApproval(db, 'P-2')).toMatchObject({
      status: 'used',
      decided_at: '2026-01-01T00:00:00.000Z',
      decided_by: 'alice',
      used_by_handoff_id: 1,
    });
    expect(refused(`UPDATE approvals SET status = 'revoked' WHERE id = 'P-2'`)).toMatch(/transition refused|final/);
    expect(refused(`UPDATE approvals SET used_by_handoff_id = NULL WHERE id = 'P-2'`)).toMatch(/final|CHECK/);
    expect(
      db.prepare("SELECT COUNT(*) AS n FROM pragma_table_info('evidence') WHERE name = 'contract_id'").get(),
    ).toEqual({ n: 1 });
    closeDb(db);
  });

  it('a read verb migrates an older store; a probe does not', () => {
    const { file, env } = tempStore();
    closeDb(buildAt(file, 1));
    const probe = openProbe(env)!;
    expect(currentVersion(probe)).toBe(1);
    closeDb(probe);
    const reader = openReader(env)!;
    expect(currentVersion(reader)).toBe(latestVersion());
    closeDb(reader);
  });
});

describe('refusals', () => {
  it('a store stamped N+1 is refused on every path with exit 4 and stays byte-identical', () => {
    const { file, env } = tempStore();
    const db = buildAt(file, latestVersion());
    db.prepare("INSERT INTO schema_version VALUES (?, '9999_future.sql', ?, '2030-01-01T00:00:00.000Z')").run(
      latestVersion() + 1,
      'f'.repeat(64),
    );
    closeDb(db);
    const before = readFileSync(file);
    for (const open of [
      () => openWriter(env, undefined, { create: true }),
      () => openReader(env),
      () => openProbe(env),
    ]) {
      const e = caught(open);
      expect(e).toMatchObject({ code: 'STORE_SCHEMA_TOO_NEW', exit: 4 });
      expect(e.message).toContain(file);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a tampered checksum is STORE_MIGRATION_MISMATCH and nothing is applied', () => {
    const { file, env } = tempStore();
    const db = buildAt(file, 1);
    db.prepare('UPDATE schema_version SET checksum = ? WHERE version = 1').run('0'.repeat(64));
    closeDb(db);
    const e = caught(() => openWriter(env, undefined, { create: false }));
    expect(e).toMatchObject({ code: 'STORE_MIGRATION_MISMATCH', exit: 4 });
    const check = rawDb(file);
    expect(currentVersion(check)).toBe(1);
    closeDb(check);
  });

  it('an edited migration file is STORE_MIGRATION_MISMATCH', () => {
    const { file } = tempStore();
    const db = buildAt(file, 2);
    const edited = migrationsDir(1, {
      '0002_receipts.sql': `${readFileSync(listMigrations()[1].path, 'utf8')}\n-- edited\n`,
    });
    expect(caught(() => migrate(db, file, edited))).toMatchObject({ code: 'STORE_MIGRATION_MISMATCH', exit: 4 });
    closeDb(db);
  });

  it('a failing migration is rolled back whole and not stamped; earlier ones of the run stay', () => {
    const { file } = tempStore();
    const db = rawDb(file);
    const n = latestVersion();
    const bad = `${String(n + 1).padStart(4, '0')}_bad.sql`;
    const dir = migrationsDir(n, { [bad]: 'CREATE TABLE extra (a INTEGER);\nINSERT INTO no_such_table VALUES (1);\n' });
    const e = caught(() => migrate(db, file, dir));
    expect(e).toMatchObject({ code: 'STORE_MIGRATION_FAILED', exit: 4 });
    expect(e.message).toContain(bad);
    expect(currentVersion(db)).toBe(latestVersion());
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'extra'").get()).toBeUndefined();
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    closeDb(db);
  });

  it('a migration leaving a foreign key violation fails (foreign_key_check)', () => {
    const { file } = tempStore();
    const db = buildAt(file, 2);
    const dir = migrationsDir(2, {
      '0003_fk.sql':
        "INSERT INTO acceptance_criteria (brief_id, ac_id, description, position) VALUES (999, 'A', 'd', 1);",
    });
    expect(caught(() => migrate(db, file, dir))).toMatchObject({ code: 'STORE_MIGRATION_FAILED', exit: 4 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM acceptance_criteria').get()).toEqual({ n: 0 });
    closeDb(db);
  });

  it('a foreign SQLite file and a non-SQLite file are refused on every path', () => {
    const dir = tempDir();
    const foreign = join(dir, 'foreign.db');
    const f = rawDb(foreign);
    f.pragma('application_id = 42');
    f.exec('CREATE TABLE t (a)');
    closeDb(f);
    const noId = join(dir, 'noid.db');
    const n = rawDb(noId);
    n.exec('CREATE TABLE other (a)');
    closeDb(n);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not a SQLite database, just text. '.repeat(40));
    for (const [file, code] of [
      [foreign, 'STORE_FOREIGN_DB'],
      [noId, 'STORE_FOREIGN_DB'],
      [junk, 'STORE_UNREADABLE'],
    ] as const) {
      const env = { HANDOFF_DB: file };
      const before = readFileSync(file);
      for (const open of [
        () => openWriter(env, undefined, { create: true }),
        () => openReader(env),
        () => openProbe(env),
      ]) {
        const e = caught(open);
        expect(e, file).toMatchObject({ code, exit: 4 });
        expect(e.message).toContain(file);
        expect(e.message).not.toContain('\n');
      }
      expect(readFileSync(file).equals(before)).toBe(true);
    }
  });

  it('an empty file reads as no rows and a writer migrates it', () => {
    const { file, env } = tempStore();
    writeFileSync(file, '');
    const probe = openProbe(env)!;
    expect(currentVersion(probe)).toBe(0);
    closeDb(probe);
    expect(statSync(file).size).toBe(0);
    const db = openWriter(env, undefined, { create: false })!;
    expect(currentVersion(db)).toBe(latestVersion());
    closeDb(db);
  });
});
