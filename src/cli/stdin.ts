/**
 * Reading all of stdin for a verb (`--file -`, `--json-file -`, the stop gate's hook JSON).
 *
 * The stop gate reads its hook input at every stop of every agent, so the common kinds of stdin are read without
 * `process.stdin`: that stream loads `net` and the stream machinery, about 4 ms of a call that must stay near a bare
 * `node -e 0` (docs/decisions.md, "Fast start").
 * - A regular file is read with `readSync` until its end: a read of a file never waits.
 * - A pipe or a socket (what a harness hands its hook, and what `cmd | handoff ...` gives) is opened as the pipe
 *   handle Node's own `process.stdin` would open on it, which makes the descriptor non-blocking, and is read with
 *   `readSync`: data, the end, or "nothing yet". Nothing yet is waited for with a timer, so the event loop stays free
 *   (the gate's time budget still ends a call whose writer never closes its end).
 * - Anything else (a character device such as /dev/null or a terminal), or a Node without that handle, is read
 *   through `process.stdin`, as before.
 * Every way stops at a caller's limit (the gate's 64 MiB): once more than `maxBytes` arrived, the rest is never read
 * and the caller's error is thrown.
 */
import { fstatSync, readSync, type Stats } from 'node:fs';
import { HandoffError } from '../errors.js';

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Bytes asked for per read. */
const CHUNK = 64 * 1024;
/** The longest wait between two reads of an input that has nothing yet (ms); the first waits 1 ms, then doubling. */
const MAX_POLL_MS = 16;

/** The most a caller takes from stdin, and its error beyond that (thrown as is). */
export interface StdinLimit {
  maxBytes: number;
  tooLarge: (maxBytes: number) => Error;
}

export async function readStdin(limit?: StdinLimit): Promise<Buffer> {
  // The process.stdin stream reads a directory or a closed descriptor as an empty input, so look at fd 0 first: only
  // a failed or impossible read is UNREADABLE_INPUT.
  let stat: Stats;
  try {
    stat = fstatSync(0);
  } catch (e) {
    throw unreadableStdin(e);
  }
  if (stat.isDirectory()) throw unreadableStdin(new Error('stdin is a directory'));
  const maxBytes = limit?.maxBytes ?? Infinity;
  try {
    if (stat.isFile()) return await readAll(false, maxBytes);
    if ((stat.isFIFO() || stat.isSocket()) && openNonBlocking()) return await readAll(true, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
      total += (chunk as Buffer).length;
      // Leaving the loop destroys the stream: nothing more is read.
      if (total > maxBytes) break;
    }
    if (total <= maxBytes) return Buffer.concat(chunks);
  } catch (e) {
    if (!(e instanceof TooLarge)) throw unreadableStdin(e);
  }
  throw limit!.tooLarge(maxBytes);
}

/** readAll's signal that more than the limit arrived. */
class TooLarge extends Error {}

/**
 * fd 0 up to its end. `mayWait`: the descriptor is non-blocking and a read can answer EAGAIN (nothing yet), which is
 * waited out on a timer; every byte read is kept (a chunk is never dropped on EAGAIN). A read a signal interrupted
 * (EINTR) is simply made again. No read asks for more than one byte past `maxBytes` (TooLarge once it arrived).
 */
async function readAll(mayWait: boolean, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  let waitMs = 1;
  for (;;) {
    const want = Math.min(CHUNK, maxBytes + 1 - total);
    const chunk = Buffer.allocUnsafe(want);
    let n: number;
    try {
      n = readSync(0, chunk, 0, want, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EINTR') continue;
      if (!mayWait || (code !== 'EAGAIN' && code !== 'EWOULDBLOCK')) throw e;
      await sleep(waitMs);
      waitMs = Math.min(waitMs * 2, MAX_POLL_MS);
      continue;
    }
    if (n === 0) return Buffer.concat(chunks);
    chunks.push(chunk.subarray(0, n));
    total += n;
    if (total > maxBytes) throw new TooLarge();
    waitMs = 1;
  }
}

/** The pipe handle kept open on fd 0 (closing it would close fd 0). */
let stdinHandle: unknown;

interface PipeBinding {
  Pipe: new (type: number) => { open(fd: number): number | undefined };
  constants: { SOCKET: number };
}

/**
 * Opens Node's pipe handle on fd 0, as `process.stdin` does for a pipe or a socket, which sets the descriptor
 * non-blocking; false when this Node does not offer it (`process.binding` is deprecated and may go, or be refused by
 * the permission model) or the open fails: the caller then reads through `process.stdin`. A deprecation warning it
 * may raise (`--pending-deprecation`) is kept off stderr, which a hook's harness reads.
 */
function openNonBlocking(): boolean {
  if (stdinHandle !== undefined) return true;
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    const binding = (process as unknown as { binding(name: string): PipeBinding }).binding('pipe_wrap');
    const handle = new binding.Pipe(binding.constants.SOCKET);
    const err = handle.open(0);
    if (typeof err === 'number' && err !== 0) return false;
    stdinHandle = handle;
    return true;
  } catch {
    return false;
  } finally {
    process.noDeprecation = quiet;
  }
}

const unreadableStdin = (e: unknown): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', `cannot read stdin: ${(e as Error).message}`);
