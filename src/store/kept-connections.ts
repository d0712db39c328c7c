/**
 * SQLite connections kept between calls (keepConnections): a long-running process (the MCP server) makes many calls
 * on one store, and a fresh connection costs more than the call's own statements (opening, reading the schema for the
 * first statement, closing). db.ts decides which connections may be kept (on a store this process can write, at the
 * build's version: mayKeep) and puts a closed one back here instead of closing it. Each is kept with the store file's
 * identity and state when it was put back; a probe takes one back only while the file is still the same (same device,
 * inode, size and modification time: anything else, a replaced or rewritten file or another process's checkpoint,
 * opens a fresh one).
 */
import { statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';

type Db = BetterSqlite3.Database;

interface Kept {
  db: Db;
  stamp: string;
}

/** The kept connections by store file, while keeping is on. */
let kept: Map<string, Kept[]> | undefined;
const KEPT_PER_FILE = 4;
/** Connections that may be kept: opened on a writable store, inspected at the build's version. */
const keepable = new WeakSet<Db>();

/** Turns keeping on or off; off closes every kept connection. */
export function keepConnections(on: boolean): void {
  if (on) {
    kept ??= new Map();
    return;
  }
  const all = kept;
  kept = undefined;
  for (const list of all?.values() ?? []) for (const k of list) closeQuietly(k.db);
}

/** Whether closed connections are kept (a connection opened now compiles its statements once: cacheStatements). */
export const keeping = (): boolean => kept !== undefined;

/** Whether `db` may be kept when it is closed (db.ts, after inspecting it). */
export function mayKeep(db: Db, ok: boolean): void {
  if (kept === undefined) return;
  if (ok) keepable.add(db);
  else keepable.delete(db);
}

/**
 * A connection that will be kept compiles each statement once: `prepare` answers a statement it compiled before for
 * the same text (SQLite re-checks it against the schema on every run), with its result modes reset, unless that one
 * is still iterating. The store's modules prepare their statements where they run them, so a kept connection would
 * otherwise compile the same dozen statements on every call.
 */
export function cacheStatements(db: Db): void {
  const compiled = new Map<string, BetterSqlite3.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const known = compiled.get(source);
    if (known !== undefined && !known.busy) return known.reader ? known.pluck(false).raw(false).expand(false) : known;
    const statement = prepare(source);
    if (known === undefined) compiled.set(source, statement);
    return statement;
  }) as Db['prepare'];
}

/**
 * Puts `db` (on `file`) back for a later call instead of closing it, read-only again and with the usual busy timeout:
 * true when kept.
 */
export function putBack(db: Db, file: string, busyTimeoutMs: number): boolean {
  if (kept === undefined || !db.open || !keepable.has(db) || db.inTransaction) return false;
  const list = kept.get(file) ?? [];
  if (list.some((k) => k.db === db)) return true; // closed twice (a promoted probe and its store)
  if (list.length >= KEPT_PER_FILE) return false;
  try {
    db.pragma('query_only = ON');
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  } catch {
    return false;
  }
  const stamp = fileStamp(file);
  if (stamp === undefined) return false;
  list.push({ db, stamp });
  kept.set(file, list);
  return true;
}

/**
 * A kept connection on `file` whose file is unchanged since it was put back and still `writable()`; stale ones are
 * closed. It is kept again only once db.ts inspected it again (mayKeep): one that fails now is closed for real.
 */
export function takeBack(file: string, writable: () => boolean): Db | undefined {
  const list = kept?.get(file);
  if (list === undefined || list.length === 0) return undefined;
  const stamp = fileStamp(file);
  for (let k = list.pop(); k !== undefined; k = list.pop()) {
    if (stamp !== undefined && k.stamp === stamp && k.db.open && writable()) {
      keepable.delete(k.db);
      return k.db;
    }
    closeQuietly(k.db);
  }
  return undefined;
}

/** The store file's identity and state, or undefined when it cannot be read. */
function fileStamp(file: string): string | undefined {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return undefined;
  }
}

/** Closes `db` if it is open; a failure to close is ignored (closing never fails a verb). */
export function closeQuietly(db: Db): void {
  try {
    if (db.open) db.close();
  } catch {
    // nothing to do: the connection is gone either way
  }
}
