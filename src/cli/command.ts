/**
 * The command contract. Every verb is a module under src/commands/<topic>/<verb>.ts whose default export is a
 * CommandDefinition: flags are data (parsed by node:util parseArgs, which costs nothing at start-up), run() takes a
 * context and returns a typed result, so --json output is data that tests read directly.
 */
export type FlagType = 'string' | 'boolean';

export interface FlagDef {
  type: FlagType;
  /** Repeatable flag: the value is a string[]. */
  multiple?: boolean;
  description: string;
  /** Shown in help, e.g. `ID`, `N`. */
  valueName?: string;
}

export interface ArgDef {
  name: string;
  required: boolean;
  description: string;
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  id: string;
  flags: FlagValues;
  /** Named positional arguments (in order of `args`). */
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

export interface CommandDefinition {
  id: string;
  summary: string;
  usage: string;
  description?: string;
  flags: Record<string, FlagDef>;
  args?: ArgDef[];
  /** Accept `-- CMD ARG...` after the flags. */
  passthrough?: boolean;
  /** Output is always JSON (fill: its --json flag is the patch). */
  alwaysJson?: boolean;
  /** No --json output switch (gate has one; fill has none). Default: the flag named `json` switches JSON mode. */
  /**
   * Hook semantics (contract gate): bad input and store trouble exit 1 ("not gated") instead of 2/3/4, because
   * exit 2 means block.
   */
  failOpen?: boolean;
  /** Rewrites raw argv before parsing (e.g. optional-value flags). */
  preprocess?: (argv: string[]) => string[];
  run(ctx: CommandContext): Promise<CommandResult> | CommandResult;
}

export const defineCommand = (def: CommandDefinition): CommandDefinition => def;
