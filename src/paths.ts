/**
 * Every path and environment lookup in one place. Resolved on every call, never cached
 * (cli-contract-drafts.md §2, store-and-finalize.md §1).
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

export type Env = NodeJS.ProcessEnv;

/** `$HANDOFF_HOME` (absolute against cwd) → `$XDG_DATA_HOME/handoff` (if absolute) → `~/.local/share/handoff`. */
export function dataRoot(env: Env, cwd: string = process.cwd()): string {
  const home = env.HANDOFF_HOME;
  if (home !== undefined && home !== '') return resolve(cwd, home);
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'handoff');
  return join(env.HOME && env.HOME !== '' ? env.HOME : homedir(), '.local', 'share', 'handoff');
}

export const draftsDir = (env: Env, cwd?: string): string => join(dataRoot(env, cwd), 'drafts');
/** Only call with an id that passed DRAFT_ID_RE: a valid id can only name a file directly inside the folder. */
export const draftFile = (env: Env, draftId: string, cwd?: string): string => join(draftsDir(env, cwd), `${draftId}.json`);
export const lockFile = (env: Env, draftId: string, cwd?: string): string => join(draftsDir(env, cwd), `${draftId}.lock`);

/** `$HANDOFF_DB` (the file only) → `<root>/handoff.db`. */
export function dbPath(env: Env, cwd: string = process.cwd()): string {
  const db = env.HANDOFF_DB;
  if (db !== undefined && db !== '') return resolve(cwd, db);
  return join(dataRoot(env, cwd), 'handoff.db');
}

export const storeExists = (env: Env, cwd?: string): boolean => existsSync(dbPath(env, cwd));

/** `<root>/evidence`; `$HANDOFF_DB` does not move it. */
export const evidenceRoot = (env: Env, cwd?: string): string => join(dataRoot(env, cwd), 'evidence');

/** The git top-level of `dir`: the nearest ancestor holding a `.git` entry (found without spawning git). */
export function gitTopLevel(dir: string): string | undefined {
  let cur = resolve(dir);
  for (;;) {
    try {
      statSync(join(cur, '.git'));
      return cur;
    } catch {
      const up = dirname(cur);
      if (up === cur) return undefined;
      cur = up;
    }
  }
}

/**
 * Workspace resolution used everywhere: `--workspace` → `$HANDOFF_WORKSPACE` → basename of the git top-level of
 * `dir` → basename of `dir`. Whether it must be a safe slug is the caller's rule.
 */
export function resolveWorkspace(flag: string | undefined, env: Env, dir: string = process.cwd()): string {
  if (flag !== undefined) return flag;
  const fromEnv = env.HANDOFF_WORKSPACE;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv;
  const top = gitTopLevel(dir);
  const name = basename(top ?? resolve(dir));
  return name === '' ? 'root' : name;
}

/** `$HANDOFF_STORE_URL`: a postgres:// URL selects the PostgreSQL store (amendments-2.md §P1); unset or empty, SQLite. */
export function storeUrl(env: Env): string | undefined {
  const url = env.HANDOFF_STORE_URL;
  return url !== undefined && url.trim() !== '' ? url.trim() : undefined;
}
