/**
 * The gate's last-resort answer: a worker thread that, when the budget runs out and the main thread has not answered
 * (it may be stuck in a synchronous call: a SQLite busy wait, a read of a hung file system), writes the fallback
 * answer itself and ends the whole process with its exit code. A timer on the main thread cannot do this, and Node
 * gives a worker no way to end the process with a chosen code; WASI's proc_exit does (it calls the C library's exit
 * from the worker's thread). SIGKILL is the fallback should that fail (the stop then ends without the code).
 *
 * Protocol over a shared Int32Array: [0] state (0 open, 1 main answered, 2 worker answered, 3 main's answer written),
 * [1] main's exit code. Whoever moves the state from 0 first owns the answer; the other never writes one.
 */
import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';

export const OPEN = 0;
export const MAIN = 1;
/** @public The worker's answer: its code (a separate program) writes the literal 2. */
export const WORKER = 2;
export const WRITTEN = 3;

export interface Fallback {
  exit: number;
  stdout?: string;
  stderr?: string;
}

/**
 * The worker's program, as text: run with `eval`, it sees nothing of this module (and the bundler's rewriting of
 * functions, which would add names of the bundle's scope, never reaches it). `proc_exit` is called from a tiny WASI
 * module whose `_start` exits with the code placed in its memory's first byte.
 */
const PROGRAM = String.raw`
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const shared = new Int32Array(workerData.shared);
let fallback = workerData.fallback;
const exitProcess = (code) => {
  try {
    process.emitWarning = () => undefined; // WASI's "experimental" warning must not reach the hook's stderr
    const { WASI } = require('node:wasi');
    const name = (s) => [s.length, ...Buffer.from(s)];
    const section = (id, body) => [id, body.length, ...body];
    const bytes = new Uint8Array([
      0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
      ...section(1, [2, 0x60, 1, 0x7f, 0, 0x60, 0, 0]),
      ...section(2, [1, ...name('wasi_snapshot_preview1'), ...name('proc_exit'), 0, 0]),
      ...section(3, [1, 1]),
      ...section(5, [1, 0, 1]),
      ...section(7, [2, ...name('memory'), 2, 0, ...name('_start'), 0, 1]),
      ...section(10, [1, 9, 0, 0x41, 0, 0x2d, 0, 0, 0x10, 0, 0x0b]),
    ]);
    const wasi = new WASI({ version: 'preview1', returnOnExit: false });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { wasi_snapshot_preview1: wasi.wasiImport });
    new Uint8Array(instance.exports.memory.buffer)[0] = code & 0xff;
    wasi.start(instance);
  } finally {
    process.kill(process.pid, 'SIGKILL');
  }
};
const write = (fd, text) => {
  if (text === undefined) return;
  try {
    fs.writeSync(fd, text);
  } catch {
    // a closed pipe: the answer is the exit code
  }
};
parentPort.on('message', (m) => {
  if (m.fallback !== undefined) fallback = m.fallback;
  // Main's answer is written and the budget is spent: end now, whatever the abandoned calls still hold open.
  if (m.end === true) exitProcess(Atomics.load(shared, 1));
});
setTimeout(() => {
  if (Atomics.compareExchange(shared, 0, 0, 2) === 0) {
    write(1, fallback.stdout);
    write(2, fallback.stderr);
    exitProcess(fallback.exit);
  }
  // Main answered: give its write a moment, then end the process with main's code.
  Atomics.wait(shared, 0, 1, 200);
  exitProcess(Atomics.load(shared, 1));
}, Math.max(0, workerData.hardAtEpoch - (performance.timeOrigin + performance.now())));
`;

export interface Watchdog {
  /** The answer the worker gives if the main thread has not answered by the hard deadline. */
  setFallback(f: Fallback): void;
  /** Claims the answer for the main thread; false when the worker already gave one (then print nothing). */
  claim(exit: number): boolean;
  /** After main's answer is written: end the process now (the budget ran out; calls may still be pending). */
  end(): void;
}

/**
 * Starts the watchdog; `hardAt` is in this thread's performance.now() time (ms since the process started). A thread
 * costs about as much as the rest of a gate call, so the gate starts one only before a step that can block the main
 * thread past its budget (budget.ts); node:worker_threads is loaded then, not before.
 */
export function startWatchdog(hardAt: number, fallback: Fallback): Watchdog {
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  // Both threads agree on wall-clock time (each has its own time origin).
  const hardAtEpoch = performance.timeOrigin + hardAt;
  const worker = new Worker(PROGRAM, { eval: true, workerData: { shared, fallback, hardAtEpoch } });
  worker.unref();
  worker.on('error', () => undefined);
  return {
    setFallback(f) {
      worker.postMessage({ fallback: f });
    },
    claim(exit) {
      Atomics.store(state, 1, exit);
      return Atomics.compareExchange(state, 0, OPEN, MAIN) === OPEN;
    },
    end() {
      Atomics.store(state, 0, WRITTEN);
      Atomics.notify(state, 0);
      worker.postMessage({ end: true });
    },
  };
}
