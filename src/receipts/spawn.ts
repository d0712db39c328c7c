/**
 * Runs the child for a receipt: its own process group (so a timeout or a forwarded Ctrl-C reaches
 * every process it started), stdin from /dev/null, stdout and stderr captured and passed through as raw bytes.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { constants } from 'node:os';
import { StreamCapture, type CapturedStream, type SpillArea } from './capture.js';
import { startWatchdog } from './watchdog.js';

/** Grace between TERM and KILL on a timeout. */
export const KILL_GRACE_MS = 5000;
/** After the child exited, how long its output pipes may stay open (held by a process it left behind). */
export const PIPE_DRAIN_MS = 2000;

export interface ChildRequest {
  argv: readonly string[];
  shell: boolean;
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /**
   * Pass-through sinks: raw chunks, written as they arrive. A sink returns 'closed' once its reader went away
   * (EPIPE): the child's process group then gets SIGPIPE, as a writer in a shell pipeline would, and the capture
   * goes on (a child that ignores SIGPIPE runs to its own end and is recorded in full).
   */
  onStdout: (chunk: Buffer) => void | 'closed';
  onStderr: (chunk: Buffer) => void | 'closed';
  /** Where output beyond the inline threshold is spilled (`<root>/tmp/spill-<pid>-…`). */
  spill: SpillArea;
  /** Test seam: the grace between TERM and KILL. */
  killGraceMs?: number;
  /** Aborted when the caller gives up (an MCP cancel): the group is stopped as on a timeout, and the run is unproven. */
  signal?: AbortSignal;
}

export interface ChildRun {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Null on a signal, a timeout or a failure to start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The caller cancelled the run (ChildRequest.signal) and the group was stopped. */
  cancelled?: boolean;
  /** Set when the command could not be started (ENOENT, EACCES, ...). */
  spawnError?: string;
  /**
   * Set when the output could not be captured (the spill failed: no space, unwritable, a file-size limit): the
   * child's process group was killed and reaped, and no receipt may be recorded (RECEIPT_CAPTURE_FAILED).
   */
  captureError?: string;
  stdout: CapturedStream;
  stderr: CapturedStream;
  /** Removes the capture temp files. */
  discard(): void;
}

/** Signals forwarded to the child's group while it runs, so Ctrl-C still stops a detached child. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function runChild(req: ChildRequest): Promise<ChildRun> {
  const out = new StreamCapture('stdout', req.spill);
  const err = new StreamCapture('stderr', req.spill);
  const started = new Date();
  const t0 = process.hrtime.bigint();
  const [file, ...args] = req.shell ? ['/bin/sh', '-c', req.argv[0] ?? ''] : req.argv;
  let child: ChildProcessByStdio<null, Readable, Readable>;
  try {
    child = spawn(file, args, { cwd: req.cwd, env: req.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // Invalid arguments are refused synchronously (e.g. a NUL byte): the command could not be started.
    return Promise.resolve(notStarted(out, err, req.spill, started, (e as NodeJS.ErrnoException).code ?? 'EINVAL'));
  }
  // If this process is killed outright, the watchdog ends the child's group (watchdog.ts).
  const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid);
  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let spawnError: string | undefined;
    let captureError: string | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const forward = (sig: NodeJS.Signals): void => killGroup(sig);
    for (const s of FORWARDED) process.on(s, forward);

    const finish = (): void => {
      if (settled) return;
      settled = true;
      watchdog?.standDown();
      for (const t of timers) clearTimeout(t); // clears intervals too
      for (const s of FORWARDED) process.removeListener(s, forward);
      req.signal?.removeEventListener('abort', onAbort);
      const durationMs = Number((process.hrtime.bigint() - t0) / 1_000_000n);
      const finished = new Date(Math.max(Date.now(), started.getTime()));
      const signal = exit?.signal ?? null;
      resolve({
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        durationMs,
        // A timeout or a cancel makes the run unproven whatever status the child chose on its way out.
        exitCode: timedOut || cancelled || spawnError !== undefined ? null : (exit?.code ?? null),
        signal,
        timedOut,
        ...(cancelled ? { cancelled } : {}),
        spawnError,
        ...(captureError === undefined ? {} : { captureError }),
        stdout: out.finish(),
        stderr: err.finish(),
        discard: () => {
          out.discard();
          err.discard();
          req.spill.discard();
        },
      });
    };

    // A capture that failed cannot make a receipt: stop the whole group now (never left running, nor past --timeout);
    // the exit and close events then reap it and settle the run as usual.
    const checkCapture = (c: StreamCapture): void => {
      if (c.failure === undefined || captureError !== undefined) return;
      captureError = c.failure;
      killGroup('SIGKILL');
    };

    // A reader that went away is what SIGPIPE signals in a shell pipeline; capture continues either way.
    let piped = false;
    const readerGone = (): void => {
      if (!piped) killGroup('SIGPIPE');
      piped = true;
    };
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      checkCapture(out);
      if (req.onStdout(chunk) === 'closed') readerGone();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      checkCapture(err);
      if (req.onStderr(chunk) === 'closed') readerGone();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Only a failure to start reaches here without an exit; a kill error is swallowed in killGroup.
      if (exit === undefined) {
        spawnError = e.code ?? e.message;
        finish();
      }
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Output may still sit in the pipes, and a process the child left behind may hold them open: wait a little.
      if (!timedOut) timers.push(setTimeout(drainAndFinish, PIPE_DRAIN_MS));
    });
    child.on('close', () => {
      closed = true;
      if (spawnError !== undefined || (exit !== undefined && !timedOut)) finish();
    });
    const drainAndFinish = (): void => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    };
    const groupGone = (): boolean => {
      try {
        process.kill(-(child.pid as number), 0);
        return false;
      } catch {
        return true;
      }
    };
    const onTimeout = (): void => {
      if (exit !== undefined || settled || cancelled) return;
      timedOut = true;
      stopGroup();
    };
    // A cancel stops the whole group even when its first process already exited (a child it left behind runs on).
    function onAbort(): void {
      if (settled || timedOut) return;
      cancelled = true;
      stopGroup();
    }
    /** TERM, then KILL after the grace; the run settles once the group is gone and the pipes are closed. */
    const stopGroup = (): void => {
      killGroup('SIGTERM');
      // Until the KILL, finish early only once every process of the group is gone and the pipes are closed.
      const poll = setInterval(() => {
        if (closed && exit !== undefined && groupGone()) finish();
      }, 50);
      timers.push(poll);
      timers.push(
        setTimeout(() => {
          killGroup('SIGKILL');
          timers.push(setTimeout(drainAndFinish, PIPE_DRAIN_MS));
          timers.push(setInterval(() => closed && exit !== undefined && finish(), 50));
        }, req.killGraceMs ?? KILL_GRACE_MS),
      );
    };
    if (child.pid !== undefined) timers.push(setTimeout(onTimeout, req.timeoutMs));
    if (req.signal?.aborted === true) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function notStarted(out: StreamCapture, err: StreamCapture, spill: SpillArea, started: Date, code: string): ChildRun {
  const at = started.toISOString();
  return {
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    exitCode: null,
    signal: null,
    timedOut: false,
    spawnError: code,
    stdout: out.finish(),
    stderr: err.finish(),
    discard: () => spill.discard(),
  };
}

/** 128 + the signal's number; 128 + 15 for an unknown name. */
export function signalExit(signal: string): number {
  const n = (constants.signals as Record<string, number | undefined>)[signal];
  return 128 + (n ?? 15);
}
