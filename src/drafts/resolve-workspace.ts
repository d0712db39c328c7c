/**
 * The current workspace's drafts, for addressing without `--draft-id` or `--agent-id`. A draft belongs to the
 * workspace root recorded at its birth (a path, never a folder's name: two projects both called `app` never share a
 * draft), or, when the caller names the workspace (`--workspace`, `$HANDOFF_WORKSPACE`), to the workspace named in
 * its birth record; a birth record without a root (older drafts, adopted rows) matches by name; a draft without one (made before birth records existed, or adopted from a row that
 * named no valid workspace) belongs to its row's workspace, and with no row to every workspace. A birth record that
 * cannot be read is skipped and counted, never guessed at: guessing could write into another project's draft.
 */
import { HandoffError } from '../errors.js';
import { explicitWorkspace, resolveWorkspace, workspaceRoot, type Env } from '../paths.js';
import { readDraftMeta, type DraftMeta } from './meta.js';
import type { Candidate } from './resolve.js';

export interface WorkspaceScope {
  /** The verb's `--workspace`, where it has one (else `$HANDOFF_WORKSPACE`, else the git/cwd rule). */
  flag?: string;
  /** The workspace of the contract's row, or undefined without a row (asked only for drafts without a birth record). */
  rowWorkspace(draftId: string): Promise<string | undefined>;
  /** Hears the one line saying which draft an implicit resolution used (stderr). */
  notice?: (line: string) => void;
}

export interface WorkspaceCandidates {
  workspace: string;
  candidates: Candidate[];
  skipped: number;
  /** The DRAFT_NOT_FOUND to throw when no candidate is left (names the other workspaces' drafts). */
  notFound: () => HandoffError;
}

/** `all` keeps its order (newest first); only the current workspace's drafts stay. */
export async function inWorkspace(
  env: Env,
  cwd: string | undefined,
  all: Candidate[],
  scope: WorkspaceScope,
): Promise<WorkspaceCandidates> {
  const workspace = resolveWorkspace(scope.flag, env, cwd);
  // Named by the caller: the name decides. Derived: the root's real path decides where a draft recorded one.
  const root = explicitWorkspace(scope.flag, env) === undefined ? workspaceRoot(cwd) : undefined;
  const candidates: Candidate[] = [];
  const elsewhere = new Map<string, number>();
  let skipped = 0;
  for (const c of all) {
    let meta: DraftMeta | undefined;
    try {
      meta = readDraftMeta(env, c.draftId, cwd);
    } catch {
      skipped++;
      continue;
    }
    const born = meta?.workspace ?? (await scope.rowWorkspace(c.draftId));
    const bornRoot = root === undefined ? undefined : meta?.workspace_root;
    if (bornRoot !== undefined ? bornRoot === root : born === undefined || born === workspace) {
      candidates.push(c);
      continue;
    }
    // Another project of the same name is named by its root, so the refusal tells the two apart.
    const where = born === workspace && bornRoot !== undefined ? bornRoot : (born ?? workspace);
    elsewhere.set(where, (elsewhere.get(where) ?? 0) + 1);
  }
  return { workspace, candidates, skipped, notFound: () => noDraftHere(workspace, elsewhere, skipped) };
}

/** DRAFT_NOT_FOUND (exit 3) for the current workspace, naming where drafts do exist and how to pick one. */
function noDraftHere(workspace: string, elsewhere: Map<string, number>, skipped: number): HandoffError {
  const ws = JSON.stringify(workspace);
  const unreadable =
    skipped > 0 ? `; ${skipped} draft${skipped === 1 ? '' : 's'} with an unreadable birth record skipped` : '';
  if (elsewhere.size === 0) {
    return new HandoffError(
      'DRAFT_NOT_FOUND',
      `no draft found in workspace ${ws}${unreadable}; run \`handoff contract init\`, which prints the ids to pass on every later call`,
      { workspace, ...(skipped > 0 ? { skipped_unreadable: skipped } : {}) },
    );
  }
  const sorted = [...elsewhere].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = sorted.reduce((n, [, k]) => n + k, 0);
  const named =
    sorted
      .slice(0, 5)
      .map(([w, k]) => `${JSON.stringify(w)}: ${k}`)
      .join(', ') + (sorted.length > 5 ? ', ...' : '');
  return new HandoffError(
    'DRAFT_NOT_FOUND',
    `no draft in workspace ${ws}; ${total} draft${total === 1 ? '' : 's'} in ${sorted.length === 1 ? 'another workspace' : `${sorted.length} other workspaces`} (${named})${unreadable}. ` +
      "A call without --draft-id never uses another workspace's draft: pass --draft-id to pick one, or run `handoff contract init` for a new draft here",
    {
      workspace,
      other_workspaces: Object.fromEntries(sorted),
      ...(skipped > 0 ? { skipped_unreadable: skipped } : {}),
    },
  );
}

/** The scope over a store session (or anything that finds a row by contract id). */
export const scopeOver = (
  rows: { row(id: string): Promise<{ workspace: string } | undefined> },
  notice?: (line: string) => void,
  flag?: string,
): WorkspaceScope => ({ flag, notice, rowWorkspace: async (id) => (await rows.row(id))?.workspace });
