/**
 * Every path and environment lookup in one place. Resolved on every call, never cached
 *.
 */
import { accessSync, constants, existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { HandoffError } from './errors.js';
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

/** The data root's own folders: each must be a real folder, never a symlink. */
export type RootFolder = 'drafts' | 'evidence' | 'tmp' | 'gate';

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;

/** What an entry that should be a folder is instead, for messages. */
export function entryKind(st: import('node:fs').Stats): string {
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isFile()) return 'a regular file';
  return 'not a folder';
}

export const dataRootUnsafe = (path: string, what: string): HandoffError =>
  new HandoffError(
    'DATA_ROOT_UNSAFE',
    `${path} is ${what}; the data root's drafts/, evidence/, tmp/ and gate/ must be real folders, so nothing was written or deleted`,
    { path },
    'Move the data itself (set HANDOFF_HOME to the real location) instead of linking a folder inside the data root.',
  );

/**
 * `<root>/<name>`, checked without following links: absent is fine (it is created one level at a time when a verb
 * writes), a real folder is fine, anything else (a symlink, a file) is DATA_ROOT_UNSAFE (exit 4). The root itself may
 * be a symlink.
 */
export function rootFolder(env: Env, name: RootFolder, cwd?: string): string {
  const path = join(dataRoot(env, cwd), name);
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return path; // absent (or not inspectable): whoever creates or opens it reports the problem
  }
  if (!st.isDirectory()) throw dataRootUnsafe(path, entryKind(st));
  return path;
}

export const dataRootUnusable = (root: string, e: unknown): HandoffError =>
  new HandoffError(
    'DATA_ROOT_UNUSABLE',
    `the data root ${root} cannot be created or used (${errnoOf(e) ?? (e as Error)?.message ?? String(e)}); nothing was written`,
    { path: root },
    'Set HANDOFF_HOME to a writable folder.',
  );

/**
 * Creates `dir` and its missing ancestors one level at a time (mode 0700), never with a recursive mkdir (Node's loops
 * on paths such as /proc/...). Returns the outermost folder this call created, or undefined when `dir` existed. An
 * existing entry on the way that is not a folder, or a failing mkdir, throws the OS error.
 */
export function makeDirs(dir: string): string | undefined {
  const missing: string[] = [];
  for (let cur = resolve(dir); ;) {
    let st;
    try {
      st = statSync(cur);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') throw e;
      missing.unshift(cur);
      const up = dirname(cur);
      if (up === cur) break;
      cur = up;
      continue;
    }
    if (!st.isDirectory()) {
      const notDir: NodeJS.ErrnoException = new Error(`${cur} is not a folder`);
      notDir.code = 'ENOTDIR';
      throw notDir;
    }
    break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST' || !statSync(d).isDirectory()) throw e;
    }
  }
  return missing[0];
}

/** The data root, created when missing; DATA_ROOT_UNUSABLE (exit 4) when it cannot be (H13). Returns what it created. */
export function ensureDataRoot(env: Env, cwd?: string): string | undefined {
  const root = dataRoot(env, cwd);
  try {
    return makeDirs(root);
  } catch (e) {
    throw dataRootUnusable(root, e);
  }
}

/**
 * `<root>/<name>` created when missing (with the data root: DATA_ROOT_UNUSABLE), checked to be a real folder
 * (DATA_ROOT_UNSAFE). Returns the outermost folder this call created (the root or the folder), or undefined. A
 * failing mkdir of the folder itself throws the OS error for the caller's own code.
 */
export function ensureRootFolder(env: Env, name: RootFolder, cwd?: string): string | undefined {
  const path = rootFolder(env, name, cwd);
  const createdRoot = ensureDataRoot(env, cwd);
  try {
    mkdirSync(path, { mode: 0o700 });
    return createdRoot ?? path;
  } catch (e) {
    if (errnoOf(e) !== 'EEXIST') throw e;
  }
  rootFolder(env, name, cwd); // an entry appeared meanwhile: it must be a real folder too
  return createdRoot;
}

/**
 * Whether this process can write drafts under the data root: the drafts folder when it exists, else the nearest
 * existing folder above it (access(2): a read-only mount is refused even to root).
 */
export function dataRootWritable(env: Env, cwd?: string): boolean {
  for (let dir = join(dataRoot(env, cwd), 'drafts'); ;) {
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') return false;
    }
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

export const draftsDir = (env: Env, cwd?: string): string => rootFolder(env, 'drafts', cwd);
/** Only call with an id that passed DRAFT_ID_RE: a valid id can only name a file directly inside the folder. */
export const draftFile = (env: Env, draftId: string, cwd?: string): string =>
  join(draftsDir(env, cwd), `${draftId}.json`);
export const lockFile = (env: Env, draftId: string, cwd?: string): string =>
  join(draftsDir(env, cwd), `${draftId}.lock`);

/** `$HANDOFF_DB` (the file only) → `<root>/handoff.db`. */
export function dbPath(env: Env, cwd: string = process.cwd()): string {
  const db = env.HANDOFF_DB;
  if (db !== undefined && db !== '') return resolve(cwd, db);
  return join(dataRoot(env, cwd), 'handoff.db');
}

/** The default bound of an envelope as the row stores it (compact JSON): 1 MiB. */
export const DEFAULT_MAX_ENVELOPE_BYTES = 1024 * 1024;

/**
 * `$HANDOFF_MAX_ENVELOPE_BYTES`: a positive integer (canonical decimal), default 1 MiB. Anything else is a usage error
 * (exit 2) rather than a silently ignored setting.
 */
export function maxEnvelopeBytes(env: Env): number {
  const raw = env.HANDOFF_MAX_ENVELOPE_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_MAX_ENVELOPE_BYTES;
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) {
    throw new HandoffError(
      'USAGE',
      `HANDOFF_MAX_ENVELOPE_BYTES ${JSON.stringify(raw.slice(0, 40))} must be a positive whole number of bytes`,
    );
  }
  return Number(raw);
}

/**
 * The store file to open: dbPath, with the default `<root>/handoff.db` and its `-wal`/`-shm` checked without following
 * links: a symlink there is DATA_ROOT_UNSAFE (exit 4), never followed, so a planted link cannot send the store's
 * reads and writes elsewhere. An explicit $HANDOFF_DB is the user's own choice and may be a link.
 */
export function storeFile(env: Env, cwd?: string): string {
  const file = dbPath(env, cwd);
  if (env.HANDOFF_DB !== undefined && env.HANDOFF_DB !== '') return file;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue; // absent: SQLite creates it as a file
    }
    if (st.isSymbolicLink()) {
      throw new HandoffError(
        'DATA_ROOT_UNSAFE',
        `${path} is a symlink; the data root's store files (handoff.db, -wal, -shm) must be real files, so it was not followed and nothing was written`,
        { path },
        'Remove the link; to keep the store elsewhere, point HANDOFF_DB at it (an explicit HANDOFF_DB may be a link).',
      );
    }
  }
  return file;
}

/** The default time limit of one PostgreSQL statement (and of the client's wait for its answer): 10 s. */
export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/**
 * `$HANDOFF_STORE_TIMEOUT_MS`: the time limit of one PostgreSQL store call, a positive whole number of milliseconds
 * (at most one day), default 10 s. Anything else is a usage error (exit 2) rather than a silently ignored setting.
 */
export function storeTimeoutMs(env: Env): number {
  const raw = env.HANDOFF_STORE_TIMEOUT_MS;
  if (raw === undefined || raw === '') return DEFAULT_STORE_TIMEOUT_MS;
  if (!/^[1-9][0-9]{0,7}$/.test(raw) || Number(raw) > 86_400_000) {
    throw new HandoffError(
      'USAGE',
      `HANDOFF_STORE_TIMEOUT_MS ${JSON.stringify(raw.slice(0, 40))} must be a whole number of milliseconds from 1 to 86400000`,
    );
  }
  return Number(raw);
}

export const storeExists = (env: Env, cwd?: string): boolean => existsSync(storeFile(env, cwd));

/** `<root>/evidence`; `$HANDOFF_DB` does not move it. */
export const evidenceRoot = (env: Env, cwd?: string): string => rootFolder(env, 'evidence', cwd);

/** The git top-level of `dir`: the nearest ancestor holding a `.git` git would take (found without spawning git). */
export function gitTopLevel(dir: string): string | undefined {
  let cur = resolve(dir);
  for (;;) {
    if (isGitMarker(join(cur, '.git'))) return cur;
    const up = dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

/**
 * A `.git` git would take for a repository: a file (a worktree's or a submodule's `gitdir:` link) or a folder holding
 * HEAD. An empty `.git` folder (a sandbox's mount point, a half-made clone) is not one, as git itself judges.
 */
function isGitMarker(path: string): boolean {
  try {
    if (!statSync(path).isDirectory()) return true;
    statSync(join(path, 'HEAD'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The workspace root of `dir`: the real path of its git top-level (found by walking up, no git process), else of `dir`
 * itself. Implicit draft resolution keys on it, so two projects with the same folder name never share a draft. A path
 * that cannot be resolved (removed meanwhile) is used as given, made absolute.
 */
export function workspaceRoot(dir: string = process.cwd()): string {
  const top = gitTopLevel(dir) ?? resolve(dir);
  try {
    return realpathSync(top);
  } catch {
    return top;
  }
}

/**
 * The default workspace derived from a folder name, made into a safe slug: NFC first (so a
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

/** `$HANDOFF_STORE_URL`: a postgres:// URL selects the PostgreSQL store; unset or empty, SQLite. */
export function storeUrl(env: Env): string | undefined {
  const url = env.HANDOFF_STORE_URL;
  return url !== undefined && url.trim() !== '' ? url.trim() : undefined;
}
