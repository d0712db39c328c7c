/**
 * `handoff contract wait`: its exit tells how the chain's tip closed. With `evidence run` (the command's own status)
 * this is the second documented exception to the exit table (docs/errors.md renders it from here).
 */
export const WAIT_EXITS = [
  [0, 'COMPLETE'],
  [10, 'NEEDS_VERIFICATION'],
  [11, 'BLOCKED'],
  [12, 'NEEDS_INPUT'],
  [13, 'APPROVAL_REQUEST'],
  [14, 'closed degraded: the stop gate captured the turn unfinalized (IN_PROGRESS, cut_reason backstop_capture)'],
  [124, 'the timeout passed with the tip still open (default 10m)'],
] as const;

/** Exit when the time is up. */
export const WAIT_TIMEOUT_EXIT = 124;
/** Exit of a tip the gate captured unfinalized. */
export const WAIT_DEGRADED_EXIT = 14;

/** The exit of a closing state (the first five rows of WAIT_EXITS). */
export const waitExitOf = (state: string): number | undefined => WAIT_EXITS.find(([, s]) => s === state)?.[0];
