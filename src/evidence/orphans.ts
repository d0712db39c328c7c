/**
 * `evidence orphans` (evidence.md §5.3): read-only. Walks realpath(<root>/evidence) without following symlinks and
 * lists every non-directory entry no row references (evidence blobs and receipt outputs), plus rows whose blob is
 * gone.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { lstatQuiet } from '../fs-util.js';
import { join } from 'node:path';
import { EXIT, HandoffError } from '../errors.js';
import { evidenceRoot, dbPath, type Env } from '../paths.js';
import { blobRows, referencedPaths } from '../store/evidence-rows.js';
import { TEMP_NAME_RE } from './blob.js';
import { realEvidenceRoot } from './canonical-path.js';
import { withReader } from './store-access.js';

export type OrphanKind = 'blob' | 'temp' | 'link' | 'other';

export interface Orphan {
  path: string;
  kind: OrphanKind;
  size_bytes: number;
  mtime: string;
}

export interface OrphansResult {
  orphans: Orphan[];
  missing: { id: number; artifact_path: string }[];
}

function kindOf(name: string, st: Stats): OrphanKind {
  if (st.isSymbolicLink()) return 'link';
  if (!st.isFile()) return 'other';
  return TEMP_NAME_RE.test(name) ? 'temp' : 'blob';
}

/** Every non-directory entry below `dir`, sorted by path; unreadable subdirectories are skipped (also used by gc). */
export function walk(dir: string, out: { path: string; name: string; st: Stats }[]): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    const st = lstatQuiet(path);
    if (st === undefined) continue;
    if (st.isDirectory()) walk(path, out);
    else out.push({ path, name, st });
  }
}

const exists = (path: string): boolean => {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
};

export function findOrphans(env: Env, cwd: string): OrphansResult {
  const found = withReader(
    env,
    cwd,
    (db) => ({ referenced: referencedPaths(db), rows: blobRows(db) }),
    () => {
      throw new HandoffError(
        'NO_STORE',
        EXIT.NOT_FOUND,
        `no store at ${dbPath(env, cwd)}: without rows no blob can be proven referenced, so nothing is listed`,
      );
    },
  );
  const missing = found.rows.filter((r) => !exists(r.artifact_path));
  const rootReal = realEvidenceRoot(evidenceRoot(env, cwd));
  if (rootReal === undefined) return { orphans: [], missing };
  const entries: { path: string; name: string; st: Stats }[] = [];
  walk(rootReal, entries);
  const orphans = entries
    .filter((e) => !found.referenced.has(e.path))
    .map((e) => ({ path: e.path, kind: kindOf(e.name, e.st), size_bytes: e.st.size, mtime: e.st.mtime.toISOString() }));
  return { orphans, missing };
}
