/** The SQLite side of `handoff store copy`: every row of every table, read in one read transaction. */
import type { Db } from './db.js';
import { COPY_TABLES, type Row } from './copy-tables.js';

export interface SqliteDump {
  version: number;
  tables: Map<string, { columns: string[]; rows: Row[] }>;
}

export function dumpSqlite(db: Db, version: number): SqliteDump {
  const tables = new Map<string, { columns: string[]; rows: Row[] }>();
  db.transaction(() => {
    for (const t of COPY_TABLES) {
      const columns = (db.prepare(`PRAGMA table_info(${t.name})`).all() as { name: string }[]).map((c) => c.name);
      const rows = db.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.key}`).all() as Row[];
      tables.set(t.name, { columns, rows });
    }
  })();
  return { version, tables };
}
