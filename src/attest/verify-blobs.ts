/** The evidence blobs of a handoff statement checked against a folder (attest verify --blobs DIR). */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface BlobResult {
  checked: number;
  problem?: { code: 'ATTEST_BLOB_MISSING' | 'ATTEST_DIGEST'; message: string };
}

/** A blob is the file DIR/<sha256>, else DIR/<the file name of its path>; names are never paths into DIR. */
function locate(dir: string, name: string, sha: string): string | undefined {
  const base = basename(name.startsWith('blob:sha256:') ? sha : name);
  for (const candidate of [sha, base]) {
    if (candidate === '' || candidate === '.' || candidate === '..') continue;
    const path = join(dir, candidate);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not there: try the next name
    }
  }
  return undefined;
}

export function blobFinding(dir: string, subjects: { name: string; digest: { sha256: string } }[]): BlobResult {
  let checked = 0;
  for (const s of subjects) {
    const path = locate(dir, s.name, s.digest.sha256);
    if (path === undefined)
      return {
        checked,
        problem: {
          code: 'ATTEST_BLOB_MISSING',
          message: `the blob ${s.name} (sha256 ${s.digest.sha256}) is not in ${dir}`,
        },
      };
    const actual = createHash('sha256').update(readFileSync(path)).digest('hex');
    checked++;
    if (actual !== s.digest.sha256)
      return {
        checked,
        problem: {
          code: 'ATTEST_DIGEST',
          message: `the blob ${path} has sha256 ${actual}, the statement says ${s.digest.sha256}`,
        },
      };
  }
  return { checked };
}
