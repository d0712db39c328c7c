/**
 * Backstop capture of an unfinalized draft. It makes work that exists only on disk
 * visible in the store, and never writes COMPLETE or any closing state, never touches a closed row, never edits or
 * deletes the draft and never invents a contract id.
 */
import { agentPrefix } from '../ids.js';
import { isObject, own, type JsonObject } from '../envelope/vocabulary.js';
import { readDraft } from '../drafts/files.js';
import { readDraftMeta } from '../drafts/meta.js';
import type { Env } from '../paths.js';
import { isClosedState, type HandoffRow } from '../store/handoff-row.js';
import type { Store } from '../store/store.js';
import { harnessLock, harnessTips } from '../dispatch/harness.js';

/** The captured envelope: the draft, IN_PROGRESS, marked degraded and auto_captured. Undefined when unusable. */
export function capturedEnvelope(
  draft: JsonObject,
  now: string,
  stopReason: string | undefined,
): JsonObject | undefined {
  const status = own(draft, 'agent_status');
  if (!isObject(status)) return undefined;
  const declared = own(status, 'agent_state');
  return {
    ...draft,
    agent_status: { ...status, agent_state: 'IN_PROGRESS' },
    degraded: true,
    auto_captured: { by: 'gate', at: now, declared_agent_state: declared ?? null, stop_reason: stopReason ?? null },
  };
}

export interface CaptureRequest {
  env: Env;
  cwd: string;
  contractId: string;
  tip?: HandoffRow;
  /** The hook's run id to bind; undefined for a gate run with --draft-id, which binds nothing. */
  harnessValue?: string;
  /**
   * The workspace of a row the capture inserts when the draft has no birth record (drafts/meta.ts): a recorded
   * workspace always wins, whatever the gate's flags say.
   */
  workspace: string;
  stopReason?: string;
  /** The store, created on demand (an insert into a store that does not exist yet creates it). */
  writer: () => Promise<Store>;
}

/** `bound`: the capture wrote the harness value onto a row that had none (the run is now tied to the contract). */
export type CaptureOutcome = { captured: boolean; bound?: boolean; error?: string };

function loadDraft(env: Env, id: string, cwd: string): JsonObject | undefined {
  try {
    const read = readDraft(env, id, cwd);
    return read.state === 'ok' ? read.envelope : undefined;
  } catch {
    return undefined; // an unreadable draft is simply not captured
  }
}

/** Runs the capture when its preconditions hold; store failures are reported, never thrown (verdict unchanged). */
export async function backstopCapture(r: CaptureRequest): Promise<CaptureOutcome> {
  if (r.tip !== undefined && isClosedState(r.tip.agent_state)) return { captured: false };
  const draft = loadDraft(r.env, r.contractId, r.cwd);
  if (draft === undefined) return { captured: false };
  const now = new Date().toISOString();
  const envelope = capturedEnvelope(draft, now, r.stopReason);
  if (envelope === undefined) return { captured: false };
  const json = JSON.stringify(envelope);
  try {
    // Read only when inserting: an existing row's workspace is frozen. An unreadable sidecar stops the capture (noted).
    const meta = r.tip === undefined ? readDraftMeta(r.env, r.contractId, r.cwd) : undefined;
    const workspace = meta?.workspace ?? r.workspace;
    const store = await r.writer();
    const hv = r.harnessValue;
    return await store.tx(
      async (t): Promise<CaptureOutcome> => {
        // The run id goes on the row only when no other chain carries it (lane 2 must stay unambiguous).
        const free = hv !== undefined && (await harnessTips(t, hv)).every((x) => x.id === r.tip?.id);
        const harnessId = free ? hv : null;
        const binds = harnessId !== null && (r.tip === undefined || r.tip.harness_id === null);
        const agentId = agentPrefix(r.contractId);
        const captured =
          r.tip !== undefined
            ? await t.captureOpenRow({ id: r.tip.id, json, harnessId })
            : await t.captureNewRow({ contractId: r.contractId, agentId, workspace, json, harnessId });
        // A row inserted for an init draft takes the draft's claim token hash, as its finalize would.
        const hash = meta?.claim_token_sha256;
        if (captured && r.tip === undefined && hash !== undefined) {
          const inserted = await t.getHandoffByContractId(r.contractId);
          if (inserted !== undefined) await t.setClaimTokenHash(inserted.id, hash);
        }
        return { captured, bound: captured && binds };
      },
      // One attempt: the gate stays inside the hook timeout. The contract's lock (and the run id's) serialize
      // the capture with a finalize or claim from any host.
      { attempts: 1, lock: hv === undefined ? [r.contractId] : [r.contractId, harnessLock(hv)] },
    );
  } catch (e) {
    return { captured: false, error: (e as Error).message };
  }
}
