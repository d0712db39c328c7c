/**
 * The stop gate (dispatch-and-gate.md §4.2): key, stop class, lookup, decision, capture, breaker, output. Problems
 * before the verdict throw (the command fails open, exit 1); problems after it (capture, counter) are noted and
 * never change the verdict.
 */
import type { Env } from '../paths.js';
import { explicitWorkspace, resolveWorkspace } from '../paths.js';
import { storeReadOnlyHere } from '../store/db.js';
import { isClosedState } from '../store/handoff-row.js';
import { mayHaveStore, storeKind } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { GateWatch } from './budget.js';
import { breakerKey } from './breaker-key.js';
import { countBlock, resetKey, type CountResult } from './breaker.js';
import { countBlockInFile, resetFileCounter } from './file-breaker.js';
import { backstopCapture } from './capture.js';
import { checkClosedRow, type CheckResult } from './check.js';
import { decide, type Decision, type OnMissing, type TipStatus, type Verdict } from './decision.js';
import { agentLabel, harnessValue, ownTranscript, type HookInput } from './hook-input.js';
import { findContract, type LookupResult } from './lookup.js';
import { blockReason, excusedMessage, rowErrorDetail, tripMessage, type AttemptInfo, type BlockCause, type GateError } from './reason.js';
import { classifyStop, resolveStopReason, type StopClass } from './stop-class.js';
import { GATE_FOLDER, storeCondition, storeErrorReason, storeTripMessage, type OnStoreError, type StoreCondition } from './store-condition.js';
import { lastAssistantStopReason } from './transcript.js';

export interface GateOptions {
  draftId?: string;
  maxRejections: number;
  onMissing: OnMissing;
  /**
   * amendments-2.md §H3: `allow` (default) fails open on a store or data-root problem (the command exits 1, "stop not
   * gated"); `block` blocks the stop with a reason naming the code, counting in a file under `<root>/gate/`.
   */
  onStoreError?: OnStoreError;
  stopReason?: string;
  workspace?: string;
}

export interface GateRun {
  exit: 0 | 2;
  /** The `--json` verdict object. */
  verdict: Record<string, unknown>;
  /** The block reason (stderr on a block). */
  reason?: string;
  /** The user-facing notice of an excused truncation or a trip (stdout `{"systemMessage": …}`). */
  systemMessage?: string;
}

/**
 * The store for one gate call (either backend): opened if it exists, created only when a capture or the counter
 * writes. On a SQLite store this process cannot write (a read-only data root or file, amendments-2.md §H7) it is
 * opened for reading only: the look-ups and the verdict work, and the writes (claim, capture, counter) fail and are
 * noted.
 */
class GateStore {
  private constructor(
    private readonly env: Env,
    private readonly cwd: string,
    public store: Store | null,
    private readonly watch?: GateWatch,
  ) {}
  /** `watch`: the gate's budget, whose clock every store call races. */
  static async open(env: Env, cwd: string, watch?: GateWatch): Promise<GateStore> {
    if (!mayHaveStore(env, cwd)) return new GateStore(env, cwd, null, watch);
    const { openStore } = await import('../store/open-store.js');
    const readOnly = storeKind(env) === 'sqlite' && storeReadOnlyHere(env, cwd);
    const opened = openStore(env, cwd, readOnly ? 'reader' : 'writer');
    const s = await (watch === undefined ? opened : watch.race(opened));
    return new GateStore(env, cwd, s === null ? null : (watch?.bound(s) ?? s), watch);
  }
  writer = async (): Promise<Store> => {
    if (this.store === null) {
      const { openStore } = await import('../store/open-store.js');
      const opened = openStore(this.env, this.cwd, 'writer', { create: true });
      const s = (await (this.watch === undefined ? opened : this.watch.race(opened)))!;
      this.store = this.watch?.bound(s) ?? s;
    }
    return this.store;
  };
  async close(): Promise<void> {
    await this.store?.close();
  }
}

const tipStatusOf = (lookup: LookupResult, check: CheckResult | undefined): TipStatus => {
  if (lookup.found === undefined) return { kind: 'missing' };
  if (check === undefined) return { kind: 'unfinalized' };
  if (check.outcome === 'pass') return { kind: 'closed', check: 'pass' };
  return { kind: 'closed', check: check.outcome === 'verdict_failed' ? 'verdict_failed' : 'hard_failed' };
};

function causeOf(lookup: LookupResult, check: CheckResult | undefined, input: HookInput | undefined, captured: boolean): BlockCause {
  const found = lookup.found;
  if (found === undefined) {
    const harnessField = input?.event === 'SubagentStop' ? 'agent_id' : 'session_id';
    return { kind: 'missing', lanes: lookup.lanes, candidates: lookup.candidates, harnessValue: harnessValue(input), harnessField };
  }
  const tip = found.tip;
  if (check === undefined || tip === undefined) {
    return { kind: 'unfinalized', contractId: found.contractId, state: tip?.agent_state ?? null, cutReason: tip?.cut_reason ?? null, captured };
  }
  switch (check.outcome) {
    case 'verdict_failed':
      return { kind: 'verdict', contractId: found.contractId, state: tip.agent_state, errors: check.errors, repair: check.repair };
    case 'blind':
      return { kind: 'blind', contractId: found.contractId, planTaskId: check.planTaskId, errors: check.errors };
    default:
      return { kind: 'receipt', contractId: found.contractId, state: tip.agent_state, errors: check.outcome === 'receipt' ? check.errors : [] };
  }
}

function errorsOf(cause: BlockCause): GateError[] {
  if (cause.kind === 'missing') return [{ code: 'ROW_NOT_FOUND', path: '', detail: rowErrorDetail(cause) }];
  if (cause.kind === 'unfinalized') return [{ code: 'ROW_NOT_FINALIZED', path: '', detail: rowErrorDetail(cause) }];
  return cause.errors;
}

interface BreakerStep {
  attempt: AttemptInfo;
  tripped: boolean;
  counterError?: string;
  /** The store could not hold the counter, so it counted in a file (§H3): why. */
  storeError?: string;
}

/**
 * Counts a block (maybe tripping) or resets the key on an allow. When the store cannot hold the counter, the block
 * counts in a file under `<root>/gate/` (§H3); a counter failure never changes the verdict.
 */
async function breakerStep(
  store: GateStore,
  where: { env: Env; cwd: string },
  key: string | undefined,
  decision: Verdict,
  codes: string[],
  contractId: string | null,
  max: number,
): Promise<BreakerStep> {
  const attempt: AttemptInfo = { key, max };
  if (key === undefined) return { attempt, tripped: false };
  if (decision === 'allow') {
    resetFileCounter(where.env, where.cwd, key);
    try {
      if (store.store !== null) await resetKey(store.store, key);
      return { attempt, tripped: false };
    } catch (e) {
      return { attempt, tripped: false, counterError: (e as Error).message };
    }
  }
  let counted: CountResult;
  let storeError: string | undefined;
  try {
    counted = await countBlock(await store.writer(), key, codes, contractId, max);
  } catch (e) {
    storeError = (e as Error).message;
    try {
      counted = countBlockInFile(where.env, where.cwd, key, codes, max);
    } catch (fileError) {
      const counterError = `${storeError}; and in ${GATE_FOLDER}: ${(fileError as Error).message}`;
      return { attempt: { ...attempt, counterError }, tripped: false, counterError };
    }
  }
  return { attempt: { ...attempt, attempt: counted.attempt, previousCodes: counted.previousCodes }, tripped: counted.tripped, storeError };
}

interface GateCall {
  opts: GateOptions;
  input: HookInput | undefined;
  env: Env;
  cwd: string;
  key: string | undefined;
  stopReason: string | undefined;
  stopClass: StopClass;
  watch?: GateWatch;
}

/** Sets gate_seen_at on the contract's row (one attempt); a failure is returned as a note, never thrown. */
async function recordSeen(store: Store, contractId: string): Promise<string | undefined> {
  try {
    await store.tx((t) => t.markGateSeen(contractId), { attempts: 1 });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function gateCall(opts: GateOptions, input: HookInput | undefined, env: Env, cwd: string, watch?: GateWatch): GateCall {
  const key = breakerKey(opts.draftId, input);
  const stopReason = resolveStopReason(opts.stopReason, input?.stopReason, () => lastAssistantStopReason(ownTranscript(input)));
  return { opts, input, env, cwd, key, stopReason, stopClass: classifyStop(stopReason), watch };
}

/**
 * The block of a condition met outside `runGate` (the gate's budget: a store that did not answer in time), as a
 * store condition blocks; `count` false: not counted (the answer of a watchdog that cannot write).
 */
export function conditionBlock(opts: GateOptions, input: HookInput | undefined, env: Env, cwd: string, condition: StoreCondition, count = true): GateRun {
  return storeErrorBlock(gateCall(opts, input, env, cwd), condition, count);
}

export async function runGate(opts: GateOptions, input: HookInput | undefined, env: Env, cwd: string, watch?: GateWatch): Promise<GateRun> {
  // An explicit workspace must be a safe slug (amendments-2.md §H11); refused here, it fails open (exit 1).
  explicitWorkspace(opts.workspace, env);
  const call = gateCall(opts, input, env, cwd, watch);
  try {
    return await judge(call);
  } catch (e) {
    // §H3: under --on-store-error block, a store or data-root condition blocks the stop instead of failing open.
    const condition = opts.onStoreError === 'block' ? storeCondition(e) : undefined;
    if (condition === undefined) throw e;
    return storeErrorBlock(call, condition);
  }
}

/** The block of a store or data-root condition (§H3), counted in the file breaker (the store cannot be trusted). */
function storeErrorBlock(call: GateCall, condition: StoreCondition, count = true): GateRun {
  const { opts, key } = call;
  const codes = [condition.code];
  const attempt: AttemptInfo = { key, max: opts.maxRejections };
  let tripped = false;
  let counterError: string | undefined;
  if (key !== undefined && count) {
    try {
      const r = countBlockInFile(call.env, call.cwd, key, codes, opts.maxRejections);
      attempt.attempt = r.attempt;
      attempt.previousCodes = r.previousCodes;
      tripped = r.tripped;
    } catch (e) {
      counterError = (e as Error).message;
      attempt.counterError = counterError;
    }
  }
  const reason = storeErrorReason(condition, attempt);
  const systemMessage = tripped ? storeTripMessage(attempt.attempt ?? opts.maxRejections, opts.maxRejections, agentLabel(call.input), opts.draftId, condition) : undefined;
  const exit = tripped ? 0 : 2;
  const verdict: Record<string, unknown> = {
    status: 'ok',
    decision: 'block',
    exit,
    source: 'store_error',
    lane: opts.draftId !== undefined ? 'draft_id' : null,
    contract_id: condition.contractId ?? opts.draftId ?? null,
    handoff_id: null,
    agent_state: null,
    cut_reason: null,
    stop_reason: call.stopReason ?? null,
    stop_class: call.stopClass,
    codes: tripped ? [...codes, 'CONTRACT_REJECTION_LIMIT'] : codes,
    errors: [{ code: condition.code, path: '', detail: condition.message }],
    captured: false,
    claimed: false,
    attempt: attempt.attempt ?? null,
    max_rejections: opts.maxRejections,
    tripped,
    breaker_key: key ?? null,
    reason,
    store_error: { code: condition.code, error: condition.message },
  };
  if (systemMessage !== undefined) verdict.systemMessage = systemMessage;
  if (counterError !== undefined) verdict.counter_error = counterError;
  return { exit, verdict, reason: exit === 2 ? reason : undefined, systemMessage };
}

/** What the writes after the verdict did (or, when the budget ran out, that they were abandoned). */
interface Writes {
  notes: string[];
  captured: boolean;
  boundByCapture: boolean;
  attempt: AttemptInfo;
  tripped: boolean;
  storeError?: string;
  captureError?: string;
  counterError?: string;
  seenError?: string;
  /** The gate's budget ran out: the writes were abandoned (the verdict stands). */
  abandoned?: boolean;
}

/** The block's codes of a verdict (from its cause). */
const blockCodes = (cause: BlockCause | undefined): string[] => (cause === undefined ? [] : [...new Set(errorsOf(cause).map((e) => e.code))]);

async function judge(call: GateCall): Promise<GateRun> {
  const { opts, input, env, cwd, key, stopReason } = call;
  const store = await GateStore.open(env, cwd, call.watch);
  try {
    const lookup = await findContract({ store: store.store, env, cwd, draftId: opts.draftId, input });
    const found = lookup.found;
    if (found !== undefined) call.watch?.found(found.contractId);
    const tip = found?.tip;
    const check = tip !== undefined && isClosedState(tip.agent_state) ? await checkClosedRow(store.store!, tip) : undefined;
    const decision = decide(tipStatusOf(lookup, check), call.stopClass, opts.onMissing);
    const notes: string[] = [];
    if (lookup.claimError !== undefined) notes.push(`(The contract could not be claimed for this run: ${lookup.claimError})`);
    // The verdict exists: should the budget run out now, this is the answer, every later write abandoned.
    call.watch?.decided(() =>
      buildRun(call, lookup, check, decision, {
        notes: [...notes, '(The gate ran out of its time budget: its writes to the store were abandoned and this stop was not counted.)'],
        captured: false,
        boundByCapture: false,
        attempt: { key, max: opts.maxRejections },
        tripped: false,
        abandoned: true,
      }),
    );

    // Step 6: backstop capture of an unfinalized contract's draft, whatever the verdict.
    let captured = false;
    let boundByCapture = false;
    let captureError: string | undefined;
    if (found !== undefined && check === undefined && found.draftExists) {
      const workspace = opts.workspace ?? resolveWorkspace(undefined, env, input?.cwd ?? cwd);
      const c = await backstopCapture({
        env,
        cwd,
        contractId: found.contractId,
        tip,
        // A gate run with --draft-id judges that contract and binds nothing (amendments-2.md §E6).
        harnessValue: opts.draftId === undefined ? harnessValue(input) : undefined,
        workspace,
        stopReason,
        writer: store.writer,
      });
      captured = c.captured;
      boundByCapture = c.bound === true;
      captureError = c.error;
      if (c.error !== undefined) notes.push(`(The draft could not be captured into the store: ${c.error})`);
    }

    // The gate has seen a stop of this contract: its row no longer counts as running (amendments-2.md §E5).
    let seenError: string | undefined;
    if (found !== undefined && store.store !== null) {
      seenError = await recordSeen(store.store, found.contractId);
      if (seenError !== undefined) notes.push(`(The stop could not be recorded on the row: ${seenError})`);
    }

    // Step 7: breaker. A block counts (and maybe trips); an allow resets the key.
    const cause = decision.decision === 'block' ? causeOf(lookup, check, input, captured) : undefined;
    const b = await breakerStep(store, { env, cwd }, key, decision.decision, blockCodes(cause), found?.contractId ?? null, opts.maxRejections);
    return buildRun(call, lookup, check, decision, {
      notes,
      captured,
      boundByCapture,
      attempt: b.attempt,
      tripped: b.tripped,
      storeError: b.storeError,
      captureError,
      counterError: b.counterError,
      seenError,
    });
  } finally {
    await store.close();
  }
}

/** The verdict object, the block reason and the user message of a decided stop (output, dispatch-and-gate.md §4.8). */
function buildRun(call: GateCall, lookup: LookupResult, check: CheckResult | undefined, decision: Decision, w: Writes): GateRun {
  const { opts, input, key, stopReason, stopClass } = call;
  const found = lookup.found;
  const tip = found?.tip;
  const cause = decision.decision === 'block' ? causeOf(lookup, check, input, w.captured) : undefined;
  const errors = cause === undefined ? [] : errorsOf(cause);
  const codes = blockCodes(cause);
  const { attempt, tripped } = w;
  const reason = cause === undefined ? undefined : blockReason(cause, attempt, w.notes);
  let systemMessage: string | undefined;
  if (tripped) {
    systemMessage = tripMessage(attempt.attempt ?? opts.maxRejections, opts.maxRejections, agentLabel(input), found?.contractId, codes);
    if (w.storeError !== undefined) systemMessage += ` (Counted in ${GATE_FOLDER}: the store could not hold the counter: ${w.storeError})`;
  } else if (decision.excused) {
    const how = check !== undefined ? `closed ${tip?.agent_state}, fails the check` : w.captured ? 'captured as IN_PROGRESS' : 'not finalized';
    systemMessage = excusedMessage(stopReason ?? 'unknown', found?.contractId, how);
  }
  const exit = decision.decision === 'block' && !tripped ? 2 : 0;
  const verdict: Record<string, unknown> = {
    status: 'ok',
    decision: decision.decision,
    exit,
    source: decision.source,
    lane: found?.lane ?? null,
    contract_id: found?.contractId ?? null,
    handoff_id: tip?.id ?? null,
    agent_state: tip?.agent_state ?? null,
    cut_reason: tip?.cut_reason ?? null,
    stop_reason: stopReason ?? null,
    stop_class: stopClass,
    codes: tripped ? [...codes, 'CONTRACT_REJECTION_LIMIT'] : codes,
    errors,
    captured: w.captured,
    claimed: (found?.claimed ?? false) || w.boundByCapture,
    attempt: attempt.attempt ?? null,
    max_rejections: opts.maxRejections,
    tripped,
    breaker_key: key ?? null,
  };
  if (lookup.candidates.length > 0) verdict.candidates = lookup.candidates;
  if (reason !== undefined) verdict.reason = reason;
  if (systemMessage !== undefined) verdict.systemMessage = systemMessage;
  if (w.captureError !== undefined) verdict.capture_error = w.captureError;
  if (w.counterError !== undefined) verdict.counter_error = w.counterError;
  if (w.seenError !== undefined) verdict.seen_error = w.seenError;
  if (lookup.claimError !== undefined) verdict.claim_error = lookup.claimError;
  if (w.abandoned === true) verdict.writes_abandoned = true;
  return { exit, verdict, reason: exit === 2 ? reason : undefined, systemMessage };
}
