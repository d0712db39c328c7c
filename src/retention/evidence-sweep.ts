/**
 * The evidence part of `contract gc` (an exception to "gc never touches evidence" for
 * these only): abandoned temp blobs, and blobs that no row references once they are older than the draft age rule.
 * Unreferenced blobs are removed only when the store exists, is readable, and every blob a row references is present;
 * otherwise the sweep says why and removes no blob (a moved root or a half-restored store would make every blob look
 * unreferenced). Symlinks and other entries are never touched; folders emptied by a removal are removed up to (never
 * including) the evidence root.
 */
import { existsSync, rmdirSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { TEMP_NAME_RE } from '../evidence/blob.js';
import { isStrictlyBelow, realEvidenceRoot } from '../evidence/canonical-path.js';
import { walk } from '../evidence/orphans.js';
import { evidenceRoot, storeExists, storeUrl, type Env } from '../paths.js';
import { abandoned, removal, removeEntry, type DebrisRemoval } from './debris.js';

export interface BlobSweep {
  /** `done`: unreferenced blobs were judged; `skipped`: the store cannot prove what is referenced. */
  status: 'done' | 'skipped';
  reason?: string;
  /** Referenced blobs that are gone (the reason of a skip). */
  missing?: string[];
}

export interface EvidenceSweep {
  removed: DebrisRemoval[];
  blobs: BlobSweep;
}

/**
 * The referenced blob file paths, or why they cannot be trusted. Reads the store (STORE_* errors propagate, exit 4).
 * Store blobs (`blob:sha256:` references, PostgreSQL) are never deleted by gc (the sweep is about files,
 * and other hosts may cite them): they count only for the "every referenced blob is present" rule.
 */
async function referenced(env: Env, cwd: string): Promise<{ paths: Set<string> } | { skip: BlobSweep }> {
  const noStore = {
    skip: { status: 'skipped' as const, reason: 'no store: without rows no blob can be proven unreferenced' },
  };
  if (storeUrl(env) === undefined && !storeExists(env, cwd)) return noStore;
  const { withProbe } = await import('../evidence/store-access.js');
  const { blobRefSha } = await import('../store/store.js');
  const found = await withProbe<{ paths: Set<string>; missing: string[] } | undefined>(
    env,
    cwd,
    async (s) => {
      const paths = await s.referencedPaths();
      const shas = [...paths].map((p) => blobRefSha(p)).filter((x): x is string => x !== undefined);
      const held = shas.length > 0 && s.blobs !== undefined ? await s.blobs.blobSizes(shas) : new Map<string, number>();
      const missing = [...paths].filter((p) => {
        const sha = blobRefSha(p);
        return sha === undefined ? !existsSync(p) : !held.has(sha);
      });
      return { paths, missing };
    },
    () => undefined,
  );
  if (found === undefined) return noStore;
  const missing = found.missing.sort();
  if (missing.length > 0) {
    return {
      skip: {
        status: 'skipped',
        reason: `${missing.length} blob(s) referenced by the store are missing (a moved data root or a partly restored store?); no blob is removed`,
        missing,
      },
    };
  }
  return { paths: found.paths };
}

/** Removes the folders a removal emptied, deepest first, stopping at the evidence root. */
function pruneEmpty(dirs: Set<string>, rootReal: string): void {
  for (const start of [...dirs].sort((a, b) => b.length - a.length)) {
    for (let dir = start; isStrictlyBelow(rootReal, dir); dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty (or gone): its parents are not empty either
      }
    }
  }
}

export async function sweepEvidence(o: {
  env: Env;
  cwd: string;
  now: number;
  maxAgeMs: number;
  dryRun: boolean;
}): Promise<EvidenceSweep> {
  // The store first: an unreadable store is exit 4 before anything is removed.
  const refs = await referenced(o.env, o.cwd);
  const rootReal = realEvidenceRoot(evidenceRoot(o.env, o.cwd));
  const blobs: BlobSweep = 'skip' in refs ? refs.skip : { status: 'done' };
  if (rootReal === undefined) return { removed: [], blobs };
  const entries: { path: string; name: string; st: Stats }[] = [];
  walk(rootReal, entries);
  const removed: DebrisRemoval[] = [];
  const emptied = new Set<string>();
  for (const e of entries) {
    if (!e.st.isFile()) continue;
    const temp = TEMP_NAME_RE.exec(e.name);
    let kind: DebrisRemoval['kind'] | undefined;
    if (temp !== null) {
      if (abandoned(e.st.mtimeMs, temp[1] === undefined ? undefined : Number(temp[1]), o.now)) kind = 'evidence_temp';
    } else if ('paths' in refs && !refs.paths.has(e.path) && o.now - e.st.mtimeMs > o.maxAgeMs) {
      kind = 'blob';
    }
    if (kind === undefined || !removeEntry(e.path, false, o.dryRun)) continue;
    removed.push(removal(e.path, kind, e.st, o.now));
    emptied.add(dirname(e.path));
  }
  if (!o.dryRun) pruneEmpty(emptied, rootReal);
  return { removed, blobs };
}
