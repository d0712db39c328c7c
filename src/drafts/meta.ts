/**
 * A draft's birth record: `drafts/<id>.meta.json` beside the draft, holding the workspace the
 * draft was born in, so every later verb on it (writes, finalize, evidence run, contract verify, the gate's capture)
 * uses that workspace whatever the current directory. The envelope's closed keys stay untouched. Written atomically
 * with the draft (saveDraft's `meta`) and removed with it (removeDraftFiles, gc). A draft without one, made before
 * this change, keeps the old rule: the workspace of the calling verb.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { HandoffError } from '../errors.js';
import { entryExists } from '../fs-util.js';
import { draftsDir, explicitWorkspace, resolveWorkspace, type Env } from '../paths.js';
import { checkSlug, isSafeSlug } from '../safe-slug.js';
import { draftUnreadable } from './errors.js';

export interface DraftMeta {
  workspace: string;
  /**
   * The real path of the workspace root the draft was born in (paths.ts workspaceRoot); implicit resolution keys on
   * it. Absent in drafts made before it was recorded and in drafts adopted from a row: those match by name.
   */
  workspace_root?: string;
  /** Written by dispatch: the draft carries a dispatched contract, so `view` reads its row. */
  dispatched?: true;
  /**
   * Written by init: the sha256 of the claim token it printed (never the token). Finalize copies it to the row it
   * inserts, so `contract claim` of the contract needs the token. Absent in drafts made before init minted tokens.
   */
  claim_token_sha256?: string;
}

/** Only call with an id that passed DRAFT_ID_RE (`<id>.meta.json` is never a draft candidate: `<id>.meta` is no id). */
export const metaFile = (env: Env, draftId: string, cwd?: string): string =>
  join(draftsDir(env, cwd), `${draftId}.meta.json`);

export const serializeMeta = (meta: DraftMeta): string =>
  `${JSON.stringify({
    workspace: meta.workspace,
    ...(meta.workspace_root === undefined ? {} : { workspace_root: meta.workspace_root }),
    ...(meta.dispatched === true ? { dispatched: true } : {}),
    ...(meta.claim_token_sha256 === undefined ? {} : { claim_token_sha256: meta.claim_token_sha256 }),
  })}\n`;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** An absolute path of a sane length without NUL: what a recorded workspace root must be. */
const isRootPath = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= 4096 && isAbsolute(v) && !v.includes('\0');

/** The birth record for a workspace, or undefined when the value cannot name one (a row from before workspaces were checked as slugs). */
export const metaFor = (workspace: string): DraftMeta | undefined =>
  isSafeSlug(workspace) ? { workspace } : undefined;

/**
 * The draft's sidecar: undefined when there is none; anything there that is not a regular file holding
 * `{"workspace": <safe slug>}` (with an optional absolute `workspace_root`) is DRAFT_UNREADABLE (exit 3), naming the file (remove it to fall back to the old rule).
 */
export function readDraftMeta(env: Env, draftId: string, cwd?: string): DraftMeta | undefined {
  const path = metaFile(env, draftId, cwd);
  let fd: number;
  try {
    // Non-blocking, so a FIFO planted under the name can never hang the call.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !entryExists(path)) return undefined;
    throw draftUnreadable(draftId, path, `cannot be read (${code ?? (e as Error).message})`);
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw draftUnreadable(draftId, path, 'is not a regular file');
    text = readFileSync(fd, 'utf8');
  } catch (e) {
    if (e instanceof HandoffError) throw e;
    throw draftUnreadable(
      draftId,
      path,
      `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw draftUnreadable(draftId, path, 'is not valid JSON');
  }
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const workspace = record.workspace;
  if (!isSafeSlug(workspace)) throw draftUnreadable(draftId, path, 'does not hold {"workspace": <safe slug>}');
  const root = record.workspace_root;
  if (root !== undefined && !isRootPath(root))
    throw draftUnreadable(draftId, path, 'holds a workspace_root that is not an absolute path');
  if (record.dispatched !== undefined && record.dispatched !== true)
    throw draftUnreadable(draftId, path, 'holds a dispatched mark that is not true');
  const hash = record.claim_token_sha256;
  if (hash !== undefined && (typeof hash !== 'string' || !SHA256_HEX.test(hash)))
    throw draftUnreadable(draftId, path, 'holds a claim_token_sha256 that is not a lowercase hex sha256');
  return {
    workspace,
    ...(root === undefined ? {} : { workspace_root: root }),
    ...(record.dispatched === true ? { dispatched: true as const } : {}),
    ...(hash === undefined ? {} : { claim_token_sha256: hash }),
  };
}

export const workspaceMismatch = (draftId: string, recorded: string, requested: string): HandoffError =>
  new HandoffError(
    'WORKSPACE_MISMATCH',
    `draft ${draftId} was born in workspace ${JSON.stringify(recorded)}, not ${JSON.stringify(requested)}; nothing was written`,
    { draft_id: draftId, workspace: recorded, requested_workspace: requested },
    `Drop --workspace (the draft keeps ${JSON.stringify(recorded)} whatever the current directory), or pass --workspace ${recorded}.`,
  );

/**
 * The workspace recorded for `draftId`, or undefined when it has no sidecar. An explicit `--workspace` must be a safe
 * slug and equal it (UNSAFE_SLUG / WORKSPACE_MISMATCH, exit 2); `$HANDOFF_WORKSPACE` and the current directory are
 * not consulted.
 */
export function recordedWorkspace(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  flag: string | undefined,
): string | undefined {
  const meta = readDraftMeta(env, draftId, cwd);
  if (meta === undefined) return undefined;
  if (flag !== undefined && checkSlug(flag, '--workspace') !== meta.workspace)
    throw workspaceMismatch(draftId, meta.workspace, flag);
  return meta.workspace;
}

/**
 * The workspace a verb on `draftId` uses: the recorded one, else the usual resolution (resolveWorkspace). An explicit
 * value (`--workspace`, `$HANDOFF_WORKSPACE`) that is not a safe slug is refused either way (UNSAFE_SLUG, exit 2).
 */
export function draftWorkspace(env: Env, cwd: string, draftId: string, flag: string | undefined): string {
  explicitWorkspace(flag, env);
  return recordedWorkspace(env, cwd, draftId, flag) ?? resolveWorkspace(flag, env, cwd);
}
