/**
 * A draft whose row closed elsewhere: another host (or process) finalized the contract while this host's draft
 * still reads an open state. Told where the store is already open, as the continuation notice is: `[ROW CLOSED
 * ELSEWHERE]` with the row's state and the live tip.
 */
import type { Env } from '../paths.js';
import { readDraft } from './files.js';
import { getOwn, isPlainObject } from './mutate.js';

/** The draft file's own `agent_status.agent_state`, or undefined when it has none or cannot be read. */
function localState(env: Env, draftId: string, cwd: string | undefined): string | undefined {
  try {
    const r = readDraft(env, draftId, cwd);
    if (r.state !== 'ok') return undefined;
    const status = getOwn(r.envelope, 'agent_status');
    const state = isPlainObject(status) ? getOwn(status, 'agent_state') : undefined;
    return typeof state === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The notice when the draft `draftId` on this host reads another state than its closed row `rowState`, else
 * undefined (a draft finalized here reads its row's state; a missing draft says nothing).
 */
export function closedElsewhereNotice(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  rowState: string,
  liveTipId: string,
): string | undefined {
  const local = localState(env, draftId, cwd);
  if (local === undefined || local === rowState) return undefined;
  return (
    `[ROW CLOSED ELSEWHERE] ${draftId}: its row is ${rowState} (closed by another host or process) while this ` +
    `host's draft reads ${local}; the live tip is ${liveTipId}: use --draft-id ${liveTipId}`
  );
}
