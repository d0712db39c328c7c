/**
 * Every path and environment lookup in one place. Resolved on every call, never cached
 * (cli-contract-drafts.md §2, store-and-finalize.md §1).
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { checkSlug } from './safe-slug.js';

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
 * The default workspace derived from a folder name, made into a safe slug (amendments-2.md §H11): NFC first (so a
 * name spelled NFD, as macOS file systems store it, gives the same workspace), then each run of characters outside
 * [A-Za-z0-9._-] becomes `-`, leading characters that are not alphanumeric are dropped, `..` becomes `.`, at most 64
 * characters, and `default` when nothing is left. `My Project` → `My-Project`, `café` → `caf-`.
 */
export function normalizeWorkspace(name: string): string {
  const slug = name
    .normalize('NFC')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/\.{2,}/g, '.')
    .slice(0, 64);
  return slug === '' ? 'default' : slug;
}

const WORKSPACE_HINT = 'pass --workspace <slug> or set $HANDOFF_WORKSPACE to a safe slug';

/**
 * The explicit workspace, if any: `--workspace`, else a non-empty `$HANDOFF_WORKSPACE`. Used exactly as given or
 * refused (UNSAFE_SLUG, exit 2): an explicit value is never normalized.
 */
export function explicitWorkspace(flag: string | undefined, env: Env): string | undefined {
  if (flag !== undefined) return checkSlug(flag, '--workspace', WORKSPACE_HINT);
  const fromEnv = env.HANDOFF_WORKSPACE;
  if (fromEnv !== undefined && fromEnv !== '') return checkSlug(fromEnv, '$HANDOFF_WORKSPACE', WORKSPACE_HINT);
  return undefined;
}

/**
 * Workspace resolution used everywhere: `--workspace` → `$HANDOFF_WORKSPACE` (both checked as given) → the name of
 * the git top-level of `dir` → the name of `dir` (both normalized). The result is always a safe slug. A draft's own
 * workspace, recorded at its birth, wins over this for the verbs on that draft (src/drafts/meta.ts).
 */
export function resolveWorkspace(flag: string | undefined, env: Env, dir: string = process.cwd()): string {
  const explicit = explicitWorkspace(flag, env);
  if (explicit !== undefined) return explicit;
  const top = gitTopLevel(dir);
  return normalizeWorkspace(basename(top ?? resolve(dir)));
}
