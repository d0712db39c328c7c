import type { CodeEntry } from './types.js';

/**
 * Codes of dispatch and the gate (dispatch, claim, the stop gate). ROW_NOT_FOUND and
 * BLIND_VERIFICATION_REQUIRED are registered with the store codes; the receipt codes with the receipts codes.
 */
export const gateCodes = [
  {
    code: 'VERIFIER_REQUIRES_PARENT',
    exit: 2,
    where: 'contract dispatch',
    when: 'The dispatch is of kind verifier (given or inferred) but names no --parent-handoff-id.',
    repair: 'Pass --parent-handoff-id <handoff_id of the producer row to verify>.',
  },
  {
    code: 'VERIFIER_PLAN_BOUND',
    exit: 2,
    where: 'contract dispatch',
    when: 'A verifier dispatch also gives --plan-task-id; a bound verifier could never close COMPLETE.',
    repair:
      'Drop --plan-task-id: the producer carries the plan binding, the verifier points at it with --parent-handoff-id.',
  },
  {
    code: 'TASK_EXECUTION_REQUIRES_PLAN_TASK',
    exit: 2,
    where: 'contract dispatch',
    when: 'The dispatch is of kind task_execution but gives no --plan-task-id.',
    repair: 'Pass --plan-task-id <the plan task id>, or choose another --kind.',
  },
  {
    code: 'GOAL_TOO_LARGE',
    exit: 2,
    where: 'dispatch',
    when: 'The goal (after trimming trailing whitespace) is larger than 64 KiB in UTF-8, or the --goal-file is larger than 1 MiB (refused from its size, unread).',
    repair: 'Put the long text in a brief (`handoff brief add`) and dispatch with --brief NAME and a short goal.',
  },
  {
    code: 'APPROVAL_PATTERN_INVALID',
    exit: 2,
    where: 'dispatch',
    when: 'A --require-approval pattern (or an item of HANDOFF_APPROVAL_PATTERNS) names an unknown class or is malformed: blank, longer than 1000 characters, with a control character, an empty Bash()/Write()/Edit(), an MCP name not of the form mcp__SERVER__TOOL; or more than 64 patterns.',
    repair:
      'Write Bash(COMMAND GLOB), Write(PATH GLOB), Edit(PATH GLOB) or mcp__SERVER__TOOL, e.g. "Bash(git push *)".',
  },
  {
    code: 'PARENT_HANDOFF_NOT_FOUND',
    exit: 3,
    where: 'contract dispatch',
    when: 'No handoff row has the id given with --parent-handoff-id (or there is no store yet).',
    repair: 'Check the id with handoff contract list --json (the handoff_id of the producer row).',
  },
  {
    code: 'PARENT_NOT_CLOSED',
    exit: 1,
    where: 'contract dispatch',
    when: 'A verifier is dispatched for a parent row that is not closed (DISPATCHED or a captured IN_PROGRESS).',
    repair:
      'Wait until the producer has finalized its contract (for a bound producer: NEEDS_VERIFICATION), then dispatch the verifier.',
  },
  {
    code: 'HARNESS_ID_IN_USE',
    exit: 1,
    where: 'contract dispatch, contract claim',
    when: 'Another contract chain already carries this harness run id.',
    repair:
      'Each harness run id belongs to one contract chain: use a fresh session id, or claim the contract that already carries it.',
  },
  {
    code: 'CLAIM_TOKEN_REQUIRED',
    exit: 2,
    where: 'contract claim',
    when: 'The contract has a claim token (dispatch and init print one) and none was given.',
    repair: 'Pass the token dispatch or init printed: --claim-token TOKEN, or HANDOFF_CLAIM_TOKEN in the environment.',
  },
  {
    code: 'CLAIM_TOKEN_INVALID',
    exit: 1,
    where: 'contract claim',
    when: "The claim token given is not the contract's (its sha256 differs from the one stored); nothing was written.",
    repair:
      'Pass the token printed when this contract was dispatched or initialized; an agent claims only the contract it was given.',
  },
  {
    code: 'HARNESS_ID_CONFLICT',
    exit: 1,
    where: 'contract claim',
    when: 'The contract already carries a different harness run id (harness_id is set-once).',
    repair: 'Leave the contract with its run id; dispatch a new contract for the other run.',
  },
  {
    code: 'ROW_NOT_FINALIZED',
    exit: 2,
    where: 'contract gate (block)',
    when: "The turn's contract is DISPATCHED, a captured IN_PROGRESS, or only a draft: it was never finalized.",
    path: '""',
    repair: 'Set a closing agent_state last and run handoff contract finalize --draft-id <contract_id>.',
  },
  {
    code: 'APPROVER_KEYS_UNREADABLE',
    exit: 1,
    where: 'contract gate (a block under --on-store-error block; else exit 1, stop not gated)',
    when: "The turn's contract cites an approval in force and HANDOFF_APPROVER_KEYS names a file the gate cannot use: missing, unreadable, empty or not PEM public keys. The gate cannot decide; under --on-store-error block the stop is blocked (counted by the breaker), by default the stop is not gated.",
    path: '""',
    repair:
      "Fix the hook's HANDOFF_APPROVER_KEYS: a readable PEM file of the trusted approvers' ECDSA P-256 or Ed25519 public keys.",
  },
  {
    code: 'GATE_BUDGET_EXCEEDED',
    exit: 2,
    where: 'contract gate (block)',
    when: "The gate's time budget (--timeout, default 20 s) ran out after the turn's contract was found and before its verdict: the store did not answer in time. The block is counted by the breaker (in <root>/gate/) and never excused, whatever --on-store-error says.",
    path: '""',
    repair:
      'Check the store (HANDOFF_STORE_URL, its server); once it answers, the next stop is judged as usual. Raise --timeout only below the hook timeout of the harness.',
  },
  {
    code: 'CONTRACT_REJECTION_LIMIT',
    exit: 0,
    where: 'contract gate --json (codes, on a trip)',
    when: 'The rejection circuit breaker tripped or is tripped: the stop is let through, the turn is reported DEGRADED and NOT complete.',
    repair:
      'Read the turn with handoff contract list --contract-id <id>; repair or re-dispatch it. An accepted stop resets the counter.',
  },
  {
    code: 'DATA_ROOT_NOT_FOUND',
    exit: 4,
    where: 'contract gate (exit 1, stop not gated; a block under --on-store-error block)',
    when: 'The data root the gate looks in does not exist. The gate never creates a data root or a store, so it cannot judge the stop; the line names the root it looked in.',
    repair:
      'Point the hook at the data root the contracts live in (HANDOFF_HOME=<root> in the hook command), or dispatch a contract first.',
  },
  {
    code: 'HOOK_CONFIG_INVALID',
    exit: 2,
    where: 'hooks install, hooks uninstall',
    when: "The harness's config file is not valid JSON, not a JSON object, has comments (JSONC, which a rewrite would lose), or cannot be read. Nothing is written.",
    repair: 'Repair the file, or add the hook by hand as docs/hooks.md shows, then run the command again.',
  },
  {
    code: 'HOOK_PATH_UNSTABLE',
    exit: 2,
    where: 'hooks install',
    when: 'handoff runs from the npx cache, which npm may delete at any time; a hook must not point there. Nothing is written.',
    repair:
      'Install handoff for good (npm install -g handoff, or as a dev dependency of the project) and run hooks install from there.',
  },
  {
    code: 'HOOK_NOT_INSTALLED',
    exit: 1,
    where: 'hooks test',
    when: 'The harness config holds no stop gate hook at that scope, so there is no installed command to run. Nothing is run.',
    repair: 'Run hooks install --harness <harness> (with the same --scope) first.',
  },
  {
    code: 'HOOK_TRUST_FAILED',
    exit: 1,
    where: 'hooks install --harness codex',
    when: "Codex did not take the trust hooks install wrote to its config.toml for the gate's hooks (it reports them untrusted or modified, or cannot read the file afterwards). config.toml is put back byte for byte; the hooks file stays written.",
    repair:
      'Run hooks install --harness codex --no-trust and trust the hook in Codex (/hooks), or repair config.toml and run hooks install again.',
  },
  {
    code: 'HOOK_INPUT_INVALID',
    exit: 1,
    where: 'contract gate, approval gate',
    when: 'The hook JSON on stdin is missing (and no --draft-id), not JSON, not an object, or names an unknown hook_event_name (approval gate: a pre-tool input without its tool name or command). The stop (or the tool call) is not gated.',
    repair:
      'Run the gate from a Claude Code Stop or SubagentStop hook, or pass --draft-id ID; run approval gate from a pre-tool hook (hooks install --approvals).',
  },
  {
    code: 'HOOK_INPUT_TIMEOUT',
    exit: 1,
    where: 'contract gate (exit 1, stop not gated; a block under --on-store-error block)',
    when: "The hook input on stdin did not end within the gate's budget (--timeout, default 20 s): its writer never closed it. The gate answers at the budget, as when the store does not answer.",
    repair:
      "Check that the harness (or the script that runs the gate) closes the hook command's stdin after writing the input; pass --draft-id ID and no stdin to gate one draft by hand.",
  },
  {
    code: 'HOOK_INPUT_TOO_LARGE',
    exit: 1,
    where: 'contract gate',
    when: "The hook input on stdin is over 64 MiB (67108864 bytes); the rest is never read. A harness's stop input is a few kilobytes. The stop is not gated, as with HOOK_INPUT_INVALID.",
    repair: "Pipe the harness's own hook input to the gate, not a file or a stream of another kind.",
  },
] as const satisfies readonly CodeEntry[];
