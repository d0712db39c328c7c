/** openWriter's pragmas and the order of its steps. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDb, openReader, openWriter } from '../../src/store/db.js';
import { sqliteAcceptsJson } from '../../src/store/finalize-row.js';
import { buildAt, caught, migrationsDir, tempStore } from '../helpers/store.js';

/** PRAGMA synchronous: 2 = FULL (better-sqlite3's build default under WAL is 1 = NORMAL). */
const FULL = 2;

describe('openWriter pragmas', () => {
  it('sets synchronous = FULL on a created store, on a reopened one and on a read verb migrating an older file', () => {
    const { env } = tempStore();
    const created = openWriter(env, undefined, { create: true })!;
    expect(created.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(created.pragma('synchronous', { simple: true })).toBe(FULL);
    closeDb(created);

    const reopened = openWriter(env, undefined, { create: false })!;
    expect(reopened.pragma('synchronous', { simple: true })).toBe(FULL);
    closeDb(reopened);

    const older = tempStore();
    closeDb(buildAt(older.file, 1));
    const migrating = openReader(older.env)!;
    expect(migrating.pragma('synchronous', { simple: true })).toBe(FULL);
    closeDb(migrating);
  });
});

describe('openWriter loads the migration list before touching the file', () => {
  it('a broken migration list (gap) is INTERNAL exit 70 and creates neither the DB file nor its folders', () => {
    const { dir, env } = tempStore();
    const file = join(dir, 'nested', 'handoff.db');
    const gap = migrationsDir(1, { '0003_gap.sql': 'SELECT 1;' });
    const err = caught(() => openWriter({ ...env, HANDOFF_DB: file }, undefined, { create: true, migrationsDir: gap }));
    expect(err).toMatchObject({ code: 'INTERNAL', exit: 70 });
    expect(err.message).toMatch(/packaging bug/);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, 'nested'))).toBe(false);
  });

  it('an existing file is left byte-identical by the same packaging error', () => {
    const { file, env } = tempStore();
    closeDb(openWriter(env, undefined, { create: true }));
    const before = readFileSync(file);
    const dup = migrationsDir(2, { '0002_again.sql': 'SELECT 1;' });
    expect(caught(() => openWriter(env, undefined, { create: false, migrationsDir: dup }))).toMatchObject({
      code: 'INTERNAL',
      exit: 70,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('an injected folder is what the writer migrates with', () => {
    const { env } = tempStore();
    const db = openWriter(env, undefined, { create: true, migrationsDir: migrationsDir(1) })!;
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_version').get()).toEqual({ v: 1 });
    closeDb(db);
  });
});

describe('sqliteAcceptsJson (the raw_handoff_json CHECK, asked in memory)', () => {
  it('accepts 1000 nesting levels and refuses 1001; refuses text that is not JSON', () => {
    const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(sqliteAcceptsJson(deep(1000))).toBe(true);
    expect(sqliteAcceptsJson(deep(1001))).toBe(false);
    expect(sqliteAcceptsJson('{"a":')).toBe(false);
    expect(sqliteAcceptsJson(JSON.stringify({ a: [1, 'x', null] }))).toBe(true);
  });
});
