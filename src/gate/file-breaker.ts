/**
 * The rejection counter in a file, for when there is no store or the store cannot hold it (unreadable, read-only,
 * busy, damaged): `<root>/gate/<sha256 of the key>.json`, written through a temp file and a rename. Same arithmetic
 * as the store's breaker (nextAttempt), so the breaker still trips after its limit. A data root that does not exist
 * is never created: a strict gate then counts in `$TMPDIR/handoff-gate-<uid>/`, a private folder of this user.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unlinkQuiet } from '../fs-util.js';
import { mintTempTag } from '../ids.js';
import { dataRoot, rootFolder, type Env } from '../paths.js';
import { sha256Hex } from '../sha256.js';
import { nextAttempt, type CountResult } from './breaker.js';

interface CounterFile {
  key: string;
  attempts: number;
  tripped: boolean;
  last_codes: string[];
  updated_at: string;
}

/** Where a file counter lives: the data root's gate/ folder, or the user's private folder under $TMPDIR. */
export type CounterPlace = 'root' | 'tmp';

const uid = (): number => process.getuid?.() ?? 0;

/**
 * The temp folder as os.tmpdir() finds it, but from the call's environment (`env`), not this process's: TMPDIR, TMP
 * or TEMP (a trailing slash dropped), else /tmp.
 */
function tmpdirOf(env: Env): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP;
  if (dir === undefined || dir === '') return '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

/** `$TMPDIR/handoff-gate-<uid>/`. */
const tmpCounterDir = (env: Env): string => join(tmpdirOf(env), `handoff-gate-${uid()}`);

const mkdirQuiet = (dir: string): void => {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
};

/**
 * The counter folder, created when `create` (one level only: `<root>/gate/` under an existing root, never the root).
 * The folder under the shared $TMPDIR must be this user's own real folder that nobody else can write.
 */
function counterDir(place: CounterPlace, env: Env, cwd: string, create: boolean): string {
  if (place === 'root') {
    const dir = rootFolder(env, 'gate', cwd);
    if (create) {
      mkdirQuiet(dir);
      rootFolder(env, 'gate', cwd); // an entry that appeared meanwhile must be a real folder too
    }
    return dir;
  }
  const dir = tmpCounterDir(env);
  if (create) mkdirQuiet(dir);
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid() || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a private folder of this user`);
  }
  return dir;
}

/** One file per key; under $TMPDIR the data root is part of the name (one folder serves every data root). */
function fileOf(dir: string, place: CounterPlace, env: Env, cwd: string, key: string): string {
  const name = place === 'root' ? key : `${dataRoot(env, cwd)}\0${key}`;
  return join(dir, `${sha256Hex(name)}.json`);
}

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

/** Counts one block for `key` in its file (creating the counter folder); throws when the file cannot be written. */
export function countBlockInFile(
  place: CounterPlace,
  env: Env,
  cwd: string,
  key: string,
  codes: string[],
  max: number,
  endTrip = false,
): CountResult {
  const path = fileOf(counterDir(place, env, cwd, true), place, env, cwd, key);
  const found = readCounter(path, key);
  const prev = found?.tripped && endTrip ? undefined : found;
  const next = nextAttempt(prev && { attempts: prev.attempts, tripped: prev.tripped }, max);
  const record: CounterFile = {
    key,
    attempts: next.attempts,
    tripped: next.tripped,
    last_codes: codes,
    updated_at: new Date().toISOString(),
  };
  const tmp = `${path}.${process.pid}.${mintTempTag()}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } finally {
    unlinkQuiet(tmp);
  }
  return { attempt: next.attempts, tripped: next.tripped, previousCodes: prev?.last_codes };
}

/**
 * An allow forgets the key's file counters in both places (best effort: a missing or unusable folder holds none). A
 * folder that is not there is not looked into: the counters usually live in the store. Naming a counter file hashes
 * its key without node:crypto (src/sha256.ts), whose load cost every allowed stop milliseconds.
 */
export function resetFileCounter(env: Env, cwd: string, key: string): void {
  for (const place of ['root', 'tmp'] as const) {
    try {
      const dir = counterDir(place, env, cwd, false);
      if (existsSync(dir)) unlinkQuiet(fileOf(dir, place, env, cwd, key));
    } catch {
      // the folder is absent or not ours: it holds no counter of this key
    }
  }
}

interface DeliveredEntry {
  /** sha256 of the block's nonce. */
  h: string;
  /** The block's number in its turn. */
  n: number;
  codes: string[];
}

/** How many issued nonces a key keeps (hand-run calls add theirs; the harness's delivered one must stay findable). */
const KEPT_NONCES = 16;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function readEntries(path: string, key: string): DeliveredEntry[] {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { key?: unknown; entries?: unknown };
    if (v.key !== key || !Array.isArray(v.entries)) return [];
    return (v.entries as Partial<DeliveredEntry>[]).filter(
      (e): e is DeliveredEntry =>
        typeof e.h === 'string' && typeof e.n === 'number' && e.n >= 1 && Array.isArray(e.codes),
    );
  } catch {
    return []; // absent or damaged: no block of this key was delivered
  }
}

/**
 * The breaker of a harness that records the hook's feedback: a block is a continuation of block n
 * only when the harness is continuing (`continuing`) and its latest feedback record holds the nonce (`delivered`) this
 * key issued with block n; otherwise it is block 1. Each block not tripped gets a fresh nonce, kept as its sha256 with
 * its number; nothing is ever reset, so a call made by hand (its nonce never delivered) neither advances nor resets
 * what the harness's own calls see. Counts in `place`; throws when the file cannot be written.
 */
export function countDelivered(
  place: CounterPlace,
  env: Env,
  cwd: string,
  key: string,
  codes: string[],
  max: number,
  delivered: string | undefined,
  continuing: boolean,
): CountResult & { nonce?: string } {
  const path = fileOf(counterDir(place, env, cwd, true), place, env, cwd, `delivered:${key}`);
  const entries = readEntries(path, key);
  const hit = delivered !== undefined && continuing ? entries.find((e) => e.h === sha256(delivered)) : undefined;
  const attempt = (hit?.n ?? 0) + 1;
  const tripped = attempt >= max;
  const result = { attempt, tripped, previousCodes: hit?.codes };
  if (tripped) return result;
  const nonce = randomBytes(16).toString('hex');
  const kept = [...entries, { h: sha256(nonce), n: attempt, codes }].slice(-KEPT_NONCES);
  const tmp = `${path}.${process.pid}.${mintTempTag()}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify({ key, entries: kept, updated_at: new Date().toISOString() })}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    renameSync(tmp, path);
  } finally {
    unlinkQuiet(tmp);
  }
  return { ...result, nonce };
}

/**
 * Counts with `count` in `<root>/gate/`, else in `$TMPDIR/handoff-gate-<uid>/`; throws the two
 * failures as one when neither can be written.
 */
export function countInFiles<T>(count: (place: CounterPlace) => T, rootFirst = true): T {
  let rootError: unknown = new Error('the data root is not there');
  if (rootFirst) {
    try {
      return count('root');
    } catch (e) {
      rootError = e;
    }
  }
  try {
    return count('tmp');
  } catch (tmpError) {
    throw new Error(
      `in <root>/gate/: ${(rootError as Error).message}; in $TMPDIR/handoff-gate-<uid>/: ${(tmpError as Error).message}`,
      { cause: tmpError },
    );
  }
}
