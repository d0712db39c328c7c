/**
 * What a verb sees and returns. Every verb is an oclif command class (src/commands/<topic>/<verb>.ts) extending
 * HandoffCommand, whose `perform(ctx)` takes this context and returns a typed result, so `--json` output is data that
 * tests read directly.
 */
import type { FlagValues } from '../input/flag-values.js';
import type { Rendered, Writer } from '../render/result.js';
import type { StdinLimit } from './stdin.js';

export type { FlagValues };

export interface CommandContext<F extends object = FlagValues> {
  /** The verb, with a space: `contract set`. */
  id: string;
  flags: F;
  /** Named positional arguments (in order of the command's `args`). */
  args: Record<string, string | undefined>;
  /** Arguments after `--` for commands with `passthrough` (evidence run). */
  rest: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when the verb prints exactly one JSON object on stdout. */
  json: boolean;
  /** A notice line on stderr, printed at once (both modes). */
  notice: (line: string) => void;
  stdout: Writer;
  stderr: Writer;
  /** Where a child's output passes through (evidence run, contract verify). */
  passthrough: { stdout: Writer; stderr: Writer };
  /** The executable's script path (hooks install writes it into harness configs). */
  script: string;
  /** Reads all of stdin (UNREADABLE_INPUT on failure); with a limit, the limit's error beyond it. */
  readStdin: (limit?: StdinLimit) => Promise<Buffer>;
  stdinIsTTY: boolean;
  /** ExecuteIO.startedAt: when the call started (performance.now()); 0 when it is the process's start. */
  startedAt?: number;
  /** ExecuteIO.exitProcess: absent where nothing may end the process (in-process, the MCP tools). */
  exitProcess?: (code: number) => void;
}

/** What a caller without a terminal supplies to `HandoffCommand.invoke` (the MCP tools): where the verb runs and
 * where its notices and streams go. */
export type CommandIO = Pick<
  CommandContext,
  'env' | 'cwd' | 'notice' | 'stdout' | 'stderr' | 'passthrough' | 'script' | 'readStdin' | 'stdinIsTTY'
>;

/** A verb's result: what its outcome renders to (exit, `--json` object, human text). */
export type CommandResult = Rendered;
