/**
 * While the MCP server runs, one idle connection to the SQLite store stays open. Every tool call opens and closes its
 * own connections; with no other connection open, each close is the store's last, and SQLite then checkpoints the
 * write-ahead log into the database file and removes it (writes and an fsync on every call). An idle connection
 * holds no transaction, so it blocks neither writers nor checkpoints. It is opened after a call, once the store
 * exists (a call may create it), so the server's start-up loads no store module; never on PostgreSQL. Best effort:
 * a failure to open it only costs time.
 */
import type { Env } from '../paths.js';
import { storeKind } from '../store/open-store.js';
import { storeExists } from '../paths.js';

export interface StoreKeeper {
  /** Opens the idle connection if the store exists and none is open yet. */
  touch(): Promise<void>;
  close(): Promise<void>;
}

export function storeKeeper(env: Env, cwd: string): StoreKeeper {
  let kept: { close(): void } | undefined;
  let given = false;
  return {
    async touch() {
      if (kept !== undefined || given) return;
      try {
        if (storeKind(env) !== 'sqlite' || !storeExists(env, cwd)) return;
        const { openProbe } = await import('../store/db.js');
        kept ??= openProbe(env, cwd) ?? undefined;
      } catch {
        given = true;
      }
    },
    async close() {
      const db = kept;
      kept = undefined;
      given = true;
      const { closeDb } = await import('../store/db.js');
      closeDb(db as Parameters<typeof closeDb>[0]);
    },
  };
}
