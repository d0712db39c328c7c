/**
 * Open modes and migrations through the Store interface, on both backends: no store yet, fresh = upgraded, too new, checksum mismatch, a failing migration,
 * concurrent migrators, a foreign schema.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listMigrations } from '../../../src/store/migrate.js';
import { BACKENDS, dist, rejection, runNode, type Backend } from '../../helpers/store-backends.js';

/** A migrations folder holding the backend's files 1…k, plus `extra` files (name → SQL). */
function cut(b: Backend, k: number, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-migrations-'));
  for (const m of listMigrations(b.migrations).slice(0, k)) copyFileSync(m.path, join(dir, m.name));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  return dir;
}

const LATEST = listMigrations().length;
const AGENT = 'a0123456789abcdef';

describe('migration files', () => {
  it('migrations/postgres mirrors migrations/ file by file (same names, same numbering)', () => {
    const sqlite = listMigrations(BACKENDS[0].migrations).map((m) => m.name);
    const postgres = listMigrations(BACKENDS[1].migrations).map((m) => m.name);
    expect(postgres).toEqual(sqlite);
  });

  it('no PostgreSQL file holds a transaction statement of its own (the runner owns them)', () => {
    for (const name of readdirSync(BACKENDS[1].migrations)) {
      const text = readFileSync(join(BACKENDS[1].migrations, name), 'utf8').replace(/--.*$/gm, '');
      expect(text, name).not.toMatch(
        /^\s*(BEGIN\s*(TRANSACTION|WORK|ISOLATION.*)?\s*;|COMMIT|ROLLBACK|START\s+TRANSACTION|END\s*;)/im,
      );
    }
  });
});

describe.each(BACKENDS)('$name: open modes', (b) => {
  it('without a store, a probe, a reader and a writer without create open nothing and create nothing', async () => {
    const f = await b.fresh();
    expect(await f.open('probe')).toBeNull();
    expect(await f.open('reader')).toBeNull();
    expect(await f.open('writer', { create: false })).toBeNull();
    if (b.name === 'sqlite') expect(existsSync(f.env.HANDOFF_DB as string)).toBe(false);
    else
      expect(
        await f.all('SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()'),
      ).toEqual([]);
  });

  it('a writer with create migrates to the latest version; probes and readers then open it', async () => {
    const f = await b.fresh();
    const w = await f.writer();
    expect(w).toMatchObject({ kind: b.name, version: LATEST });
    // Only PostgreSQL keeps blobs in the store; SQLite has no blob capability at all.
    expect(w.blobs !== undefined).toBe(b.name === 'postgres');
    await w.close();
    expect(await f.version()).toBe(LATEST);
    const rows = await f.all('SELECT version, name FROM schema_version ORDER BY version');
    expect(rows.map((r) => [Number(r.version), r.name])).toEqual(listMigrations().map((m) => [m.version, m.name]));
    for (const mode of ['probe', 'reader'] as const) {
      const s = await f.open(mode);
      expect(s?.version).toBe(LATEST);
      await s?.close();
    }
  });

  it('a store opened as probe or reader refuses to write (INTERNAL) and writes nothing', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    for (const mode of ['probe', 'reader'] as const) {
      const s = (await f.open(mode))!;
      const e = await rejection(
        s.tx((t) => t.insertApproval({ workspace: 'ws', agent_id: null, contract_id: null, exact_content: 'c' })),
      );
      expect(e).toMatchObject({ code: 'INTERNAL', exit: 70 });
      await s.close();
    }
    expect(await f.all('SELECT id FROM approvals')).toEqual([]);
  });

  it('the location names the store; a PostgreSQL URL without its password', async () => {
    const f = await b.fresh();
    const w = await f.writer();
    if (b.name === 'sqlite') expect(w.location).toBe(f.env.HANDOFF_DB);
    else {
      const password = new URL(f.env.HANDOFF_STORE_URL as string).password;
      expect(password.length).toBeGreaterThan(8);
      expect(w.location).not.toContain(password);
      expect(w.location).toContain('***');
    }
    await w.close();
  });
});

describe.each(BACKENDS)('$name: migrations', (b) => {
  it('for every k in 1…N-1: files 1…k, then the runner, gives the schema of a fresh build', async () => {
    const fresh = await b.fresh();
    await (await fresh.writer()).close();
    const reference = await fresh.schema();
    for (let k = 1; k < LATEST; k++) {
      const f = await b.fresh();
      await (await f.writer({ migrationsDir: cut(b, k) })).close();
      expect(await f.version()).toBe(k);
      const w = await f.writer();
      expect(w.version).toBe(LATEST);
      await w.close();
      expect(await f.schema()).toEqual(reference);
    }
  });

  it('an older store as the stop gate opens it (a probe on SQLite, a writer told not to migrate on PostgreSQL) is read as it is and not migrated', async () => {
    const f = await b.fresh();
    await (await f.writer({ migrationsDir: cut(b, LATEST - 1) })).close();
    const s = b.name === 'sqlite' ? await f.open('probe') : await f.open('writer', { migrate: false });
    expect(s!.version).toBe(LATEST - 1);
    await s!.close();
    expect(await f.version()).toBe(LATEST - 1);
    // A writer verb then migrates it as before.
    await (await f.writer()).close();
    expect(await f.version()).toBe(LATEST);
  });

  it('a version-1 store keeps its rows: require_receipt 0, receipt_id NULL; a probe reads it as it is', async () => {
    const f = await b.fresh();
    await (await f.writer({ migrationsDir: cut(b, 1) })).close();
    await f.exec("INSERT INTO briefs (workspace, name) VALUES ('ws', 'b1')");
    await f.exec(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json)
       VALUES ('${AGENT}.000000000001', '${AGENT}', 'ws', 'COMPLETE', NULL, '{"x":1}')`,
    );
    await f.exec(
      `INSERT INTO evidence (brief_id, ac_id, type, text, size_bytes, sha256, handoff_id)
       VALUES (1, 'AC-1', 'text', 'hello', 5, '${'a'.repeat(64)}', 1)`,
    );
    const probe = (await f.open('probe'))!;
    expect(probe.version).toBe(1);
    expect(await probe.getHandoffByContractId(`${AGENT}.000000000001`)).toMatchObject({
      require_receipt: 0,
      agent_state: 'COMPLETE',
    });
    expect(await probe.getReceipt('R-0123456789abcdef')).toBeUndefined();
    await probe.close();
    expect(await f.version()).toBe(1);

    const reader = (await f.open('reader'))!;
    expect(reader.version).toBe(LATEST);
    expect(await reader.getHandoffByContractId(`${AGENT}.000000000001`)).toMatchObject({
      require_receipt: 0,
      raw_handoff_json: '{"x":1}',
    });
    expect(await reader.getEvidence(1)).toMatchObject({ text: 'hello', receipt_id: null, handoff_id: 1, brief: 'b1' });
    await reader.close();
  });

  it('a store stamped N+1 is refused on every path (STORE_SCHEMA_TOO_NEW, exit 4) and left as it was', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    await f.exec(
      `INSERT INTO schema_version VALUES (${LATEST + 1}, '9999_future.sql', '${'f'.repeat(64)}', '2030-01-01T00:00:00.000Z')`,
    );
    const before = await f.schema();
    for (const mode of ['writer', 'reader', 'probe'] as const) {
      const e = await rejection(f.open(mode, { create: true }));
      expect(e, mode).toMatchObject({ code: 'STORE_SCHEMA_TOO_NEW', exit: 4 });
      expect(e.message).not.toContain('\n');
    }
    expect(await f.schema()).toEqual(before);
    expect(await f.version()).toBe(LATEST + 1);
  });

  it('a tampered checksum is STORE_MIGRATION_MISMATCH and nothing is applied', async () => {
    const f = await b.fresh();
    await (await f.writer({ migrationsDir: cut(b, 1) })).close();
    await f.exec(`UPDATE schema_version SET checksum = '${'0'.repeat(64)}' WHERE version = 1`);
    expect(await rejection(f.open('writer'))).toMatchObject({ code: 'STORE_MIGRATION_MISMATCH', exit: 4 });
    expect(await rejection(f.open('reader'))).toMatchObject({ code: 'STORE_MIGRATION_MISMATCH', exit: 4 });
    expect(await f.version()).toBe(1);
  });

  it('an edited migration file is STORE_MIGRATION_MISMATCH', async () => {
    const f = await b.fresh();
    await (await f.writer({ migrationsDir: cut(b, 2) })).close();
    const second = listMigrations(b.migrations)[1];
    const edited = cut(b, 1, { [second.name]: `${readFileSync(second.path, 'utf8')}\n-- edited\n` });
    expect(await rejection(f.open('writer', { migrationsDir: edited }))).toMatchObject({
      code: 'STORE_MIGRATION_MISMATCH',
      exit: 4,
    });
    expect(await f.version()).toBe(2);
  });

  it('a failing migration is rolled back whole and not stamped; earlier ones of the run stay', async () => {
    const f = await b.fresh();
    const bad = `${String(LATEST + 1).padStart(4, '0')}_bad.sql`;
    const dir = cut(b, LATEST, { [bad]: 'CREATE TABLE extra (a INTEGER);\nINSERT INTO no_such_table VALUES (1);\n' });
    const e = await rejection(f.open('writer', { create: true, migrationsDir: dir }));
    expect(e).toMatchObject({ code: 'STORE_MIGRATION_FAILED', exit: 4 });
    expect(e.message).toContain(bad);
    expect(await f.version()).toBe(LATEST);
    expect(await rejection(f.all('SELECT a FROM extra'))).toHaveProperty('message');
  });

  it('tables without a handoff schema are STORE_FOREIGN_DB on every path, and left alone', async () => {
    const f = await b.fresh();
    await f.exec('CREATE TABLE other (a INTEGER)');
    for (const mode of ['writer', 'reader', 'probe'] as const) {
      expect(await rejection(f.open(mode, { create: true })), mode).toMatchObject({
        code: 'STORE_FOREIGN_DB',
        exit: 4,
      });
    }
    expect(await f.version()).toBe(0);
  });

  it('four processes migrating one fresh store at once: one row per version, no error', async () => {
    const f = await b.fresh();
    const script = `
      const { openStore } = await import(${dist('store/open-store.js')});
      const s = await openStore(process.env, undefined, 'writer', { create: true });
      await s.close();`;
    const env = { ...process.env, ...f.env };
    const runs = await Promise.all([1, 2, 3, 4].map(() => runNode(script, [], env)));
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(runs.map(() => [0, '']));
    const rows = await f.all('SELECT version FROM schema_version ORDER BY version');
    expect(rows.map((r) => Number(r.version))).toEqual(listMigrations().map((m) => m.version));
  });
});
