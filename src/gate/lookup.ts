/**
 * Finding the turn's contract: exact lanes only (--draft-id, the run id, the `contract_id:` line of the turn's first
 * prompt), the verdict always on the chain's live tip. --draft-id alone decides; otherwise the run id's contract and
 * the one the prompt names are both judged when they differ (the prompt's is the one reported first). The prompt
 * lane claims what it finds for a run id that holds nothing yet. Message text is never a lookup key.
 */
import { existsSync } from 'node:fs';
import { isHandoffError } from '../errors.js';
import { draftFile, type Env } from '../paths.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { Store, StoreReads } from '../store/store.js';
import { claimTip, harnessLock, harnessTips } from '../dispatch/harness.js';
import { harnessField, harnessValue, ownTranscript, type HookInput } from './hook-input.js';
import type { LaneNote } from './reason.js';
import { contractIdsInText, promptContractIds, type PromptScan } from './transcript.js';

export type Lane = LaneNote['lane'];

export interface FoundContract {
  lane: Lane;
  /** The live tip's contract id (the given id itself when it has no row). */
  contractId: string;
  tip?: HandoffRow;
  draftExists: boolean;
  claimed: boolean;
}

export interface LookupResult {
  found?: FoundContract;
  lanes: LaneNote[];
  /** Lane 2's tips when it was ambiguous. */
  candidates: string[];
  /** A claim that was attempted and failed (store busy, ...): noted, never fatal. */
  claimError?: string;
  /**
   * The other contracts this turn leads to (the run id's, when the prompt names another one): each is judged too, and
   * the stop is allowed only when every one passes.
   */
  also?: FoundContract[];
  /** The turn's own prompt names a dispatched contract: no message may offer a run id or a claim command. */
  promptNamed?: boolean;
}

export interface LookupInput {
  /** The store (its reads; the auto-claim writes when it is a writer), or null when there is none. */
  store: Store | null;
  env: Env;
  cwd: string;
  draftId?: string;
  input?: HookInput;
  /**
   * Until when (performance.now() ms) the prompt lane reads again a transcript that does not hold the turn's first
   * user message yet; undefined: it reads it once.
   */
  transcriptWaitUntil?: number;
  /** false (a dry run): a contract found by the prompt is not claimed for the run id. */
  claim?: boolean;
}

/**
 * The longest wait for a transcript that lacks the turn's first user message. A harness may call its stop hook before
 * its own transcript holds the prompt. Seen once in the real-harness suite: Copilot CLI's hook got its events.jsonl
 * path, the gate found no contract, and under `--on-missing allow` it let an unfinished dispatched turn stop. A turn
 * whose transcript already holds its prompt (every interactive one) never waits.
 */
export const TRANSCRIPT_WAIT_MS = 5000;
const TRANSCRIPT_POLL_MS = 50;

/** The transcript's first-prompt scan, read again every TRANSCRIPT_POLL_MS while it has no prompt, until `until`. */
async function scanTranscript(
  path: string,
  harness: HookInput['harness'],
  until: number | undefined,
): Promise<PromptScan & { waitedMs: number }> {
  const started = performance.now();
  let scan = promptContractIds(path, harness);
  while (!scan.foundPrompt && until !== undefined && performance.now() + TRANSCRIPT_POLL_MS <= until) {
    await new Promise((done) => setTimeout(done, TRANSCRIPT_POLL_MS));
    scan = promptContractIds(path, harness);
  }
  return { ...scan, waitedMs: performance.now() - started };
}

const tipOf = async (s: StoreReads, row: HandoffRow): Promise<HandoffRow> => {
  const chain = await s.followChain(row);
  return chain[chain.length - 1];
};

const draftExists = (l: LookupInput, id: string): boolean => existsSync(draftFile(l.env, id, l.cwd));

/** The id's live tip (if it has a row) and whether the tip's draft exists. */
async function locate(
  l: LookupInput,
  id: string,
): Promise<{ contractId: string; tip?: HandoffRow; draftExists: boolean }> {
  const row = l.store === null ? undefined : await l.store.getHandoffByContractId(id);
  const tip = row === undefined ? undefined : await tipOf(l.store!, row);
  const contractId = tip?.contract_id ?? id;
  return { contractId, tip, draftExists: draftExists(l, contractId) };
}

export async function findContract(l: LookupInput): Promise<LookupResult> {
  const lanes: LaneNote[] = [];
  const candidates: string[] = [];
  // Lane 1: the explicit id always resolves; an id with neither a row nor a draft is then "missing".
  if (l.draftId !== undefined) {
    const at = await locate(l, l.draftId);
    if (at.tip === undefined && !at.draftExists) {
      lanes.push({ lane: 'draft_id', note: `contract ${l.draftId} has neither a row nor a draft` });
      return { lanes, candidates };
    }
    return { found: { lane: 'draft_id', ...at, claimed: false }, lanes, candidates };
  }
  lanes.push({ lane: 'draft_id', note: 'no --draft-id given' });

  const hv = harnessValue(l.input);
  const field = harnessField(l.input);
  let byRun: FoundContract | undefined;
  if (hv === undefined) lanes.push({ lane: 'harness_id', note: `no ${field} in the hook input` });
  else if (l.store === null) lanes.push({ lane: 'harness_id', note: 'no store yet' });
  else {
    const tips = await harnessTips(l.store, hv);
    if (tips.length === 1) {
      const tip = tips[0];
      byRun = {
        lane: 'harness_id',
        contractId: tip.contract_id,
        tip,
        draftExists: draftExists(l, tip.contract_id),
        claimed: false,
      };
    } else if (tips.length === 0) lanes.push({ lane: 'harness_id', note: `no contract carries ${field} ${hv}` });
    else {
      candidates.push(...tips.map((t) => t.contract_id));
      lanes.push({ lane: 'harness_id', note: `ambiguous: ${tips.length} contract chains carry ${field} ${hv}` });
    }
  }
  // The run id alone never decides: the contract the orchestrator named in the turn's prompt is judged too (a run id
  // can be claimed onto any contract by whoever knows it). A transcript is not waited for once the run id resolved.
  const prompt = await promptLane(
    byRun === undefined ? l : { ...l, transcriptWaitUntil: undefined },
    hv,
    lanes,
    candidates,
    byRun,
  );
  if (byRun === undefined) return prompt;
  const named = prompt.found;
  if (named === undefined || named.contractId === byRun.contractId) return { ...prompt, found: byRun };
  return { ...prompt, also: [byRun] };
}

/** Lane 3: the contract id on a `contract_id:` line of the turn's own first prompt. */
async function promptLane(
  l: LookupInput,
  hv: string | undefined,
  lanes: LaneNote[],
  candidates: string[],
  byRun: FoundContract | undefined,
): Promise<LookupResult> {
  const note = (text: string): LookupResult => {
    lanes.push({ lane: 'prompt_block', note: text });
    return { lanes, candidates };
  };
  const path = ownTranscript(l.input);
  const harness = l.input?.harness ?? 'claude';
  // Gemini gives the turn's prompt on stdin: read it first, the transcript only when it names no contract.
  const fromPrompt = l.input?.prompt === undefined ? [] : contractIdsInText(l.input.prompt);
  let scan = { foundPrompt: fromPrompt.length > 0, ids: fromPrompt };
  if (scan.ids.length === 0) {
    if (path === undefined)
      return note(
        l.input?.prompt === undefined
          ? 'no transcript path of this turn in the hook input'
          : 'no "contract_id: <id>" line in the prompt, and no transcript path',
      );
    const read = await scanTranscript(path, harness, l.transcriptWaitUntil);
    scan = read;
    if (!scan.foundPrompt) {
      const waited =
        read.waitedMs >= TRANSCRIPT_POLL_MS ? ` (waited ${(read.waitedMs / 1000).toFixed(1)} s for it)` : '';
      return note(`no readable first user message in ${path}${waited}`);
    }
  }
  if (scan.ids.length === 0) return note('no "contract_id: <id>" line in the first user message');
  if (scan.ids.length > 1)
    return note(`${scan.ids.length} distinct contract ids in the first user message (${scan.ids.join(', ')})`);
  const id = scan.ids[0];
  const named = l.store === null ? undefined : await l.store.getHandoffByContractId(id);
  // Whoever can write the transcript can write this line: it may name only a contract born by dispatch (its row has
  // a kind). A contract born by init (a draft, or a row without a kind) is bound by contract claim or --draft-id.
  if (named === undefined) {
    return note(
      `contract ${id} has no dispatched row${l.store === null ? ' (there is no store)' : ''}; a contract from contract init is bound with handoff contract claim, not by the prompt`,
    );
  }
  if (named.kind === null) {
    return note(
      `contract ${id} was not born by contract dispatch; a contract from contract init is bound with handoff contract claim, not by the prompt`,
    );
  }
  const tip = await tipOf(l.store!, named);
  const at = { contractId: tip.contract_id, tip, draftExists: draftExists(l, tip.contract_id) };
  // The orchestrator named this contract for this turn: it is judged whoever claimed it (a claim by another run,
  // made up or stolen, never turns it into "no contract").
  const result: LookupResult = {
    found: { lane: 'prompt_block', ...at, claimed: false },
    lanes,
    candidates,
    promptNamed: true,
  };
  if (hv !== undefined && byRun === undefined && at.tip.harness_id === null && l.claim !== false)
    await autoClaim(l.store!, at.tip, hv, result);
  return result;
}

/** Sets harness_id on the tip when it is NULL and no other chain holds the value; a failure is only noted. */
async function autoClaim(store: Store, tip: HandoffRow, hv: string, result: LookupResult): Promise<void> {
  try {
    // One attempt: the gate stays inside the hook timeout.
    const outcome = await store.tx((t) => claimTip(t, tip, hv), {
      attempts: 1,
      lock: [tip.contract_id, harnessLock(hv)],
    });
    if (outcome.kind === 'claimed' && result.found) {
      result.found.claimed = true;
      result.found.tip = { ...tip, harness_id: hv };
    }
  } catch (e) {
    if (!isHandoffError(e)) throw e;
    result.claimError = e.message;
  }
}
