/**
 * `init`: a new draft holding the initial envelope. Never opens or creates the store.
 */
import { initialEnvelope } from '../envelope/vocabulary.js';
import { agentPrefix, mintAgentId, mintDraftId } from '../ids.js';
import { resolveWorkspace, workspaceRoot, type Env } from '../paths.js';
import { claimTokenHash, mintClaimToken } from '../dispatch/claim-token.js';
import { validateEnvelope } from '../validator/index.js';
import { draftExists } from './errors.js';
import { draftEntryExists, saveDraft } from './files.js';
import { LockSet } from './lock.js';

export interface InitResult {
  draftId: string;
  agentId: string;
  agentIdMinted: boolean;
  /** The workspace recorded in the draft's sidecar. */
  workspace: string;
  /**
   * The contract's claim token, for the caller only: the draft's sidecar keeps its sha256 (never the token, never in
   * the envelope), and finalize copies that to the row.
   */
  claimToken: string;
}

/**
 * Flags must already be checked (checkIdFlags). A given id that exists (readable or not) → DRAFT_EXISTS (exit 1).
 * The workspace (`--workspace`, else `$HANDOFF_WORKSPACE`, else the folder) is resolved before any file access
 * (UNSAFE_SLUG, exit 2) and recorded beside the draft with the workspace root's real path: the draft keeps its
 * workspace wherever it is used later, and implicit resolution finds it only under the same root.
 */
export async function initDraft(
  env: Env,
  cwd: string | undefined,
  flags: { draftId?: string; agentId?: string; workspaceFlag?: string },
): Promise<InitResult> {
  const workspace = resolveWorkspace(flags.workspaceFlag, env, cwd);
  const agentIdMinted = flags.agentId === undefined && flags.draftId === undefined;
  const agentId = flags.agentId ?? (flags.draftId !== undefined ? agentPrefix(flags.draftId) : mintAgentId());
  let draftId = flags.draftId ?? mintDraftId(agentId);
  const locks = new LockSet(env, cwd);
  let saved = false;
  try {
    for (;;) {
      await locks.add(draftId);
      if (!draftEntryExists(env, draftId, cwd)) break;
      if (flags.draftId !== undefined) throw draftExists(draftId);
      draftId = mintDraftId(agentId); // a minted id that exists: negligible, re-mint
    }
    const envelope = initialEnvelope(agentId);
    const verdict = validateEnvelope(envelope);
    if (!verdict.ok) throw new Error(`the initial envelope does not validate: ${verdict.codes.join(', ')}`);
    const claimToken = mintClaimToken();
    saveDraft(env, draftId, envelope, cwd, {
      workspace,
      workspace_root: workspaceRoot(cwd),
      claim_token_sha256: claimTokenHash(claimToken),
    });
    saved = true;
    return { draftId, agentId, agentIdMinted, workspace, claimToken };
  } finally {
    locks.releaseAll(!saved);
  }
}
