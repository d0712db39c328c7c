/**
 * The store for one gate call, and the data root it must find: the gate reads, it never creates a data root or a
 * store, and its reasons say where it looked.
 */
import { statSync } from 'node:fs';
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { dataRoot, dataRootUnusable, dbPath } from '../paths.js';
import { storeReadOnlyHere } from '../store/db.js';
import { mayHaveStore, storeKind } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { GateWatch } from './budget.js';

/**
 * The store for one gate call (either backend), opened only if it exists: the gate never creates a store. Without
 * one it captures nothing and counts in `<root>/gate/`. On a SQLite store this process cannot write (a read-only
 * data root or file) it is opened for reading only: the look-ups and the verdict work, and the writes (claim,
 * capture, counter) fail and are noted.
 */
export class GateStore {
  private constructor(public readonly store: Store | null) {}
  /**
   * `watch`: the gate's budget, whose clock opening the store and every store call race. A SQLite store at this
   * build's version is opened as a probe and promoted to a writer on the same connection (as the draft verbs write):
   * nothing to migrate, so the migration list is not read; an older store is read as it is through the probe and never
   * migrated (a query its schema cannot answer is STORE_NEEDS_MIGRATION). `readOnly` (a dry run): a SQLite store stays
   * the probe, never promoted to a writer.
   */
  static async open(env: Env, cwd: string, watch?: GateWatch, readOnly = false): Promise<GateStore> {
    if (!mayHaveStore(env, cwd)) return new GateStore(null);
    const { openStore } = await import('../store/open-store.js');
    const race = <T>(p: Promise<T>): Promise<T> => (watch === undefined ? p : watch.race(p));
    const opts = { waitUntil: watch?.storeDeadline };
    let s: Store | null;
    if (storeKind(env) !== 'sqlite')
      s = await race(openStore(env, cwd, 'writer', { ...opts, migrate: false, retryFull: false }));
    else if (storeReadOnlyHere(env, cwd)) s = await race(openStore(env, cwd, 'reader', opts));
    else {
      const probe = await race(openStore(env, cwd, 'probe', opts));
      const writer = probe === null || readOnly ? undefined : await race(probe.currentWriter!());
      // An older store is read as it is, never migrated (the next writer verb migrates it): the probe judges, and the
      // writes it refuses (capture, claim, count) are noted as on a read-only store; the count goes to files.
      s = probe === null ? null : (writer ?? probe);
    }
    return new GateStore(s === null ? null : (watch?.bound(s) ?? s));
  }
  async close(): Promise<void> {
    await this.store?.close();
  }
}

/**
 * The data root must exist: the gate never creates one (a hook pointed at the wrong root would otherwise make an
 * empty one and judge every stop "no contract"). Absent: DATA_ROOT_NOT_FOUND, which fails open (exit 1) or, under
 * --on-store-error block, blocks and counts under $TMPDIR.
 */
export function requireDataRoot(env: Env, cwd: string): string {
  const root = dataRoot(env, cwd);
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw dataRootUnusable(root, e);
    throw new HandoffError(
      'DATA_ROOT_NOT_FOUND',
      `the data root ${root} does not exist (the gate creates no data root and no store)`,
      { path: root },
      'Point the hook at the data root the contracts live in (HANDOFF_HOME=<root> in the hook command).',
    );
  }
  if (!st.isDirectory()) throw dataRootUnusable(root, new Error('not a folder'));
  return root;
}

/** Where the gate looked, for its reasons: the data root and the store in it. */
export function whereLooked(env: Env, cwd: string, store: Store | null): string {
  const kind = storeKind(env);
  const what = kind === 'postgres' ? 'the PostgreSQL store of HANDOFF_STORE_URL' : `the store ${dbPath(env, cwd)}`;
  return `Looked in the data root ${dataRoot(env, cwd)} and ${what}${store === null ? ' (there is no store: nothing was captured or claimed, and none was created)' : ''}.`;
}
