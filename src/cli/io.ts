/**
 * Where a verb's input comes from and its output goes (the in-process core, docs/architecture.md): the environment,
 * the working directory, stdin, the two output streams and whether each is a terminal. `execute(argv, io)` runs a
 * verb on an ExecuteIO and touches nothing process-wide (process.env, the cwd, process.exitCode); bin/run.js builds
 * one from the process (processIO) and tests build one over buffers (bufferIO).
 */
import type { Writer } from '../render/result.js';
import { readStdin, type StdinLimit } from './stdin.js';
import { isTerminal, stdStream, writeStd } from './stdio.js';

export interface ExecuteIO {
  env: NodeJS.ProcessEnv;
  /** The directory relative paths resolve against. */
  cwd: string;
  /** Reads all of stdin (UNREADABLE_INPUT on failure); with a limit, the limit's error beyond it. */
  readStdin: (limit?: StdinLimit) => Promise<Buffer>;
  stdout: Writer;
  stderr: Writer;
  /** Where a child's output passes through (evidence run, contract verify); the process's stream objects, so a
   * reader that stops reading never blocks the run's own timers. */
  passthrough: { stdout: Writer; stderr: Writer };
  /** Terminal detection per stream (colour, prompts), asked lazily. */
  isTTY: (fd: 0 | 1 | 2) => boolean;
  /** The executable's script (bin/run.js): hooks install writes its absolute path into harness configs. */
  script: string;
  /**
   * When the call started, in performance.now() of this process: a time budget (the gate's --timeout) counts from
   * there. Absent: 0, the process's start, which a hook's own timeout includes; an in-process call starts when made.
   */
  startedAt?: number;
  /**
   * Ends the process at once (the gate after its budget ran out, with calls still pending; its watchdog thread).
   * Absent in-process: nothing there may end the process, and the gate then answers without a watchdog.
   */
  exitProcess?: (code: number) => void;
}

export interface ExecuteResult {
  exit: number;
  /** What was written to stdout and stderr (empty when the writers were the process's own). */
  stdout: string;
  stderr: string;
}

/** The process's own input and output (bin/run.js). */
export function processIO(): ExecuteIO {
  return {
    env: process.env,
    // Asked when the verb needs it, inside its error handling (a cwd that is gone is then the verb's failure).
    get cwd() {
      return process.cwd();
    },
    readStdin,
    stdout: (chunk) => writeStd('stdout', chunk),
    stderr: (chunk) => writeStd('stderr', chunk),
    passthrough: {
      stdout: (chunk) => (stdStream('stdout'), writeStd('stdout', chunk)),
      stderr: (chunk) => (stdStream('stderr'), writeStd('stderr', chunk)),
    },
    isTTY: isTerminal,
    script: process.argv[1] ?? '',
    startedAt: 0,
    exitProcess: (code) => process.exit(code),
  };
}

export interface BufferIOOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin?: string | Uint8Array;
  /** Pretend these descriptors are terminals (default: none is). */
  tty?: readonly (0 | 1 | 2)[];
  script: string;
  /** ExecuteIO.startedAt (default: now, when the io is made). */
  startedAt?: number;
}

/** An ExecuteIO over buffers: stdin from `opts.stdin`, stdout and stderr collected (read them with `collected()`). */
export function bufferIO(opts: BufferIOOptions): ExecuteIO & { collected(): { stdout: string; stderr: string } } {
  const startedAt = opts.startedAt ?? performance.now();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const into =
    (list: Buffer[]): Writer =>
    (chunk) => {
      list.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
      return true;
    };
  const stdin =
    opts.stdin === undefined
      ? Buffer.alloc(0)
      : typeof opts.stdin === 'string'
        ? Buffer.from(opts.stdin, 'utf8')
        : Buffer.from(opts.stdin);
  const tty = new Set(opts.tty ?? []);
  const stdout = into(out);
  const stderr = into(err);
  return {
    env: opts.env,
    cwd: opts.cwd,
    readStdin: (limit) =>
      limit !== undefined && stdin.length > limit.maxBytes
        ? Promise.reject(limit.tooLarge(limit.maxBytes))
        : Promise.resolve(stdin),
    stdout,
    stderr,
    passthrough: { stdout, stderr },
    isTTY: (fd) => tty.has(fd),
    script: opts.script,
    startedAt,
    collected: () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
  };
}
