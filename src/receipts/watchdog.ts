/**
 * The child's group dies with the tool. `evidence run` starts its command in a process group of its own (so a
 * timeout reaches everything it started); if the tool itself is killed (SIGKILL, an OOM kill), nothing would stop
 * that group and it would run on with no receipt to show for it. A tiny watchdog (/bin/sh, in a session of its own so
 * it outlives the tool's group) holds the read end of a pipe whose write end only the tool holds: the kernel closes
 * it when the tool dies, however it dies, and the watchdog reads EOF and ends the group (TERM, then KILL). On a normal
 * end the tool writes a stand-down line first, and the watchdog leaves without touching anything.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Writable } from 'node:stream';

/** Grace between the watchdog's TERM and KILL (seconds, for sh's sleep). */
const GRACE_S = 2;

// $1 is the group. A line on stdin: stand down. EOF first: the tool is gone, end the group. KILL follows the grace
// for whatever ignored TERM (a group already gone makes the first kill fail: done).
const SCRIPT = `read done && exit 0; kill -TERM "-$1" 2>/dev/null || exit 0; sleep ${GRACE_S}; kill -KILL "-$1" 2>/dev/null; exit 0`;

export interface Watchdog {
  /** The tool finished with the group: the watchdog leaves without killing anything. */
  standDown(): void;
}

/**
 * Starts the watchdog of the group `pgid` (the child's pid: it leads its group). Called right after the child's spawn,
 * in the same synchronous step: the group id travels in argv, so the watchdog is armed the moment it exists (a write
 * on the pipe would wait for the event loop). What is left is the moment between the child's start and this call
 * (Node's own spawn bookkeeping, about a millisecond): a kill inside it leaves the group unwatched. Best effort: when
 * /bin/sh cannot be started the run goes on unwatched, as before.
 */
export function startWatchdog(pgid: number): Watchdog {
  let dog: ChildProcessByStdio<Writable, null, null>;
  try {
    dog = spawn('/bin/sh', ['-c', SCRIPT, 'handoff-watchdog', String(pgid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
  } catch {
    return { standDown: () => undefined };
  }
  dog.on('error', () => undefined);
  dog.stdin.on('error', () => undefined);
  // The watchdog never keeps this process alive (an idle pipe does not either); the write end closes when we exit.
  dog.unref();
  return { standDown: () => dog.stdin.end('done\n') };
}
