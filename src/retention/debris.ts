/**
 * Debris that `contract gc` reclaims besides drafts: temp files of interrupted draft saves and
 * lock publications (`drafts/.<draft_id>.<pid>.<hex>.tmp`), temp blobs of interrupted evidence writes
 * (`evidence/…/.<uuid>.<pid>.tmp`) and spill folders of interrupted `evidence run` captures (`tmp/spill-<pid>-…`):
 * each older than 1 hour AND whose owner pid (in its name) is not a live process. A temp blob named before the pid
 * was added (`.<uuid>.tmp`) is judged by its age alone.
 */
import { readdirSync, rmSync, unlinkSync, type Stats } from 'node:fs';
import { lstatQuiet, pidAlive } from '../fs-util.js';
import { join } from 'node:path';

export const DEBRIS_MAX_AGE_MS = 3_600_000;

export type DebrisKind = 'draft_temp' | 'evidence_temp' | 'spill' | 'blob';

export interface DebrisRemoval {
  path: string;
  kind: DebrisKind;
  mtime: string;
  age_hours: number;
}

/** A draft-folder temp file: `.<draft_id>.<pid>.<8 hex>.<suffix>.tmp` (saves and lock publications). */
export const DRAFT_TEMP_RE = /^\.(a[0-9a-f]{16,}\.[0-9a-f]{6,})\.([0-9]+)\..+\.tmp$/;
/** A spill folder of `evidence run`: `spill-<pid>-<random>` (receipts/capture.ts). */
export const SPILL_RE = /^spill-([0-9]+)-[A-Za-z0-9]+$/;

export const hoursOf = (ms: number): number => Math.round((ms / 3_600_000) * 100) / 100;

/** Old enough and, when the name carries one, its owner pid is gone. */
export const abandoned = (mtimeMs: number, pid: number | undefined, now: number): boolean =>
  now - mtimeMs > DEBRIS_MAX_AGE_MS && (pid === undefined || !pidAlive(pid));

export const removal = (path: string, kind: DebrisKind, st: Stats, now: number): DebrisRemoval => ({
  path,
  kind,
  mtime: st.mtime.toISOString(),
  age_hours: hoursOf(now - st.mtimeMs),
});

/** Removes one file or folder (`dryRun`: nothing); false when it was gone or could not be removed. */
export function removeEntry(path: string, folder: boolean, dryRun: boolean): boolean {
  if (dryRun) return true;
  try {
    if (folder) rmSync(path, { recursive: true });
    else unlinkSync(path);
    return true;
  } catch {
    return false; // removed by its owner meanwhile, or not removable: left for the next sweep
  }
}

/**
 * The entries of `dir` (its listing `names`) whose name matches `re`, of the wanted kind (a regular file, or a
 * folder), old enough and whose owner pid (capture group `pidGroup`) is gone.
 */
export function* abandonedEntries(
  dir: string,
  names: readonly string[],
  re: RegExp,
  pidGroup: number,
  folder: boolean,
  now: number,
): Generator<{ path: string; st: Stats; match: RegExpExecArray }> {
  for (const name of names) {
    const match = re.exec(name);
    if (match === null) continue;
    const path = join(dir, name);
    const st = lstatQuiet(path);
    if (st === undefined || (folder ? !st.isDirectory() : !st.isFile())) continue;
    if (abandoned(st.mtimeMs, Number(match[pidGroup]), now)) yield { path, st, match };
  }
}

/** Spill folders in `<root>/tmp` (a folder the caller checked is real); a missing folder holds none. */
export function sweepSpills(tmpDir: string, now: number, dryRun: boolean): DebrisRemoval[] {
  let names: string[];
  try {
    names = readdirSync(tmpDir).sort();
  } catch {
    return [];
  }
  const out: DebrisRemoval[] = [];
  for (const e of abandonedEntries(tmpDir, names, SPILL_RE, 1, true, now)) {
    if (removeEntry(e.path, true, dryRun)) out.push(removal(e.path, 'spill', e.st, now));
  }
  return out;
}
