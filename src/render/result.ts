/**
 * What a verb's outcome renders to: an exit code, the `--json` object and the human text. Services that render
 * their own outcome (a rejection, a receipt run) return this; the CLI prints it (src/cli/output.ts) and the MCP
 * tools turn it into a tool result, so neither a service nor src/render/ needs a type from src/cli/.
 */
export interface Rendered {
  /** Exit code; default 0. */
  exit?: number;
  /** Printed (one line) on stdout in JSON mode. */
  json?: Record<string, unknown>;
  /** Human mode: printed on stdout. */
  text?: string;
  /** Human mode: printed on stderr (rejection blocks). */
  errText?: string;
}

/**
 * Where rendered bytes or text go (a verb's stdout or stderr, a child's pass-through); false once the reader went
 * away (EPIPE), so a pass-through can stop.
 */
export type Writer = (chunk: string | Uint8Array) => boolean;
