/**
 * The gate's time budget (`contract gate --timeout`, default 20 s, counted from the process start): the gate answers
 * within it, whatever the store does.
 *
 * - A hook input that has not ended by the budget (its writer never closed it) is HOOK_INPUT_TIMEOUT, answered as
 *   a store failure is (fail open, or a block under --on-store-error block).
 * - Every store call of the gate races the budget (`bound`). Past it, a call before the contract was found fails
 *   as STORE_UNREACHABLE (fail open, or a block under --on-store-error block); a call after the contract was found
 *   and before the verdict fails as GATE_BUDGET_EXCEEDED, a block that is counted and never excused; once a verdict
 *   exists, the first write the budget cuts off makes the answer that verdict with every write abandoned (none of
 *   them counted, noted in the answer).
 * - Should the gate still not have answered shortly before the end of the budget (an awaited call that is not a
 *   store call), the answer is given from what is known at that moment.
 * - A synchronous call blocks this thread, so no timer can end it. The gate's blocking waits are bounded instead:
 *   SQLite's busy wait ends by the store calls' deadline (`storeDeadline`, OpenOptions.waitUntil), PostgreSQL and
 *   stdin are asynchronous, the transcript is read without blocking. Before a step that can still block past the
 *   budget (migrating an older store), `arm()` starts a worker thread (watchdog.ts) that answers at the very end if
 *   this thread is still stuck. Starting a thread costs about as much as the rest of a gate call, so the common path
 *   starts none.
 */
import { HandoffError, isHandoffError, usage } from '../errors.js';
import type { Store } from '../store/store.js';
import type { GateRun } from './service.js';
import { startWatchdog, type Fallback, type Watchdog } from './watchdog.js';

/** The default budget: below the 30 s hook timeouts the hook docs suggest. */
export const DEFAULT_GATE_TIMEOUT_MS = 20_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 600_000;

/** `--timeout`: a whole number with its unit, `20s` or `1500ms` (a bare number is refused: its unit would be a guess). */
export function parseGateTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_GATE_TIMEOUT_MS;
  const m = /^([1-9][0-9]{0,6})(ms|s)$/.exec(text);
  const ms = m === null ? NaN : Number(m[1]) * (m[2] === 's' ? 1000 : 1);
  if (!(ms >= MIN_TIMEOUT_MS && ms <= MAX_TIMEOUT_MS)) {
    throw usage(
      `--timeout ${JSON.stringify(text.slice(0, 40))} must be a duration with its unit from 100ms to 600s, such as 20s or 1500ms`,
    );
  }
  return ms;
}

export type Phase = 'lookup' | 'found' | 'verdict';

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

export const budgetExceeded = (budgetMs: number, contractId: string | undefined): HandoffError =>
  new HandoffError(
    'GATE_BUDGET_EXCEEDED',
    `the gate's budget of ${seconds(budgetMs)} ran out after contract ${contractId ?? '(unknown)'} was found and before its verdict (the store did not answer in time)`,
  );

const inputTimeout = (budgetMs: number): HandoffError =>
  new HandoffError(
    'HOOK_INPUT_TIMEOUT',
    `the hook input did not end within the gate's budget of ${seconds(budgetMs)} (its writer never closed it)`,
  );

const lookupExceeded = (budgetMs: number): HandoffError =>
  new HandoffError(
    'STORE_UNREACHABLE',
    `the gate's budget of ${seconds(budgetMs)} ran out before the turn's contract was found (the store did not answer in time)`,
  );

/** The error of a write that was still running when the budget ran out after the verdict. */
export class AbandonedWrite extends Error {
  constructor(budgetMs: number) {
    super(`abandoned: the gate's budget of ${seconds(budgetMs)} ran out before the store answered`);
  }
}

/** What the gate reports to its budget while it works (the hooks in service.ts). */
export interface GateWatch {
  /** The store as the gate uses it: every call races the budget. */
  bound(store: Store): Store;
  /** A promise raced against the budget (opening the store). */
  race<T>(p: Promise<T>): Promise<T>;
  /** When store calls are cut off (performance.now() ms): a synchronous wait of the store must end by then. */
  readonly storeDeadline: number;
  /** A step that can block this thread past the budget follows: from now on the watchdog thread can answer. */
  arm(): void;
  /** The turn's contract is known. */
  found(contractId: string): void;
  /** A verdict exists; `run` gives it with every later write abandoned (the answer should the budget run out). */
  decided(run: () => GateRun): void;
}

/** The gate's answer: a decided run, or a failure of its own (the command fails open, exit 1). */
export type Answer = { run: GateRun } | { error: unknown };

export interface BudgetOptions {
  budgetMs: number;
  /** When the call started (performance.now()): the budget counts from there (0: the process's start). */
  origin?: number;
  /**
   * Ends the process (after an overrun answer, calls may still be pending). Without it (in-process) no watchdog thread
   * is started and nothing ends the process: the answer is still given within the budget by this thread.
   */
  exitProcess?: (code: number) => void;
  /** An answer as the command prints it (the watchdog writes these bytes itself). */
  output: (a: Answer) => Fallback;
  /**
   * The answer when the budget ran out before the contract was found (fail open, or a block under --on-store-error
   * block); `count` false: a block is not counted (the watchdog's answer: it cannot write).
   */
  lookupAnswer: (e: HandoffError, count: boolean) => Answer;
  /** The GATE_BUDGET_EXCEEDED block (counted unless `count` is false). */
  exceededAnswer: (e: HandoffError, count: boolean) => Answer;
}

/**
 * The budget of one gate call. Its times are performance.now() values, counted from `origin` (the process's start, or
 * an in-process call's): `storeAt` when store calls are cut off, `lateAt` when the main thread answers from what it
 * knows, `hardAt` when the worker answers instead.
 */
export class GateBudget implements GateWatch {
  phase: Phase = 'lookup';
  contractId: string | undefined;
  private verdictRun: (() => GateRun) | undefined;
  private readonly storeAt: number;
  private readonly lateAt: number;
  private readonly hardAt: number;
  /** The watchdog thread, once armed. */
  private dog: Watchdog | undefined;
  private expiry: Promise<never> | undefined;
  /** Resolves when the budget cut off a write after the verdict: the answer is then that verdict, writes abandoned. */
  private readonly abandoned: Promise<void>;
  private abandon: () => void = () => undefined;
  /** The exit code of the answer this thread claimed. */
  private exit = 0;
  /** The hook input was read to its end (refresh): until then the gate only waits on stdin. */
  private inputRead = false;
  overrun = false;

  constructor(private readonly o: BudgetOptions) {
    const reserve = Math.min(2000, o.budgetMs / 4);
    const origin = o.origin ?? 0;
    this.storeAt = origin + o.budgetMs - reserve;
    this.lateAt = origin + o.budgetMs - reserve / 2;
    this.hardAt = origin + o.budgetMs - Math.min(50, o.budgetMs / 20);
    this.abandoned = new Promise((done) => (this.abandon = done));
  }

  get storeDeadline(): number {
    return this.storeAt;
  }

  arm(): void {
    if (this.o.exitProcess === undefined) return;
    this.dog ??= startWatchdog(this.hardAt, this.o.output(this.fallback()));
  }

  /** What the answer's form or content depends on changed: an armed watchdog's answer follows. */
  private tell(): void {
    this.dog?.setFallback(this.o.output(this.fallback()));
  }

  /** What to answer right now if the gate could go no further; `count`: blocks are counted (main thread only). */
  fallback(count = false): Answer {
    if (this.phase === 'verdict' && this.verdictRun !== undefined) return { run: this.verdictRun() };
    if (this.phase === 'found') return this.o.exceededAnswer(budgetExceeded(this.o.budgetMs, this.contractId), count);
    if (!this.inputRead) return this.o.lookupAnswer(inputTimeout(this.o.budgetMs), count);
    return this.o.lookupAnswer(lookupExceeded(this.o.budgetMs), count);
  }

  /** The error a store call gets once the budget for store calls is spent, by phase. */
  private cutOff(): Error {
    this.overrun = true;
    if (this.phase === 'verdict') {
      this.abandon();
      return new AbandonedWrite(this.o.budgetMs);
    }
    if (this.phase === 'found') return budgetExceeded(this.o.budgetMs, this.contractId);
    return lookupExceeded(this.o.budgetMs);
  }

  private until(at: number): Promise<void> {
    return new Promise((done) => setTimeout(done, Math.max(0, at - performance.now())).unref());
  }

  private expired(): Promise<never> {
    this.expiry ??= this.until(this.storeAt).then(() => {
      throw this.cutOff();
    });
    return this.expiry;
  }

  bound(store: Store): Store {
    return this.boundCalls(store);
  }

  private boundCalls<T extends object>(store: T): T {
    return new Proxy(store, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        // The blob capability is an object of its own: its calls race the budget like the store's.
        if (key === 'blobs' && typeof value === 'object' && value !== null) return this.boundCalls(value);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          // Closing is never refused nor waited for past the budget (the process ends with the answer anyway).
          if (key === 'close')
            return Promise.race([
              Promise.resolve(value.apply(target, args)).catch(() => undefined),
              this.expired().catch(() => undefined),
            ]);
          if (performance.now() >= this.storeAt) return Promise.reject(this.cutOff());
          // A wait bounded by the deadline (SQLite's busy wait, storeDeadline) fails as busy when it runs out: that
          // failure is the budget's cut-off.
          const call = Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args)).catch(
            (e: unknown) => {
              throw performance.now() >= this.storeAt ? this.cutOff() : e;
            },
          );
          call.catch(() => undefined); // an abandoned call's late failure is nobody's concern
          return Promise.race([call, this.expired()]);
        };
      },
    });
  }

  race<T>(p: Promise<T>): Promise<T> {
    p.catch(() => undefined);
    return Promise.race([p, this.expired()]);
  }

  /** The hook input was read (the answer's form is its harness's). */
  refresh(): void {
    this.inputRead = true;
    this.tell();
  }

  found(contractId: string): void {
    this.phase = 'found';
    this.contractId = contractId;
    this.tell();
  }

  decided(run: () => GateRun): void {
    this.phase = 'verdict';
    this.verdictRun = run;
    this.tell();
  }

  /**
   * Runs the gate within the budget: its own answer when it finishes in time, else the answer of the moment (a
   * GATE_BUDGET_EXCEEDED from a store call becomes its block; a budget overrun before the contract was found, its
   * STORE_UNREACHABLE).
   */
  async run(gate: () => Promise<GateRun>): Promise<Answer> {
    const late = this.until(this.lateAt).then(() => undefined);
    const abandoned = this.abandoned.then(() => undefined);
    try {
      const r = await Promise.race([gate(), late, abandoned]);
      if (r !== undefined) return { run: r };
      this.overrun = true;
      return this.fallback(true);
    } catch (e) {
      if (!isHandoffError(e)) return { error: e };
      if (e.code === 'GATE_BUDGET_EXCEEDED') return this.o.exceededAnswer(e, true);
      if (this.overrun && this.phase === 'lookup') return this.o.lookupAnswer(e, true);
      return { error: e };
    }
  }

  /** Claims the answer for this thread (false: an armed watchdog answered; print nothing). */
  claim(exit: number): boolean {
    this.exit = exit;
    return this.dog === undefined || this.dog.claim(exit);
  }

  /**
   * After the answer is written: when the budget was overrun, end the process at once with the answer's exit code
   * (abandoned calls linger: a PostgreSQL query would hold the process open until its own limit).
   */
  written(): void {
    if (!this.overrun) return;
    if (this.dog !== undefined) this.dog.end();
    else this.o.exitProcess?.(this.exit);
  }
}
