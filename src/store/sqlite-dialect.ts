/**
 * SQLite's dialect of the shared statements (src/store/queries/): each text's `$n` placeholders become `?NNN`
 * numbered parameters once per text (memoized, never per call), bound from an object by number; an array parameter
 * is bound as JSON and read with `json_each`; and `handoff_now()` is a function registered on each connection
 * before its first operation, answering the process clock as the row times always were: one time per operation, so
 * every row time an operation writes is the same.
 */
import type { Db } from './db.js';
import { runSync, type Dialect, type Op, type Rows, type Stmt, type Text } from './queries/op.js';

const dialect: Dialect = {
  inTexts: (param) => `IN (SELECT value FROM json_each(${param}))`,
  nocase: (expr) => `${expr} COLLATE NOCASE`,
  // BEGIN IMMEDIATE holds the file's one write lock already.
  forUpdate: '',
};

const translated = new Map<string, string>();
const built = new WeakMap<(d: Dialect) => string, string>();

/** `$n` → `?n`, once per text. */
function sqliteText(text: Text): string {
  if (typeof text !== 'string') {
    let out = built.get(text);
    if (out === undefined) built.set(text, (out = sqliteText(text(dialect))));
    return out;
  }
  let out = translated.get(text);
  if (out === undefined) translated.set(text, (out = text.replace(/\$(\d+)/g, '?$1')));
  return out;
}

/** The values as better-sqlite3 binds numbered parameters: { 1: first, 2: second, … }; arrays as JSON. */
function bindings(values: readonly unknown[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  values.forEach((v, i) => (out[i + 1] = Array.isArray(v) ? JSON.stringify(v) : v));
  return out;
}

/** A store file of version 0 (an empty file) has no tables yet: a read of its rows finds none. */
const NO_ROWS_YET = /^no such table: handoffs$/;
const isRead = (text: string): boolean => /^\s*(SELECT|WITH)\b/i.test(text);

function exec(db: Db, s: Stmt): Rows {
  const text = sqliteText(s.text);
  try {
    const st = db.prepare(text);
    const args = s.values.length === 0 ? [] : [bindings(s.values)];
    if (st.reader) {
      const rows = st.all(...args) as Record<string, unknown>[];
      return { rows, rowCount: rows.length };
    }
    return { rows: [], rowCount: st.run(...args).changes };
  } catch (e) {
    if (e instanceof Error && NO_ROWS_YET.test(e.message) && isRead(text)) return { rows: [], rowCount: 0 };
    throw e;
  }
}

/** The clock of the operation running now (SQLite runs one at a time, synchronously); undefined between them. */
let clock: string | undefined;

const clocked = new WeakSet<Db>();

/** Registers `handoff_now()` on a connection, once. */
function registerClock(db: Db): void {
  if (clocked.has(db)) return;
  db.function('handoff_now', () => clock ?? new Date().toISOString());
  clocked.add(db);
}

/**
 * Runs a shared operation on `db`, synchronously; its row times are `now` (default: the process clock as it starts);
 * `version`: the store's schema version when it is read as it is (see Stmt.since). Failures are SQLite's own: the
 * caller maps them (guard, or the transaction's retry rule).
 */
export function onSqlite<T>(db: Db, op: Op<T>, now?: string, version?: number): T {
  registerClock(db);
  const outer = clock;
  clock = now ?? new Date().toISOString();
  try {
    return runSync(op, (s) => exec(db, s), version);
  } finally {
    clock = outer;
  }
}
