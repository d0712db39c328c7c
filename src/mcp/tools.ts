/**
 * The tools of `handoff mcp`: each one is a verb. A tool whose inputs are what the verb's
 * flags carry runs the verb itself (its oclif parse and its `perform`, through `ToolCall.verb`); a tool that takes
 * typed envelope content (`value`, `patch`, `envelope`) calls the service the verb calls after reading its input
 * (the same lock, validation, codes and store), so nothing is ever guessed at or parsed from text.
 */
import * as z from 'zod/mini';
import type { CommandContext, CommandIO, CommandResult, FlagValues } from '../cli/command.js';
import { checkJsonObject } from '../cli/json-input.js';
import { applyFill } from '../drafts/fill.js';
import { addVerbChange, setField } from '../drafts/mutate.js';
import { applyMergePatch } from '../drafts/patch.js';
import { addressingFrom } from '../drafts/cli-flags.js';
import { validateValue } from '../drafts/validate.js';
import { ROW_STATES } from '../envelope/vocabulary.js';
import { usage } from '../errors.js';
import { EVIDENCE_TYPES } from '../evidence/flags.js';
import { MAX_TIMEOUT_SEC } from '../receipts/options.js';
import { SUBJECT_REJECTED, validationRejection } from '../render/rejection.js';
import { eachNeedsArray, writeAndRender, writeTypedFieldValue } from '../cli/write-verbs.js';
import { APPROVAL_STATUSES } from '../store/approvals.js';
import { declaredFieldPaths, envelopeFragmentSchema } from './envelope-inputs.js';
import { checkTypedJson, described, toArgv, type Args, type ToolInput } from './inputs.js';
import type { PathParams } from './confine.js';
import { runCommand, verifyCommand } from './run.js';

/** What a tool gets for one call. */
export interface ToolCall {
  io: CommandIO;
  /** Runs a verb (`contract:view`) on these CLI arguments: its own parse and perform, in JSON mode. */
  verb(id: string, argv: string[]): Promise<CommandResult>;
  /** A context for a verb's service called with typed input (the flags as oclif would give them). */
  context(id: string, flags: FlagValues, args?: Record<string, string | undefined>): CommandContext;
  /** Child output of `evidence_run`, kept for the result (a bounded tail of each stream). */
  output: { stdout: (chunk: Buffer) => void; stderr: (chunk: Buffer) => void };
  /** Aborted when the client cancels the call (notifications/cancelled). */
  signal: AbortSignal;
}

/** `files`/`dirs` (PathParams): the parameters that name a file the tool reads or a directory it works in, held to the roots. */
export interface ToolSpec extends PathParams {
  name: string;
  title: string;
  description: string;
  input: ToolInput;
  /** `$defs` the published input schema carries (for the envelope fragment's references). */
  defs?: Record<string, unknown>;
  /** The result schemas (schemas/results/, by file name) its structuredContent follows: its outputSchema. */
  output: readonly string[];
  readOnly: boolean;
  run(args: Args, call: ToolCall): Promise<CommandResult>;
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters shared by several tools.

const optionalString = (description: string) => described(z.optional(z.string()), description);
const optionalBoolean = (description: string) => described(z.optional(z.boolean()), description);

const DRAFT_ID = optionalString(
  "The draft (= contract) id printed by contract_init or a dispatch, exactly as the CLI's --draft-id (agent id, a dot, 12 hex). " +
    "Pass it on every call; without it the newest draft born in the server's workspace is used (or the one live draft of agent_id).",
);
const AGENT_ID = optionalString(
  "Pick this agent's one live draft (an exact agent id such as a0123456789abcdef, never a pattern).",
);
const ADDRESSING = { draft_id: DRAFT_ID, agent_id: AGENT_ID };
/** A rejection is short (codes, paths, details) unless asked for the full repair text. */
const EXPLAIN = {
  explain: optionalBoolean(
    'On a rejection, also return the full repair text (envelope template, close rules, order of writes).',
  ),
};
const WORKSPACE = optionalString(
  "Workspace name (default: $HANDOFF_WORKSPACE, else the git top-level folder name of the server's directory).",
);

const FIELD = described(
  z.string(),
  'Dotted path of object keys (lists are never indexed). Declared fields: ' + declaredFieldPaths().join(', ') + '.',
);
const VALUE = described(
  z.unknown(),
  'Any JSON value, stored exactly as given: a string stays a string (no JSON guessing), null stores null. ' +
    'The validator judges its type for the field (see the resource handoff://schema/envelope).',
);

const fragment = envelopeFragmentSchema();
const patchParam = (meaning: string) =>
  described(z.unknown(), { ...fragment.schema, description: `${meaning} Keys you do not name are left as they are.` });

/**
 * Ranges and enums are stated in the published schema but checked by the verbs themselves (the same USAGE message
 * as on the command line), which also keeps zod's checks off the start-up path of every other verb.
 */
const intParam = (min: number, max: number, description: string) =>
  described(z.optional(z.number()), { description, type: 'integer', minimum: min, maximum: max });
const enumParam = (values: readonly string[], description: string) =>
  described(z.optional(z.string()), { description, enum: [...values] });

const LIMIT = intParam(1, 1000, 'At most this many rows (default 20).');

/** A verb whose parameters are its flags: `snake_case` parameter = `--kebab-case` flag. */
const viaVerb =
  (id: string) =>
  (args: Args, call: ToolCall): Promise<CommandResult> =>
    call.verb(id, toArgv(args));

const addressingFlags = (args: Args): FlagValues => ({
  'draft-id': args.draft_id as string | undefined,
  'agent-id': args.agent_id as string | undefined,
  explain: args.explain === true,
});

/** set / add: the typed VALUE through the same write pipeline as the verb. */
const fieldWrite =
  (id: string, change: typeof setField) =>
  (args: Args, call: ToolCall): Promise<CommandResult> =>
    writeTypedFieldValue(
      call.context(id, addressingFlags(args), { FIELD: args.field as string }),
      change,
      args.value,
      (v) => checkTypedJson(v, 'value'),
    );

/** fill / patch: the typed patch object, checked as the verb checks its parsed --json, through the same pipeline. */
const patchWrite =
  (id: string, apply: typeof applyFill) =>
  (args: Args, call: ToolCall): Promise<CommandResult> => {
    const ctx = call.context(id, addressingFlags(args));
    const addressing = addressingFrom(ctx.flags);
    const patch = checkJsonObject(args.patch, 'patch');
    checkTypedJson(patch, 'the patch');
    return writeAndRender(ctx, addressing, (base, draftId) => apply(base, patch, draftId));
  };

// ---------------------------------------------------------------------------------------------------------------

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'contract_init',
    title: 'Start a handoff draft',
    description:
      'Start a new handoff envelope (a draft) and get its ids. Call it first in a turn, unless a dispatch already gave you a ' +
      'contract_id. Pass the returned draft_id to every later tool; agent_status.agent_id already holds the agent_id. ' +
      'Then build the envelope in small validated writes (contract_set, contract_add, contract_fill) and close it with ' +
      'contract_finalize. An existing draft_id is refused (DRAFT_EXISTS). Never touches the store.',
    input: z.strictObject({
      agent_id: optionalString('Reuse this agent id instead of minting one.'),
      draft_id: optionalString('Create the draft under this exact id (it must not exist yet).'),
    }),
    output: ['contract-init', 'error'],
    readOnly: false,
    run: viaVerb('contract:init'),
  },
  {
    name: 'contract_set',
    title: 'Set one field of the draft',
    description:
      'Set one field of the draft to a JSON value, replacing what is there; this is also how a list is replaced or cleared ' +
      '(value []). The whole envelope is validated after the change: a rejected write stores nothing and the result ' +
      '(isError) lists each error as code, path and detail, the full repair text with explain: true (an unknown key is UNKNOWN_FIELD with the ' +
      'nearest declared name). A value is canonicalized where the contract says so (work_phase "Executing" -> "executing"). ' +
      'Writing to a contract that was already finalized opens a continuation under a new draft_id (result.continuation): ' +
      'use the new id from then on. Close a turn in this order: fill the verification block, set agent_status.next_action ' +
      'to "done", then set agent_status.agent_state to COMPLETE.',
    input: z.strictObject({ field: FIELD, value: VALUE, ...ADDRESSING, ...EXPLAIN }),
    output: ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
    readOnly: false,
    run: fieldWrite('contract set', setField),
  },
  {
    name: 'contract_add',
    title: 'Append one entry to a list of the draft',
    description:
      'Append one entry to a list field (evidence_report.commands_run, files_checked, key_outputs, open_gaps, ... or ' +
      'agent_status.pending_steps). An absent or null list becomes [value]. An array value is refused (ADD_LIST_VALUE): ' +
      'pass each: true to append each of its elements as its own entry, in order. A field that holds something else is ' +
      'refused (NOT_A_LIST). Validated like contract_set; a rejected write stores nothing.',
    input: z.strictObject({
      field: FIELD,
      value: VALUE,
      each: optionalBoolean("value is an array: append each element as its own entry, in order (the verb's --each)."),
      ...ADDRESSING,
      ...EXPLAIN,
    }),
    output: ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
    readOnly: false,
    run: (args, call) => {
      const each = args.each === true;
      const ctx = call.context('contract add', { ...addressingFlags(args), each }, { FIELD: args.field as string });
      return writeTypedFieldValue(ctx, addVerbChange(each), args.value, (v) => {
        checkTypedJson(v, 'value');
        if (each) eachNeedsArray(v);
      });
    },
  },
  {
    name: 'contract_fill',
    title: 'Merge several fields into the draft',
    description:
      'Merge an envelope fragment into the draft: objects merge key by key, any other value (null included) replaces. ' +
      'A list that already has entries may only be re-sent unchanged (else FILL_LIST_COLLISION and nothing is written): ' +
      'extend it with contract_add, replace or clear it with contract_set, or remove a key with contract_patch. Use it to ' +
      'write several fields at once, e.g. {"evidence_report":{"verification":{"type":"command","command":"npm test","result":"pass"}}}. ' +
      'The result is validated like every write.',
    input: z.strictObject({
      patch: patchParam('The fragment to merge (null stores null).'),
      ...ADDRESSING,
      ...EXPLAIN,
    }),
    defs: fragment.defs,
    output: ['draft-write', 'validation-rejection', 'fill-list-collision', 'ambiguous-draft', 'error'],
    readOnly: false,
    run: patchWrite('contract fill', applyFill),
  },
  {
    name: 'contract_patch',
    title: 'Apply an RFC 7396 merge patch to the draft',
    description:
      'Apply a JSON merge patch (RFC 7396) to the draft: objects merge, arrays replace whole, and null REMOVES the key ' +
      '(contract_fill stores null instead). This is how a block written by mistake is taken out again, e.g. ' +
      '{"approval_request": null}. agent_status.agent_id and the keys only the tool writes cannot be changed or removed ' +
      '(PATCH_FORBIDDEN). Validated like every write; a rejected patch stores nothing.',
    input: z.strictObject({ patch: patchParam('The merge patch (null removes a key).'), ...ADDRESSING, ...EXPLAIN }),
    defs: fragment.defs,
    output: ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
    readOnly: false,
    run: patchWrite('contract patch', applyMergePatch),
  },
  {
    name: 'contract_view',
    title: 'Show the draft',
    description:
      'Show the draft exactly as stored, or one value of it with `field` (objects only are walked; lists are never ' +
      'indexed; a missing key is FIELD_NOT_FOUND). No validation and no chain following. A dispatched contract whose ' +
      'draft file is missing is materialized from its row (adopted: true); a closed contract without a draft shows the ' +
      'stored row read-only (envelope_source "row").',
    input: z.strictObject({ field: optionalString('Show only the value at this dotted path.'), ...ADDRESSING }),
    output: ['contract-view', 'contract-view-field', 'ambiguous-draft', 'error'],
    readOnly: true,
    run: viaVerb('contract:view'),
  },
  {
    name: 'contract_validate',
    title: 'Validate an envelope without writing',
    description:
      'Judge one envelope with the full verdict and write nothing: the draft as stored (by draft_id, agent_id or the ' +
      'newest draft), or any JSON value given as `envelope`. A valid one gives status "ok"; an invalid one is a result ' +
      'with isError, every error as code, path and detail (the full repair text with explain: true). finalize checks more than this verdict: ' +
      'the agent id against the contract, a closing state, blind verification, update_contracts and cited receipts.',
    input: z.strictObject({
      envelope: described(
        z.optional(z.unknown()),
        'Judge this JSON value instead of a draft (any value; a non-object is MISSING_FIELD).',
      ),
      consolidation: optionalBoolean(
        "Judge the turn as marked consolidation work (a draft's row mark wins when it has one).",
      ),
      ...ADDRESSING,
      ...EXPLAIN,
    }),
    output: ['contract-validate', 'validation-rejection', 'ambiguous-draft', 'error'],
    readOnly: true,
    run: async (args, call) => {
      if (args.envelope === undefined)
        return call.verb('contract:validate', toArgv(args, ['draft_id', 'agent_id', 'consolidation', 'explain']));
      if (args.draft_id !== undefined || args.agent_id !== undefined)
        throw usage('envelope cannot be combined with draft_id or agent_id');
      checkTypedJson(args.envelope, 'the envelope');
      const verdict = await validateValue(call.io.env, call.io.cwd, args.envelope, args.consolidation === true);
      if (verdict.ok) return { json: { status: 'ok', source: 'envelope' }, text: 'OK: the envelope is valid.' };
      return validationRejection({
        subject: { source: 'envelope' },
        verdict,
        header: SUBJECT_REJECTED('the envelope'),
        explain: args.explain === true,
      });
    },
  },
  {
    name: 'contract_finalize',
    title: 'Close the turn: persist the draft into the store',
    description:
      'Close the turn: persist the draft, which must be valid and in a closing state (COMPLETE, BLOCKED, NEEDS_INPUT, ' +
      'NEEDS_VERIFICATION, APPROVAL_REQUEST), as a row of the handoff store. Checks, in order: the envelope, the agent id ' +
      'against the contract, the plan-task binding (blind verification), approvals, update_contracts and every cited ' +
      "receipt; a refusal writes nothing and names its code. A dispatched contract's row is updated in place, else a row " +
      'is inserted. Idempotent (finalizing the same envelope again is a no-op); a COMPLETE row is write-once.',
    input: z.strictObject({
      ...ADDRESSING,
      workspace: WORKSPACE,
      plan_task_id: optionalString('Bind an unbound turn to this plan task.'),
      allow_stale: optionalBoolean('Skip RECEIPT_STALE (every other receipt check still runs).'),
      ...EXPLAIN,
    }),
    output: ['contract-finalize', 'finalize-refusal', 'validation-rejection', 'ambiguous-draft', 'error'],
    readOnly: false,
    run: viaVerb('contract:finalize'),
  },
  {
    name: 'contract_list',
    title: 'List handoff rows',
    description:
      'List handoff rows of the store, newest first, filtered by any combination of the parameters (exact matches; ' +
      'since/until compare UTC time prefixes such as 2026-03-01T10:00). cut lists rows whose turn ended without a ' +
      'finalized contract: true for any, or one cut_reason. Reads only; a missing store lists nothing.',
    input: z.strictObject({
      agent_id: optionalString('Only rows of this agent.'),
      state: optionalString(`Only rows in this state: ${ROW_STATES.join(', ')} (case-insensitive).`),
      contract_id: optionalString('Only the row of this contract.'),
      harness_id: optionalString('Only rows claimed by this harness run id.'),
      workspace: optionalString('Only rows of this workspace.'),
      kind: optionalString('Only rows of this dispatch kind.'),
      plan_task_id: optionalString('Only rows bound to this plan task.'),
      parent_handoff_id: intParam(1, Number.MAX_SAFE_INTEGER, 'Only rows whose parent is this handoff id.'),
      cut: described(z.optional(z.union([z.boolean(), z.string()])), {
        description: 'Only cut rows: true for any, or this cut_reason.',
        anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['never_finalized', 'backstop_capture'] }],
      }),
      since: optionalString('Created at or after (YYYY-MM-DD[THH:MM[:SS[.sss]]][Z]).'),
      until: optionalString('Created up to and including this prefix.'),
      limit: LIMIT,
      with_envelope: optionalBoolean("Include each row's stored envelope."),
    }),
    output: ['contract-list', 'error'],
    readOnly: true,
    run: viaVerb('contract:list'),
  },
  {
    name: 'contract_chain',
    title: 'Show a continuation chain',
    description:
      'Show the continuation chain a contract belongs to: every row from the first contract to the live tip, and which ' +
      'contract is live now (live_contract_id). With diff, each step is the RFC 7396 merge patch that turns the previous ' +
      'stored envelope into the next (the first from {}), with the paths whose new value is null listed apart. A contract ' +
      'without a row is ROW_NOT_FOUND.',
    input: z.strictObject({
      contract_id: described(z.string(), 'Any contract id of the chain.'),
      diff: optionalBoolean('Show each step as a merge patch.'),
    }),
    output: ['contract-chain', 'contract-chain-diff', 'error'],
    readOnly: true,
    run: viaVerb('contract:chain'),
  },
  {
    name: 'evidence_add',
    title: 'Deposit evidence for an acceptance criterion',
    description:
      'Deposit evidence for an acceptance criterion of a brief: text (stored inline up to 4096 bytes, else in a hashed ' +
      "blob), or a file the server copies (artifact_file, a path on the server's machine, relative to its directory). " +
      'Returns the evidence row with its sha256 and, for a blob, its path. The brief must exist in the workspace ' +
      '(BRIEF_NOT_FOUND).',
    input: z.strictObject({
      brief: described(z.string(), 'Brief name (a safe slug).'),
      ac: described(z.string(), 'Acceptance criterion id (a safe slug; one the brief declares, if it declares any).'),
      type: described(z.string(), { description: 'The kind of evidence.', enum: [...EVIDENCE_TYPES] }),
      text: optionalString('The evidence as text (non-blank). Give exactly one of text and artifact_file.'),
      artifact_file: optionalString(
        "A regular file to copy (never moved or linked), inside the server's roots: the client's MCP roots, else the server's directory, plus each --allow-path.",
      ),
      task: optionalString('Opaque task id.'),
      created_by: optionalString('Producer label (stored as created_by_agent).'),
      workspace: WORKSPACE,
    }),
    files: ['artifact_file'],
    output: ['evidence-add', 'error'],
    readOnly: false,
    run: viaVerb('evidence:add'),
  },
  {
    name: 'evidence_list',
    title: 'List evidence of a brief',
    description:
      'List the evidence rows of a brief, optionally of one acceptance criterion: type, size, sha256, where the payload ' +
      'is stored, and which contract and agent deposited it. Reads only.',
    input: z.strictObject({
      brief: described(z.string(), 'Brief name (a safe slug).'),
      ac: optionalString('Only this acceptance criterion (exact).'),
      workspace: WORKSPACE,
    }),
    output: ['evidence-list', 'error'],
    readOnly: true,
    run: viaVerb('evidence:list'),
  },
  {
    name: 'approval_request',
    title: 'Request an approval for exact content',
    description:
      'Record a request for a human approval of exact content (a command, a migration, a message); returns approval_id ' +
      'and fingerprint (the sha256 of the content). Then write the same content to approval_request.exact_content and ' +
      'the id to approval_request.approval_id (one contract_fill), set agent_status.agent_state to APPROVAL_REQUEST and ' +
      'finalize; a human decides with `handoff approval decide`. The content is stored immutably, byte for byte.',
    input: z.strictObject({
      content: described(z.string(), 'The exact content to approve (non-blank).'),
      draft_id: optionalString('The requesting contract (sets contract_id and agent_id).'),
      agent_id: optionalString('The requesting agent.'),
      workspace: WORKSPACE,
    }),
    output: ['approval-request', 'error'],
    readOnly: false,
    run: viaVerb('approval:request'),
  },
  {
    name: 'approval_list',
    title: 'List approvals',
    description:
      'List approvals, newest first, filtered by status, requesting agent or contract, and workspace: each with its id, ' +
      'status, exact content, fingerprint, and who decided it when. Reads only; a missing store lists nothing.',
    input: z.strictObject({
      status: enumParam(APPROVAL_STATUSES, 'Only approvals in this status.'),
      agent_id: optionalString('Only approvals requested by this agent.'),
      contract_id: optionalString('Only approvals requested by this contract.'),
      workspace: optionalString('Only approvals of this workspace.'),
      limit: LIMIT,
    }),
    output: ['approval-list', 'error'],
    readOnly: true,
    run: viaVerb('approval:list'),
  },
  {
    name: 'approval_show',
    title: 'Show one approval, with its whole content',
    description:
      'One approval: its whole exact content (raw), fingerprint, status, who decided it and when, and which handoff used ' +
      'it. While it can be cited (pending, or approved for the executing turn) fill_input is the patch that writes the ' +
      "content and the id into approval_request: pass it, parsed, as contract_fill's patch. Reads only.",
    input: z.strictObject({
      approval_id: described(
        z.string(),
        'The approval id (P- and 32 hex), as approval_request or approval_list returned it.',
      ),
    }),
    output: ['approval-show', 'error'],
    readOnly: true,
    // The id is the verb's positional argument; `--` keeps a value that starts with `-` from being read as a flag.
    run: (args, call) => call.verb('approval:show', ['--', args.approval_id as string]),
  },
];

/** `evidence_run`, served only with `handoff mcp --allow-run`: it runs commands with the server's rights. */
export const EVIDENCE_RUN: ToolSpec = {
  name: 'evidence_run',
  title: 'Run a command and record a receipt',
  description:
    'Run a command (an argv array, no shell; or with shell: true one string through /bin/sh -c) with stdin from /dev/null in its own ' +
    "process group, and record an immutable receipt R-... of the contract's live tip: exit code, outcome (exit 0 pass, " +
    'exit 1 fail, anything else unproven), and the sha256 of its stdout and stderr. The command string and a summary ' +
    'line are appended to the draft (evidence_report.commands_run, key_outputs). A failing command is not a tool error: ' +
    'read receipt.outcome. The tail of its output comes back as text. Cite the receipt id in ' +
    'evidence_report.verification.receipt; finalize checks it. It runs with the rights of the server.',
  input: z.strictObject({
    command: described(z.union([z.string(), z.array(z.string())]), {
      description:
        'The command: argv words as an array, e.g. ["npm", "test"] (no shell); or, with shell: true, one shell string, e.g. "npm test 2>&1 | tail -5".',
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: { type: 'string' }, minItems: 1 },
      ],
    }),
    shell: optionalBoolean('Run command, one string, with /bin/sh -c.'),
    ...ADDRESSING,
    brief: optionalString('Also record each non-empty output stream as evidence of this brief (with ac).'),
    ac: optionalString('The acceptance criterion of brief the output is evidence for.'),
    timeout: intParam(1, MAX_TIMEOUT_SEC, "Kill the command's process group after this many seconds (default 600)."),
    cwd: optionalString(
      "Run the command in this existing directory, inside the server's roots (default: the server's directory).",
    ),
    workspace: WORKSPACE,
  }),
  dirs: ['cwd'],
  output: ['evidence-run', 'receipt-append-failed', 'ambiguous-draft', 'error'],
  readOnly: false,
  run: (args, call) => runCommand(args, call),
};

/**
 * `contract_verify`, served only with `handoff mcp --allow-run`: re-runs the draft's verification.command through
 * /bin/sh -c as `handoff contract verify` does, records the receipt and writes verification.receipt and .result.
 */
export const CONTRACT_VERIFY: ToolSpec = {
  name: 'contract_verify',
  title: "Re-run the draft's verification command as a receipt",
  description:
    "Run the draft's evidence_report.verification.command (set it first with contract_fill or contract_set) through " +
    "/bin/sh -c in the server's directory, record a receipt R-... of it, then write verification.receipt (the new id) " +
    'and verification.result (pass only when the command passed) in one validated write. A COMPLETE close of a ' +
    'dispatched turn rests on such a receipt by default. It runs with the rights of the server.',
  input: z.strictObject({
    ...ADDRESSING,
    timeout: intParam(1, MAX_TIMEOUT_SEC, "Kill the command's process group after this many seconds (default 600)."),
    workspace: WORKSPACE,
  }),
  output: ['contract-verify', 'contract-verify-failed', 'receipt-append-failed', 'ambiguous-draft', 'error'],
  readOnly: false,
  run: (args, call) => verifyCommand(args, call),
};
