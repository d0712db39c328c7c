/**
 * Draft retention, `contract gc` (store-and-finalize.md §10). Deletes draft files only (never rows, evidence or
 * receipts): `aged` (older than the age window, store or not), then `spent` (closed row, older than the grace
 * window); stray temp files of the atomic write older than 1 hour (`temp`). A draft whose lock is held is kept. The
 * store is read (probe) before anything is deleted, so an unreadable store deletes nothing.
 */
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DRAFT_ID_RE } from '../envelope/patterns.js';
import { tryLock } from '../drafts/lock.js';
import { draftsDir, storeExists, type Env } from '../paths.js';

export interface GcOptions {
  env: Env;
  cwd: string;
  maxAgeDays: number;
  graceHours: number;
  dryRun: boolean;
  now?: number;
}

export interface Removal {
  draft_id: string;
  reason: 'aged' | 'spent' | 'temp';
  mtime: string;
  age_hours: number;
  agent_state: string | null;
}

export interface GcResult {
  removed: Removal[];
  kept: number;
}

const HOUR_MS = 3_600_000;
const TEMP_MAX_AGE_MS = HOUR_MS;
const TEMP_RE = /^\.(a[0-9a-f]{16,}\.[0-9a-f]{6,})\..+\.tmp$/;

const hours = (ms: number): number => Math.round((ms / HOUR_MS) * 100) / 100;

/** mtime of a regular file (not following symlinks), or undefined when it is gone or not a regular file. */
function regularMtime(path: string): number | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The row state of each draft id. An existing DB file is always opened and checked, even when there are no drafts to
 * judge (temp files are still swept): an unreadable store is exit 4 before anything is deleted (§10).
 */
async function rowStates(env: Env, cwd: string, ids: string[]): Promise<Map<string, string>> {
  if (!storeExists(env, cwd)) return new Map();
  const { withProbe } = await import('../store/db.js');
  const { spentProbe } = await import('../store/handoffs.js');
  return withProbe(env, cwd, (db) => (ids.length === 0 ? new Map<string, string>() : spentProbe(db, ids)), new Map<string, string>());
}

export async function sweepDrafts(o: GcOptions): Promise<GcResult> {
  const now = o.now ?? Date.now();
  const dir = draftsDir(o.env, o.cwd);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  const drafts = names.filter((n) => n.endsWith('.json') && DRAFT_ID_RE.test(n.slice(0, -5))).map((n) => n.slice(0, -5));
  // Read the store first: STORE_UNREADABLE (exit 4) must come before any deletion.
  const states = await rowStates(o.env, o.cwd, drafts);
  const { isClosedState } = await import('../store/handoff-row.js');
  const removed: Removal[] = [];
  let kept = 0;

  const judge = (mtimeMs: number, state: string | undefined): Removal['reason'] | undefined => {
    if (now - mtimeMs > o.maxAgeDays * 24 * HOUR_MS) return 'aged';
    if (isClosedState(state) && now - mtimeMs > o.graceHours * HOUR_MS) return 'spent';
    return undefined;
  };

  for (const id of drafts) {
    const path = join(dir, `${id}.json`);
    const state = states.get(id);
    const first = regularMtime(path);
    if (first === undefined || judge(first, state) === undefined) {
      if (first !== undefined) kept++;
      continue;
    }
    const lock = tryLock(o.env, id, o.cwd);
    if (lock === undefined) {
      kept++;
      continue;
    }
    try {
      // Judged again under the lock: a writer may have saved it meanwhile.
      const mtimeMs = regularMtime(path);
      const reason = mtimeMs === undefined ? undefined : judge(mtimeMs, state);
      if (mtimeMs === undefined) continue;
      if (reason === undefined) {
        kept++;
        continue;
      }
      if (!o.dryRun) unlinkSync(path);
      removed.push({ draft_id: id, reason, mtime: new Date(mtimeMs).toISOString(), age_hours: hours(now - mtimeMs), agent_state: state ?? null });
    } finally {
      lock.release();
    }
  }

  for (const name of names) {
    const m = TEMP_RE.exec(name);
    if (m === null) continue;
    const path = join(dir, name);
    const mtimeMs = regularMtime(path);
    if (mtimeMs === undefined || now - mtimeMs <= TEMP_MAX_AGE_MS) continue;
    if (!o.dryRun) {
      try {
        unlinkSync(path);
      } catch {
        continue; // removed by its writer meanwhile
      }
    }
    removed.push({ draft_id: m[1], reason: 'temp', mtime: new Date(mtimeMs).toISOString(), age_hours: hours(now - mtimeMs), agent_state: null });
  }
  return { removed, kept };
}
