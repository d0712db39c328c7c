/** Small wrappers over src/store/db.ts for the brief and evidence services: open, run, always close. */
import type { Env } from '../paths.js';
import { closeDb, guard, openReader, openWriter, type Db } from '../store/db.js';

/** A read verb's connection (migrates an older file); `absent()` decides what a missing DB file means. */
export function withReader<T>(env: Env, cwd: string, fn: (db: Db) => T, absent: () => T): T {
  const db = openReader(env, cwd);
  if (db === null) return absent();
  try {
    return guard(db, () => fn(db));
  } finally {
    closeDb(db);
  }
}

/** A writer's connection; with `create: false` a missing DB file calls `absent()` and creates nothing. */
export function withWriter<T>(env: Env, cwd: string, create: boolean, fn: (db: Db) => T, absent: () => T): T {
  const db = openWriter(env, cwd, { create });
  if (db === null) return absent();
  try {
    return fn(db);
  } finally {
    closeDb(db);
  }
}
