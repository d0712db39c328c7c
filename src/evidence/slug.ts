/**
 * The safe-slug rule (defined in src/safe-slug.ts) and the workspace segment of blob paths and
 * brief lookups.
 */
import { readdirSync } from 'node:fs';
import { draftsDir, explicitWorkspace, resolveWorkspace, workspaceRoot, type Env } from '../paths.js';
import { readDraftMeta } from '../drafts/meta.js';
import { isDraftId } from '../ids.js';

export { checkSlug, isSafeSlug } from '../safe-slug.js';

/**
 * The workspace of a verb that mints a blob path or looks up a brief. Every resolved workspace is now a safe
 * slug (explicit values are checked as given, the derived default is made into one), so this
 * is resolveWorkspace under the name the evidence verbs use. Briefs and evidence keep workspace names; a derived name
 * that drafts' birth records show in use from another root is announced through `notice` ([WORKSPACE TWO ROOTS]),
 * since the two projects then share their briefs and evidence.
 */
export function workspaceSlug(
  flag: string | undefined,
  env: Env,
  cwd: string,
  notice?: (line: string) => void,
): string {
  const workspace = resolveWorkspace(flag, env, cwd);
  if (notice !== undefined && explicitWorkspace(flag, env) === undefined) {
    const other = otherRoot(env, cwd, workspace, workspaceRoot(cwd));
    if (other !== undefined) notice(twoRootsNotice(workspace, workspaceRoot(cwd), other));
  }
  return workspace;
}

export const twoRootsNotice = (workspace: string, here: string, other: string): string =>
  `[WORKSPACE TWO ROOTS] workspace ${JSON.stringify(workspace)} is used from ${JSON.stringify(here)} and from ` +
  `${JSON.stringify(other)}: their briefs and evidence are shared under that name; pass --workspace or set ` +
  `HANDOFF_WORKSPACE to keep them apart`;

/** A root other than `root` that a draft's birth record names for `workspace`, or undefined (unreadable ones skipped). */
function otherRoot(env: Env, cwd: string, workspace: string, root: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(draftsDir(env, cwd));
  } catch {
    return undefined;
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.meta.json')) continue;
    const id = name.slice(0, -'.meta.json'.length);
    if (!isDraftId(id)) continue;
    try {
      const meta = readDraftMeta(env, id, cwd);
      if (meta?.workspace === workspace && meta.workspace_root !== undefined && meta.workspace_root !== root)
        return meta.workspace_root;
    } catch {
      // an unreadable birth record says nothing about the workspace
    }
  }
  return undefined;
}
