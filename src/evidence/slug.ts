/**
 * The safe-slug rule (defined in src/safe-slug.ts) and the workspace segment of blob paths and
 * brief lookups.
 */
import { resolveWorkspace, type Env } from '../paths.js';

export { checkSlug, isSafeSlug } from '../safe-slug.js';

/**
 * The workspace of a verb that mints a blob path or looks up a brief. Every resolved workspace is now a safe
 * slug (explicit values are checked as given, the derived default is made into one), so this
 * is resolveWorkspace under the name the evidence verbs use.
 */
export const workspaceSlug = (flag: string | undefined, env: Env, cwd: string): string =>
  resolveWorkspace(flag, env, cwd);
