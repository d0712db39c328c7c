/**
 * `contract wait`: reads the chain of a contract until its live tip closes, for orchestrators that would otherwise
 * poll `contract list`. Each poll opens the store as a reader and closes it (no connection or lock held between
 * polls), asks for the row and its chain's tip (two indexed reads), and sleeps with backoff: 100 ms, growing by half
 * up to 2 s, never past the deadline.
 */
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { WAIT_DEGRADED_EXIT, waitExitOf } from '../codes/wait-exits.js';
import type { HandoffRow } from '../store/handoff-row.js';

export interface WaitRequest {
  env: Env;
  cwd: string;
  contractId: string;
  timeoutMs: number;
  /** Injected by tests: the pause between polls (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Injected by tests: the clock in milliseconds (default: Date.now). */
  now?: () => number;
}

export interface WaitOutcome {
  /** The tip as last read; `closed` false when the time ran out. */
  tip: HandoffRow;
  closed: boolean;
  /** The exit the verb gives: per closing state, 14 degraded, undefined while open. */
  exit: number | undefined;
  polls: number;
  waitedMs: number;
}

export const FIRST_PAUSE_MS = 100;
export const MAX_PAUSE_MS = 2000;

const rowNotFound = (id: string): HandoffError =>
  new HandoffError(
    'ROW_NOT_FOUND',
    `no handoff row for ${id}; a contract gets a row when it is dispatched or finalized, so there is nothing to wait for`,
    { contract_id: id },
    'Dispatch the contract first (handoff contract dispatch), or check the id with handoff contract list.',
  );

/** The exit for a tip: its closing state's, 14 for a turn the gate captured unfinalized, undefined while open. */
export function exitOfTip(tip: HandoffRow): number | undefined {
  const byState = waitExitOf(tip.agent_state);
  if (byState !== undefined) return byState;
  return tip.agent_state === 'IN_PROGRESS' && tip.cut_reason === 'backstop_capture' ? WAIT_DEGRADED_EXIT : undefined;
}

async function readTip(env: Env, cwd: string, contractId: string): Promise<HandoffRow> {
  const { withStore } = await import('../store/open-store.js');
  return withStore(
    env,
    cwd,
    'reader',
    async (s) => {
      const row = await s.getHandoffByContractId(contractId);
      if (row === undefined) throw rowNotFound(contractId);
      const chain = await s.followChain(row);
      return chain[chain.length - 1] ?? row;
    },
    () => {
      throw rowNotFound(contractId);
    },
  );
}

const timerSleep = async (ms: number): Promise<void> => {
  const { setTimeout } = await import('node:timers/promises');
  await setTimeout(ms);
};

export async function waitForTip(req: WaitRequest): Promise<WaitOutcome> {
  const now = req.now ?? Date.now;
  const sleep = req.sleep ?? timerSleep;
  const start = now();
  const deadline = start + req.timeoutMs;
  let pause = FIRST_PAUSE_MS;
  for (let polls = 1; ; polls++) {
    const tip = await readTip(req.env, req.cwd, req.contractId);
    const exit = exitOfTip(tip);
    const t = now();
    if (exit !== undefined || t >= deadline) {
      return { tip, closed: exit !== undefined, exit, polls, waitedMs: Math.max(0, t - start) };
    }
    await sleep(Math.min(pause, deadline - t));
    pause = Math.min(MAX_PAUSE_MS, Math.ceil(pause * 1.5));
  }
}
