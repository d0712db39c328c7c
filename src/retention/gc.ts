/**
 * `contract gc`. Draft retention: `aged` (older than the age
 * window, store or not), then `spent` (closed row, older than the grace window); temp files of interrupted saves and
 * lock publications older than 1 hour whose writer pid is gone (`temp`). A draft whose lock is held is kept. Then the
 * other debris: abandoned spill folders, abandoned evidence temp blobs, and unreferenced blobs older than the age
 * window (evidence-sweep.ts). Never rows or receipts. The store is read before anything is deleted, so an unreadable
 * store deletes nothing (exit 4); a data root folder that is a symlink is DATA_ROOT_UNSAFE before anything is read.
 * A draft's birth record (`<id>.meta.json`) and revision (`<id>.rev`) go with their draft; one left without a draft
 * for over an hour is removed as `temp`.
 *
 * Scale (100,000 drafts of which 50,000 removable in under 10 s): one directory listing and one lstat per draft;
 * the store is asked only about drafts the spent rule could remove (past the grace window, inside the age window);
 * a removable draft costs one cheap lock (O_EXCL, tryLockQuick), a second lstat under it and the unlink.
 */
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tryLockQuick } from '../drafts/lock.js';
import { metaFile } from '../drafts/meta.js';
import { revisionFile } from '../drafts/revision.js';
import { entryExists, unlinkQuiet } from '../fs-util.js';
import { isDraftId } from '../ids.js';
import { draftsDir, rootFolder, storeExists, storeUrl, type Env } from '../paths.js';
import { abandonedEntries, DRAFT_TEMP_RE, hoursOf, removeEntry, sweepSpills, type DebrisRemoval } from './debris.js';
import { sweepEvidence, type BlobSweep } from './evidence-sweep.js';

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
  /** Spill folders, evidence temp blobs and unreferenced blobs. */
  debris: DebrisRemoval[];
  blobs: BlobSweep;
}

const HOUR_MS = 3_600_000;

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
 * The row state of the given draft ids. An existing DB file is always opened and checked, even with no id to judge:
 * an unreadable store is exit 4 before anything is deleted.
 */
async function rowStates(env: Env, cwd: string, ids: string[]): Promise<Map<string, string>> {
  if (storeUrl(env) === undefined && !storeExists(env, cwd)) return new Map();
  const { withProbe } = await import('../evidence/store-access.js');
  return withProbe(
    env,
    cwd,
    (s) => (ids.length === 0 ? new Map<string, string>() : s.spentProbe(ids)),
    () => new Map<string, string>(),
  );
}

interface Candidate {
  id: string;
  path: string;
  mtimeMs: number;
}

export async function sweepDrafts(o: GcOptions): Promise<GcResult> {
  const now = o.now ?? Date.now();
  const dir = draftsDir(o.env, o.cwd);
  const tmpDir = rootFolder(o.env, 'tmp', o.cwd);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  const ageMs = o.maxAgeDays * 24 * HOUR_MS;
  const graceMs = o.graceHours * HOUR_MS;
  const drafts: Candidate[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -5);
    if (!isDraftId(id)) continue;
    const path = join(dir, name);
    const mtimeMs = regularMtime(path);
    if (mtimeMs !== undefined) drafts.push({ id, path, mtimeMs });
  }
  // Only a draft past the grace window but inside the age window depends on its row.
  const probe = drafts.filter((d) => now - d.mtimeMs > graceMs && now - d.mtimeMs <= ageMs).map((d) => d.id);
  // Read the store first: STORE_UNREADABLE (exit 4) must come before any deletion.
  const states = await rowStates(o.env, o.cwd, probe);
  const { isClosedState } = await import('../store/handoff-row.js');
  const judge = (mtimeMs: number, state: string | undefined): Removal['reason'] | undefined => {
    if (now - mtimeMs > ageMs) return 'aged';
    if (isClosedState(state) && now - mtimeMs > graceMs) return 'spent';
    return undefined;
  };

  const removed: Removal[] = [];
  let kept = 0;
  for (const d of drafts) {
    const state = states.get(d.id);
    if (judge(d.mtimeMs, state) === undefined) {
      kept++;
      continue;
    }
    const lockPath = join(dir, `${d.id}.lock`);
    if (o.dryRun) {
      // A dry run takes no lock (it must work on a read-only data root): a draft whose lock file exists is kept, as
      // a held lock would keep it; the rest is reported as the real run would judge it now.
      if (entryExists(lockPath)) kept++;
      else
        removed.push({
          draft_id: d.id,
          reason: judge(d.mtimeMs, state)!,
          mtime: new Date(d.mtimeMs).toISOString(),
          age_hours: hoursOf(now - d.mtimeMs),
          agent_state: state ?? null,
        });
      continue;
    }
    const lock = tryLockQuick(o.env, d.id, lockPath, o.cwd);
    if (lock === undefined) {
      kept++;
      continue;
    }
    try {
      // Judged again under the lock: a writer may have saved it meanwhile.
      const mtimeMs = regularMtime(d.path);
      if (mtimeMs === undefined) continue;
      const reason = judge(mtimeMs, state);
      if (reason === undefined) {
        kept++;
        continue;
      }
      unlinkSync(d.path);
      unlinkQuiet(metaFile(o.env, d.id, o.cwd));
      unlinkQuiet(revisionFile(o.env, d.id, o.cwd));
      removed.push({
        draft_id: d.id,
        reason,
        mtime: new Date(mtimeMs).toISOString(),
        age_hours: hoursOf(now - mtimeMs),
        agent_state: state ?? null,
      });
    } finally {
      lock.release();
    }
  }
  removed.push(...sweepDraftTemps(dir, names, now, o.dryRun));
  removed.push(...sweepOrphanMeta(dir, names, now, o.dryRun));

  const debris = sweepSpills(tmpDir, now, o.dryRun);
  const evidence = await sweepEvidence({ env: o.env, cwd: o.cwd, now, maxAgeMs: ageMs, dryRun: o.dryRun });
  debris.push(...evidence.removed);
  return { removed, kept, debris, blobs: evidence.blobs };
}

/** Temp files of the drafts folder older than 1 hour whose writer pid is gone (reason `temp`). */
function sweepDraftTemps(dir: string, names: string[], now: number, dryRun: boolean): Removal[] {
  const out: Removal[] = [];
  for (const { path, st, match } of abandonedEntries(dir, names, DRAFT_TEMP_RE, 2, false, now)) {
    if (!removeEntry(path, false, dryRun)) continue; // removed by its writer meanwhile
    out.push({
      draft_id: match[1],
      reason: 'temp',
      mtime: st.mtime.toISOString(),
      age_hours: hoursOf(now - st.mtimeMs),
      agent_state: null,
    });
  }
  return out;
}

const META_RE = /^(a[0-9a-f]{16,}\.[0-9a-f]{6,})\.(?:meta\.json|rev)$/;

/**
 * A birth record (`<id>.meta.json`) or revision (`<id>.rev`) whose draft is gone, older than 1 hour: the draft file
 * is written second, so an interrupted save can leave one. Removed as `temp`.
 */
function sweepOrphanMeta(dir: string, names: string[], now: number, dryRun: boolean): Removal[] {
  const out: Removal[] = [];
  for (const name of names) {
    const m = META_RE.exec(name);
    if (m === null || entryExists(join(dir, `${m[1]}.json`))) continue;
    const path = join(dir, name);
    const mtimeMs = regularMtime(path);
    if (mtimeMs === undefined || now - mtimeMs <= HOUR_MS) continue;
    if (!removeEntry(path, false, dryRun)) continue; // removed meanwhile
    out.push({
      draft_id: m[1],
      reason: 'temp',
      mtime: new Date(mtimeMs).toISOString(),
      age_hours: hoursOf(now - mtimeMs),
      agent_state: null,
    });
  }
  return out;
}

/** The human report: one line per removal, then the totals (`Would remove` under --dry-run). */
export function gcText(r: GcResult, dryRun: boolean): string {
  const verb = dryRun ? 'would remove' : 'removed';
  const lines = r.removed.map(
    (x) => `${verb} ${x.draft_id} (${x.reason}, ${x.age_hours} h old, state ${x.agent_state ?? '-'})`,
  );
  for (const d of r.debris) lines.push(`${verb} ${d.path} (${d.kind}, ${d.age_hours} h old)`);
  if (r.blobs.status === 'skipped') lines.push(`Unreferenced blobs were not judged: ${r.blobs.reason}.`);
  const debris = r.debris.length > 0 ? `, ${r.debris.length} other file(s) or folder(s)` : '';
  lines.push(`${dryRun ? 'Would remove' : 'Removed'} ${r.removed.length} draft(s)${debris}, kept ${r.kept}.`);
  return lines.join('\n');
}
