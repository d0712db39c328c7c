/**
 * src/store/kept-connections.ts, through db.ts: a long-running process (the MCP server) keeps its closed SQLite
 * connections for the next call, and takes one back only while the store file is the very file it was opened on,
 * unchanged since.
 */
import { copyFileSync, renameSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDb, openProbe, openReader, openWriter, promoteProbe } from '../../src/store/db.js';
import { keepConnections } from '../../src/store/kept-connections.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { buildAt, tempStore } from '../helpers/store.js';

afterEach(() => keepConnections(false));

const ids = (db: NonNullable<ReturnType<typeof openProbe>>): unknown[] =>
  db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();

describe('kept connections', () => {
  it('without keeping, a closed connection is closed; with it, the next probe gets the same one back', () => {
    const { env } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    const first = openProbe(env)!;
    closeDb(first);
    expect(first.open).toBe(false);

    keepConnections(true);
    const kept = openProbe(env)!;
    closeDb(kept);
    expect(kept.open).toBe(true);
    const again = openProbe(env)!;
    expect(again).toBe(kept);
    // A second probe while the first is out is a connection of its own.
    const other = openProbe(env)!;
    expect(other).not.toBe(again);
    closeDb(again);
    closeDb(other);
    keepConnections(false);
    expect(kept.open).toBe(false);
    expect(other.open).toBe(false);
  });

  it('a promoted probe comes back read-only: a write through the kept connection is refused', () => {
    const { env } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    keepConnections(true);
    const probe = openProbe(env)!;
    expect(promoteProbe(probe)).toBe(true);
    probe.exec('CREATE TABLE scratch (x)');
    closeDb(probe);
    closeDb(probe); // a promoted probe and its store both close it: kept once
    const back = openProbe(env)!;
    expect(back).toBe(probe);
    expect(back.pragma('query_only', { simple: true })).toBe(1);
    expect(() => back.exec('INSERT INTO scratch VALUES (1)')).toThrow(/readonly/i);
    const next = openProbe(env)!;
    expect(next).not.toBe(back); // it was taken only once
    closeDb(back);
    closeDb(next);
  });

  it('a store file replaced between calls is read through a fresh connection, never the kept one', () => {
    const { env, file } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    const other = tempStore();
    const w = openWriter(other.env, undefined, { create: true })!;
    w.exec('CREATE TABLE only_in_the_other (x)');
    w.pragma('wal_checkpoint(TRUNCATE)');
    closeDb(w);

    keepConnections(true);
    const kept = openProbe(env)!;
    expect(ids(kept)).not.toContain('only_in_the_other');
    closeDb(kept);
    copyFileSync(other.file, `${file}.new`);
    renameSync(`${file}.new`, file);
    const fresh = openProbe(env)!;
    expect(fresh).not.toBe(kept);
    expect(ids(fresh)).toContain('only_in_the_other');
    expect(kept.open).toBe(false);
    closeDb(fresh);
  });

  it('a connection on an older store is never kept; the writer that migrated it is', () => {
    const { env, file } = tempStore();
    closeDb(buildAt(file, 1));
    keepConnections(true);
    const older = openProbe(env)!;
    closeDb(older);
    expect(older.open).toBe(false);
    const migrated = openReader(env)!;
    closeDb(migrated);
    const now = openProbe(env)!;
    expect(now).toBe(migrated);
    closeDb(now);
  });

  it('a kept connection compiles a statement once, and hands it back with its result modes reset', () => {
    const { env } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    const plain = openProbe(env)!;
    const sql = 'SELECT version FROM schema_version ORDER BY version LIMIT 1';
    expect(plain.prepare(sql)).not.toBe(plain.prepare(sql));
    closeDb(plain);

    keepConnections(true);
    const db = openProbe(env)!;
    const first = db.prepare(sql);
    expect(first.pluck().get()).toBe(1);
    const again = db.prepare(sql);
    expect(again).toBe(first);
    expect(again.get()).toEqual({ version: 1 });
    // One still iterating is not handed out twice.
    const it = first.iterate();
    it.next();
    const other = db.prepare(sql);
    expect(other).not.toBe(first);
    it.return?.();
    expect(db.prepare(sql)).toBe(first);
    closeDb(db);
  });

  it('a kept connection that fails its check when taken again (a newer build migrated the store) is closed, not kept', () => {
    const { env, file } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    keepConnections(true);
    const kept = openProbe(env)!;
    closeDb(kept);
    expect(kept.open).toBe(true);
    // Another process's newer build records a version above this build's (through the WAL: the file is unchanged).
    const newer = new (loadSqlite())(file);
    newer
      .prepare('INSERT INTO schema_version (version, name, checksum, applied_at) VALUES (999, ?, ?, ?)')
      .run('x', 'x', 'x');
    newer.close();
    expect(() => openProbe(env)).toThrow(expect.objectContaining({ exit: 4 }));
    expect(kept.open).toBe(false);
    expect(() => openProbe(env)).toThrow(expect.objectContaining({ exit: 4 }));
  });
});
