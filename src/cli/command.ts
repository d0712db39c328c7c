/**
 * What a verb sees and returns. Every verb is an oclif command class (src/commands/<topic>/<verb>.ts) extending
 * HandoffCommand, whose `perform(ctx)` takes this context and returns a typed result, so `--json` output is data that
 * tests read directly.
 */
/** Flag values as oclif's parse gives them; a verb reads its own typed (`CommandContext<FlagsOf<typeof Verb>>`). */
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

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
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of stdin (UNREADABLE_INPUT on failure). */
  readStdin: () => Promise<Buffer>;
  stdinIsTTY: boolean;
}

/** What a caller without a terminal supplies to `HandoffCommand.invoke` (the MCP tools): where the verb runs and
 * where its notices and streams go. */
export type CommandIO = Pick<CommandContext, 'env' | 'cwd' | 'notice' | 'stdout' | 'stderr' | 'readStdin' | 'stdinIsTTY'>;

export interface CommandResult {
  /** Exit code; default 0. */
  exit?: number;
  /** Printed (one line) on stdout in JSON mode. */
  json?: Record<string, unknown>;
  /** Human mode: printed on stdout. */
  text?: string;
  /** Human mode: printed on stderr (rejection blocks). */
  errText?: string;
}
