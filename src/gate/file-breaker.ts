/**
 * The rejection counter in a file, for when the store cannot hold it (unreadable, read-only,
 * busy, damaged): `<root>/gate/<sha256 of the key>.json`, written through a temp file and a rename. Same arithmetic
 * as the store's breaker (nextAttempt), so the breaker still trips after its limit while the store is broken.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unlinkQuiet } from '../fs-util.js';
import { mintTempTag } from '../ids.js';
import { ensureRootFolder, rootFolder, type Env } from '../paths.js';
import { nextAttempt, type CountResult } from './breaker.js';

interface CounterFile {
  key: string;
  attempts: number;
  tripped: boolean;
  last_codes: string[];
  updated_at: string;
}

const fileOf = (dir: string, key: string): string => join(dir, `${createHash('sha256').update(key, 'utf8').digest('hex')}.json`);

function readCounter(path: string, key: string): CounterFile | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<CounterFile>;
    if (v.key !== key || typeof v.attempts !== 'number' || v.attempts < 1) return undefined;
    return {
      key,
      attempts: v.attempts,
      tripped: v.tripped === true,
      last_codes: Array.isArray(v.last_codes) ? v.last_codes.filter((c): c is string => typeof c === 'string') : [],
      updated_at: typeof v.updated_at === 'string' ? v.updated_at : '',
    };
  } catch {
    return undefined; // absent or damaged: counting starts again
  }
}

/** Counts one block for `key` in its file (creating `<root>/gate/`); throws when the file cannot be written. */
export function countBlockInFile(env: Env, cwd: string, key: string, codes: string[], max: number): CountResult {
  ensureRootFolder(env, 'gate', cwd);
  const path = fileOf(rootFolder(env, 'gate', cwd), key);
  const prev = readCounter(path, key);
  const next = nextAttempt(prev && { attempts: prev.attempts, tripped: prev.tripped }, max);
  const record: CounterFile = { key, attempts: next.attempts, tripped: next.tripped, last_codes: codes, updated_at: new Date().toISOString() };
  const tmp = `${path}.${process.pid}.${mintTempTag()}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } finally {
    unlinkQuiet(tmp);
  }
  return { attempt: next.attempts, tripped: next.tripped, previousCodes: prev?.last_codes };
}

/** An allow forgets the key's file counter too (best effort: a missing or unusable gate/ folder holds none). */
export function resetFileCounter(env: Env, cwd: string, key: string): void {
  try {
    unlinkQuiet(fileOf(rootFolder(env, 'gate', cwd), key));
  } catch {
    // gate/ is not a real folder: it holds no counter of ours
  }
}
