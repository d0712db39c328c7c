/**
 * `evidence orphans`: read-only. Walks realpath(<root>/evidence) without following symlinks and
 * lists every non-directory entry no row references (evidence blobs and receipt outputs), plus rows whose blob is
 * gone.
 */
import { readdirSync, type Stats } from 'node:fs';
import { lstatQuiet } from '../fs-util.js';
import { join } from 'node:path';
import { HandoffError } from '../errors.js';
import { evidenceRoot, dbPath, storeUrl, type Env } from '../paths.js';
import { blobRefSha } from '../store/store.js';
import { TEMP_NAME_RE } from './blob.js';
import { confinedPath, realEvidenceRoot } from './canonical-path.js';
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

/**
 * Local entries no row references, and rows whose blob is gone: a file blob missing from this data root, or (on
 * PostgreSQL) a `blob:sha256:` reference the store does not hold.
 */
export async function findOrphans(env: Env, cwd: string): Promise<OrphansResult> {
  const found = await withReader(
    env,
    cwd,
    async (s) => {
      const rows = await s.blobRows();
      const storeShas = rows.map((r) => blobRefSha(r.artifact_path)).filter((x): x is string => x !== undefined);
      const held = s.blobs !== undefined ? await s.blobs.blobSizes(storeShas) : new Map<string, number>();
      const missing: { id: number; artifact_path: string }[] = [];
      const root = evidenceRoot(env, cwd);
      for (const r of rows) {
        const sha = blobRefSha(r.artifact_path);
        // A file path is looked for only below the evidence root: one leading outside it counts as missing.
        const present = sha !== undefined ? held.has(sha) : confinedPath(r.artifact_path, root).kind === 'inside';
        if (!present) missing.push(r);
      }
      return { referenced: await s.referencedPaths(), missing };
    },
    () => {
      throw new HandoffError(
        'NO_STORE',
        `no store at ${storeUrl(env) === undefined ? dbPath(env, cwd) : 'HANDOFF_STORE_URL (an empty database)'}: without rows no blob can be proven referenced, so nothing is listed`,
      );
    },
  );
  const { missing } = found;
  const rootReal = realEvidenceRoot(evidenceRoot(env, cwd));
  if (rootReal === undefined) return { orphans: [], missing };
  const entries: { path: string; name: string; st: Stats }[] = [];
  walk(rootReal, entries);
  const orphans = entries
    .filter((e) => !found.referenced.has(e.path))
    .map((e) => ({ path: e.path, kind: kindOf(e.name, e.st), size_bytes: e.st.size, mtime: e.st.mtime.toISOString() }));
  return { orphans, missing };
}
