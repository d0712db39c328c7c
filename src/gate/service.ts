/**
 * The stop gate: key, stop class, lookup, decision, capture, breaker, output. Problems
 * before the verdict throw (the command fails open, exit 1); problems after it (capture, counter) are noted and
 * never change the verdict.
 */
import type { Env } from '../paths.js';
import { explicitWorkspace, resolveWorkspace } from '../paths.js';
import { isClosedState } from '../store/handoff-row.js';
import type { Store } from '../store/store.js';
import { AbandonedWrite, type GateWatch } from './budget.js';
import { breakerKey, newTurn, type BreakerKey } from './breaker-key.js';
import { countBlock, resetKey, type CountResult } from './breaker.js';
import { countBlockInFile, countDelivered, countInFiles, resetFileCounter } from './file-breaker.js';
import { backstopCapture } from './capture.js';
import { checkClosedRow, type CheckResult } from './check.js';
import { decide, type Decision, type OnMissing, type Verdict } from './decision.js';
import { harnessValue, ownTranscript, type HookInput } from './hook-input.js';
import { findContract, TRANSCRIPT_WAIT_MS, type LookupResult } from './lookup.js';
import type { AttemptInfo } from './reason.js';
import { classifyStop, resolveStopReason, type StopClass, type StopReasonSource } from './stop-class.js';
import { storeCondition, type OnStoreError, type StoreCondition } from './store-condition.js';
import { GateStore, requireDataRoot, whereLooked } from './gate-store.js';
import { storeErrorBlock } from './store-block.js';
import { deliveredNonce, FEEDBACK_HARNESSES, lastAssistantStopReason } from './transcript.js';
import { blockCodes, buildRun, causeOf, tipStatusOf } from './verdict.js';

export { requireDataRoot };

export interface GateOptions {
  draftId?: string;
  maxRejections: number;
  onMissing: OnMissing;
  /**
   * `allow` (default) fails open on a store or data-root problem (the command exits 1, "stop not
   * gated"); `block` blocks the stop with a reason naming the code, counting in a file under `<root>/gate/`.
   */
  onStoreError?: OnStoreError;
  stopReason?: string;
  workspace?: string;
  /**
   * Judge only: the verdict and its answer as the store stands, with no capture, no claim, no record of the stop and
   * no count (the breaker neither advances nor resets). `hooks test` runs the installed hook with it.
   */
  dryRun?: boolean;
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

interface BreakerStep {
  attempt: AttemptInfo;
  tripped: boolean;
  counterError?: string;
  /** The store could not hold the counter, so it counted in a file: why. */
  storeError?: string;
  /** Neither the store nor a counter file could keep the count (the verdict says `"count": "unavailable"`). */
  countUnavailable?: boolean;
}

/**
 * Counts a block (maybe tripping) or resets the key on an allow. A harness that records its hook feedback (`proof`)
 * counts delivered blocks in files, and nothing resets that count. Otherwise, when the store cannot hold the counter,
 * the block counts in a file under `<root>/gate/`, else under $TMPDIR; a counter failure never changes the verdict.
 */
async function breakerStep(
  store: GateStore,
  where: {
    env: Env;
    cwd: string;
    endTrip: boolean;
    continuing: boolean;
    /** The harness records its hook feedback: the latest delivered nonce in its transcript. */
    proof?: { delivered: string | undefined; continuing: boolean };
    /** The harness records its hook feedback: its counts are by proof, in files an allow never resets. */
    feedback?: boolean;
  },
  bk: BreakerKey | undefined,
  decision: Verdict,
  codes: string[],
  contractId: string | null,
  max: number,
): Promise<BreakerStep> {
  const key = bk?.key;
  const attempt: AttemptInfo = { key, max };
  if (key === undefined) return { attempt, tripped: false };
  const endTrip = where.endTrip;
  /** No place could keep the count: one block per stop, never a loop (a continuation of a block is let go, degraded). */
  const uncounted = (counterError: string): BreakerStep => ({
    attempt: { ...attempt, counterError },
    tripped: where.continuing,
    counterError,
    countUnavailable: true,
  });
  const proof = where.proof;
  if (proof !== undefined) {
    // Counted by proof of delivery, in files only.
    try {
      const c = countInFiles((place) =>
        countDelivered(place, where.env, where.cwd, key, codes, max, proof.delivered, proof.continuing),
      );
      const counted = { ...attempt, attempt: c.attempt, previousCodes: c.previousCodes, nonce: c.nonce };
      return { attempt: counted, tripped: c.tripped };
    } catch (e) {
      return uncounted((e as Error).message);
    }
  }
  if (decision === 'allow') {
    // A harness counted by proof keeps no key counter file to forget; naming one would hash the key (node:crypto).
    if (where.feedback !== true) resetFileCounter(where.env, where.cwd, key);
    try {
      if (store.store !== null) await resetKey(store.store, key);
      return { attempt, tripped: false };
    } catch (e) {
      return { attempt, tripped: false, counterError: (e as Error).message };
    }
  }
  let counted: CountResult;
  let storeError: string | undefined;
  const inFile = (): CountResult =>
    countInFiles((place) => countBlockInFile(place, where.env, where.cwd, key, codes, max, endTrip));
  try {
    // Without a store the counter is a file under <root>/gate/ from the start; that is not a store error.
    counted = store.store === null ? inFile() : await countBlock(store.store, key, codes, contractId, max, endTrip);
  } catch (e) {
    if (store.store === null) return uncounted((e as Error).message);
    // The budget cut the write off: the answer is the verdict with every write abandoned, this stop not counted.
    if (e instanceof AbandonedWrite) return { attempt, tripped: false, counterError: e.message };
    storeError = (e as Error).message;
    try {
      counted = inFile();
    } catch (fileError) {
      return uncounted(`${storeError}; and ${(fileError as Error).message}`);
    }
  }
  return {
    attempt: { ...attempt, attempt: counted.attempt, previousCodes: counted.previousCodes },
    tripped: counted.tripped,
    storeError,
  };
}

export interface GateCall {
  opts: GateOptions;
  input: HookInput | undefined;
  env: Env;
  cwd: string;
  key: BreakerKey | undefined;
  /** A session key's trip ends at this stop: it starts a new turn. */
  endTrip: boolean;
  stopReason: string | undefined;
  stopReasonSource: StopReasonSource | undefined;
  stopClass: StopClass;
  /** The gate's budget (--timeout), whose clock every store call races. */
  watch?: GateWatch;
}

/**
 * The proof of delivery of a harness that records its hook feedback (none for a gate given --draft-id, or a harness
 * that records none: those count every block, and their breaker holds at L1 only).
 */
export function proofOf(call: GateCall): { delivered: string | undefined; continuing: boolean } | undefined {
  const input = call.input;
  if (input === undefined || !hasFeedback(call)) return undefined;
  return { delivered: deliveredNonce(ownTranscript(input), input.harness), continuing: input.stopHookActive !== false };
}

/** The call's harness records its hook feedback (not for a gate given --draft-id), so its breaker counts by proof. */
function hasFeedback(call: GateCall): boolean {
  return call.opts.draftId === undefined && call.input !== undefined && FEEDBACK_HARNESSES.includes(call.input.harness);
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
  const harness = input?.harness ?? 'claude';
  const stop = resolveStopReason(opts.stopReason, input?.stopReason, () =>
    lastAssistantStopReason(ownTranscript(input), harness),
  );
  const endTrip = key !== undefined && !key.turnScoped && newTurn(input);
  return {
    opts,
    input,
    env,
    cwd,
    key,
    endTrip,
    stopReason: stop.reason,
    stopReasonSource: stop.source,
    // A stop reason read from the transcript is recorded, never obeyed: the agent can provoke or fake one.
    stopClass: stop.source === 'transcript' ? 'unknown' : classifyStop(stop.reason, harness),
    watch,
  };
}

/**
 * The block of a condition met outside `runGate` (the gate's budget: a store that did not answer in time), as a
 * store condition blocks; `count` false: not counted (the answer of a watchdog that cannot write).
 */
export function conditionBlock(
  opts: GateOptions,
  input: HookInput | undefined,
  env: Env,
  cwd: string,
  condition: StoreCondition,
  count = true,
): GateRun {
  return storeErrorBlock(gateCall(opts, input, env, cwd), condition, count && opts.dryRun !== true);
}

export async function runGate(
  opts: GateOptions,
  input: HookInput | undefined,
  env: Env,
  cwd: string,
  watch?: GateWatch,
): Promise<GateRun> {
  // An explicit workspace must be a safe slug; refused here, it fails open (exit 1).
  explicitWorkspace(opts.workspace, env);
  const call = gateCall(opts, input, env, cwd, watch);
  try {
    requireDataRoot(env, cwd);
    return await judge(call);
  } catch (e) {
    // Under --on-store-error block, a store or data-root condition blocks the stop instead of failing open.
    const condition = opts.onStoreError === 'block' ? storeCondition(e) : undefined;
    if (condition === undefined) throw e;
    return storeErrorBlock(call, condition, opts.dryRun !== true);
  }
}

/**
 * How long the lookup may wait for a transcript that lacks the turn's prompt: TRANSCRIPT_WAIT_MS at most, and never so
 * long that less than that is left before the budget cuts off store calls (a short --timeout waits not at all).
 */
function transcriptWaitUntil(watch: GateWatch | undefined): number | undefined {
  if (watch === undefined) return undefined;
  return Math.min(performance.now() + TRANSCRIPT_WAIT_MS, watch.storeDeadline - TRANSCRIPT_WAIT_MS);
}

/**
 * Judges every contract the turn leads to (the one the prompt names, then the run id's when it differs) and returns the
 * first that blocks, else the first: the stop is allowed only when each one passes.
 */
async function judgeEach(
  store: GateStore,
  call: GateCall,
  all: LookupResult,
): Promise<{ lookup: LookupResult; check: CheckResult | undefined; decision: Decision }> {
  const { env, cwd } = call;
  let first: { lookup: LookupResult; check: CheckResult | undefined; decision: Decision } | undefined;
  for (const found of all.found === undefined ? [undefined] : [all.found, ...(all.also ?? [])]) {
    if (found !== undefined) call.watch?.found(found.contractId);
    const lookup = { ...all, found };
    const tip = found?.tip;
    const check =
      tip !== undefined && isClosedState(tip.agent_state)
        ? await checkClosedRow(store.store!, tip, { env, cwd })
        : undefined;
    const judged = { lookup, check, decision: decide(tipStatusOf(lookup, check), call.stopClass, call.opts.onMissing) };
    if (judged.decision.decision === 'block') return judged;
    first ??= judged;
  }
  return first!;
}

async function judge(call: GateCall): Promise<GateRun> {
  const { opts, input, env, cwd, key, stopReason } = call;
  const dryRun = opts.dryRun === true;
  const store = await GateStore.open(env, cwd, call.watch, dryRun);
  try {
    const { lookup, check, decision } = await judgeEach(
      store,
      call,
      await findContract({
        store: store.store,
        env,
        cwd,
        draftId: opts.draftId,
        input,
        transcriptWaitUntil: transcriptWaitUntil(call.watch),
        claim: !dryRun,
      }),
    );
    const found = lookup.found;
    const tip = found?.tip;
    const notes: string[] = [];
    if (lookup.claimError !== undefined)
      notes.push(`(The contract could not be claimed for this run: ${lookup.claimError})`);
    if (decision.decision === 'block' && (found === undefined || store.store === null))
      notes.push(whereLooked(env, cwd, store.store));
    // The verdict exists: should the budget run out now, this is the answer, every later write abandoned.
    call.watch?.decided(() =>
      buildRun(call, lookup, check, decision, {
        notes: [
          ...notes,
          '(The gate ran out of its time budget: its writes to the store were abandoned and this stop was not counted.)',
        ],
        captured: false,
        boundByCapture: false,
        attempt: { key: key?.key, max: opts.maxRejections },
        tripped: false,
        abandoned: true,
      }),
    );
    // Backstop capture of an unfinalized contract's draft, whatever the verdict; only into a store that exists.
    let captured = false;
    let boundByCapture = false;
    let captureError: string | undefined;
    const storeNow = store.store;
    if (found !== undefined && check === undefined && found.draftExists && storeNow !== null && !dryRun) {
      const workspace = opts.workspace ?? resolveWorkspace(undefined, env, input?.cwd ?? cwd);
      const c = await backstopCapture({
        env,
        cwd,
        contractId: found.contractId,
        tip,
        // A gate run with --draft-id judges that contract and binds nothing.
        harnessValue: opts.draftId === undefined ? harnessValue(input) : undefined,
        workspace,
        stopReason,
        writer: () => Promise.resolve(storeNow),
      });
      captured = c.captured;
      boundByCapture = c.bound === true;
      captureError = c.error;
      if (c.error !== undefined) notes.push(`(The draft could not be captured into the store: ${c.error})`);
    }

    // The gate has seen a stop of this contract: its row no longer counts as running.
    let seenError: string | undefined;
    if (found !== undefined && store.store !== null && !dryRun) {
      seenError = await recordSeen(store.store, found.contractId);
      if (seenError !== undefined) notes.push(`(The stop could not be recorded on the row: ${seenError})`);
    }

    // The breaker. A block counts (and maybe trips); an allow resets the key.
    const cause = decision.decision === 'block' ? causeOf(lookup, check, input, captured) : undefined;
    if (dryRun) notes.push('(A dry run: nothing was captured, claimed, recorded or counted.)');
    const b: BreakerStep = dryRun
      ? { attempt: { key: key?.key, max: opts.maxRejections }, tripped: false }
      : await breakerStep(
          store,
          {
            env,
            cwd,
            endTrip: call.endTrip,
            continuing: input?.stopHookActive === true,
            // The transcript's feedback records are read only for a block (an allow counts nothing and resets nothing).
            proof: decision.decision === 'block' ? proofOf(call) : undefined,
            feedback: hasFeedback(call),
          },
          key,
          decision.decision,
          blockCodes(cause),
          found?.contractId ?? null,
          opts.maxRejections,
        );
    return buildRun(call, lookup, check, decision, {
      notes,
      captured,
      boundByCapture,
      attempt: b.attempt,
      tripped: b.tripped,
      storeError: b.storeError,
      captureError,
      counterError: b.counterError,
      countUnavailable: b.countUnavailable,
      seenError,
    });
  } finally {
    await store.close();
  }
}
