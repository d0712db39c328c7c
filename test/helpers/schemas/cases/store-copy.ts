/** Cases of `store copy`: a copy into an empty PostgreSQL database, and a non-empty target. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { freshDatabaseSync } from '../../pg.js';
import type { ResultCase } from '../case.js';
import { hf, ok } from './setup.js';

/** A SQLite store with a brief and one blob (a 5000-byte file) in `home`. */
function populated(home: string): void {
  ok(home, ['brief', 'add', 'b1', '--ac', 'AC-1=works', '--json']);
  const file = join(home, 'report.log');
  writeFileSync(file, 'L'.repeat(5000));
  ok(home, ['evidence', 'add', '--brief', 'b1', '--ac', 'AC-1', '--type', 'file', '--artifact-file', file, '--json']);
}

export const STORE_COPY_CASES: ResultCase[] = [
  {
    verb: 'store copy',
    schema: 'store-copy',
    name: 'a SQLite store with a blob copied into an empty database',
    exit: 0,
    produce: (home) => {
      populated(home);
      return hf(home, ['store', 'copy', '--to', freshDatabaseSync(), '--json']);
    },
    expect: (j) => {
      expect(j.tables.find((t: any) => t.name === 'evidence').rows).toBe(1);
      expect([j.blobs.count, j.blobs.bytes, j.rewritten.evidence_artifact_path, j.verified]).toEqual([1, 5000, 1, true]);
    },
    wrong: {
      'an unverified copy': (j) => ({ ...j, verified: false }),
      'a table outside the store': (j) => ({ ...j, tables: [...j.tables, { name: 'users', rows: 0, sha256: 'a'.repeat(64) }] }),
    },
  },
  {
    verb: 'store copy',
    schema: 'error',
    name: 'a target that already holds rows: STORE_COPY_TARGET_NOT_EMPTY',
    exit: 1,
    produce: (home) => {
      populated(home);
      const url = freshDatabaseSync();
      ok(home, ['store', 'copy', '--to', url, '--json']);
      return hf(home, ['store', 'copy', '--to', url, '--json']);
    },
    expect: (j) => expect([j.status, j.code]).toEqual(['rejected', 'STORE_COPY_TARGET_NOT_EMPTY']),
  },
];
