import type { CodeEntry } from './types.js';

/**
 * Codes of the draft verbs: `contract init/set/add/fill/view/validate`, shared by
 * every verb that parses flags, ids, JSON arguments and input files. DRAFT_NOT_FOUND, DRAFT_LOCKED and
 * DRAFT_WRITE_FAILED are also raised by finalize and the receipt verbs through the same draft services.
 */
export const draftCodes = [
  {
    code: 'USAGE',
    exit: 2,
    where: 'every verb',
    when: 'Unknown verb or flag, a missing or extra positional argument, `fill` with none or both of --json/--json-file, `validate --file` together with --draft-id/--agent-id.',
    repair: "Read the verb's usage line printed with the message, or run it with --help.",
  },
  {
    code: 'INVALID_DRAFT_ID',
    exit: 2,
    where: 'every verb taking --draft-id (not `validate --file`)',
    when: '--draft-id does not match ^a[0-9a-f]{16,}\\.[0-9a-f]{6,}$ in full (empty, upper case, `/`, `..`, spaces, a trailing newline all fail). Checked before any file access.',
    repair:
      'Copy the draft_id printed by `handoff contract init` or the contract_id printed by the dispatch, verbatim.',
  },
  {
    code: 'INVALID_AGENT_ID',
    exit: 2,
    where: 'every verb taking --agent-id (not `validate --file`)',
    when: '--agent-id does not match ^a[0-9a-f]{16,}$ in full; it is an exact id, never a glob.',
    repair: 'Copy the agent_id printed by `handoff contract init` verbatim.',
  },
  {
    code: 'DRAFT_ID_AGENT_MISMATCH',
    exit: 2,
    where: 'every verb taking both id flags (not `validate --file`)',
    when: "Both --draft-id and --agent-id were given and the draft id's prefix (before the first `.`) is not the agent id.",
    repair: 'Pass only --draft-id, or the --agent-id that prefixes it.',
  },
  {
    code: 'INVALID_FIELD_PATH',
    exit: 2,
    where: 'set, add, view --field',
    when: 'FIELD is empty or has an empty segment (`a..b`, a leading or trailing `.`), or has more than 512 segments (an envelope nests at most 512 levels).',
    repair:
      'Write FIELD as a dotted path of non-empty keys, e.g. evidence_report.commands_run; lists are never indexed.',
  },
  {
    code: 'INVALID_JSON',
    exit: 2,
    where: 'fill, validate --file (and every JSON argument of other verbs); mcp (a JSON-RPC message)',
    when: 'The patch or file is not strict JSON (empty input included); the message carries the parser error. To `handoff mcp`, a message that is not JSON is answered with the JSON-RPC parse error (-32700) and `"id": null`, its data carrying the code; the server goes on serving.',
    repair: 'Fix the JSON (double-quoted keys and strings, no trailing commas, no comments).',
  },
  {
    code: 'PATCH_NOT_OBJECT',
    exit: 2,
    where: 'fill, patch',
    when: 'The patch is valid JSON but not an object (an array, string, number, boolean or null).',
    repair:
      'Wrap the values in an object mirroring the envelope, e.g. {"evidence_report":{"commands_run":["npm test"]}}.',
  },
  {
    code: 'VALUE_NOT_REPRESENTABLE',
    exit: 2,
    where: 'set, add, fill, validate --file',
    when: 'A number in the value overflows to ±Infinity (e.g. 1e400), which JSON cannot store; or (set, add, fill) the VALUE, the patch, or the envelope the write would produce nests deeper than 512 levels, which the store cannot hold.',
    repair: 'Quote the number to keep it as a string; flatten a too-deep value, or store it as a string.',
  },
  {
    code: 'UNREADABLE_INPUT',
    exit: 2,
    where:
      'every file argument: fill --json-file, validate --file, dispatch --goal-file, approval request --content-file, evidence add --artifact-file',
    when: 'The file is missing or cannot be read, or stdin (`-`) cannot be read.',
    repair: 'Check the path and its permissions (the message names the path and the OS error).',
  },
  {
    code: 'INVALID_UTF8',
    exit: 2,
    where:
      'fill/patch --json-file, validate --file, dispatch --goal-file, approval request --content-file; mcp (a message that is not valid UTF-8)',
    when: 'A text input is not valid UTF-8. It is refused, never stored with U+FFFD in place of its bytes; nothing is written. Over MCP the message is answered with a JSON-RPC parse error (-32700) whose data carries the code.',
    repair: "Re-encode the file (or the MCP client's message) as UTF-8.",
  },
  {
    code: 'INPUT_NOT_REGULAR',
    exit: 2,
    where: 'the same file arguments',
    when: 'The path (after following symlinks) is a directory, FIFO, socket or device; it is never read.',
    repair: 'Pass a regular file, or `-` to read stdin where the flag allows it.',
  },
  {
    code: 'AMBIGUOUS_DRAFT',
    exit: 2,
    where: 'set, add, fill, view, validate (and finalize) without --draft-id or --agent-id',
    when: 'The pool of drafts (the live ones, or all when none is live) belongs to two or more agents. The output lists the candidates, newest first.',
    repair: 'Pass --draft-id with one of the listed ids, or --agent-id to narrow to one agent.',
  },
  {
    code: 'AMBIGUOUS_AGENT_DRAFT',
    exit: 2,
    where: 'set, add, fill, view, validate (and finalize) with --agent-id',
    when: 'The agent has two or more live drafts. The output lists them, newest first.',
    repair: 'Pass --draft-id with one of the listed ids; only --draft-id picks one of several live drafts.',
  },
  {
    code: 'DRAFT_NOT_FOUND',
    exit: 3,
    where: 'set, add, fill, view, validate, finalize; evidence add --draft-id',
    when: 'No draft file for the resolved id and no adoption applies (no row, no store, or a closed row for a write target that cannot be continued); `validate` on a dispatched row without a draft file; no drafts at all; `evidence add --draft-id` naming a contract with neither a draft file nor a row.',
    repair:
      'Start a draft with `handoff contract init`, or pass the contract_id printed by the dispatch; for a dispatched row, `view` or the first write materializes the draft.',
  },
  {
    code: 'DRAFT_UNREADABLE',
    exit: 3,
    where: 'set, add, fill, view, validate, finalize',
    when: 'The draft file exists but cannot be read (a dangling symlink or a link to a directory included), is not valid JSON, is not a JSON object, or nests deeper than 512 levels. It is never adopted over, overwritten or re-initialised. Also the draft\'s birth record `<id>.meta.json` when it does not hold {"workspace": <safe slug>} (finalize, evidence run, contract verify).',
    repair:
      'Remove or repair the named file (a removed .meta.json makes the draft follow the current workspace again), or start another draft with `handoff contract init`.',
  },
  {
    code: 'WORKSPACE_MISMATCH',
    exit: 2,
    where: 'contract finalize, evidence run, contract verify',
    when: 'The draft records the workspace it was born in (drafts/<id>.meta.json, written by init and dispatch) and an explicit --workspace names another one. Nothing is written or run. $HANDOFF_WORKSPACE and the current directory never cause it: the recorded workspace simply wins.',
    repair:
      'Drop --workspace (the draft keeps its workspace whatever the current directory), or pass the recorded one.',
  },
  {
    code: 'FIELD_NOT_FOUND',
    exit: 3,
    where: 'view --field',
    when: 'A key of the path is missing, or a non-object (a list included) is on the way; the message names the missing segment and the walked path.',
    repair: 'Run `handoff contract view` to see the envelope; lists are shown whole, never indexed.',
  },
  {
    code: 'ROW_ENVELOPE_UNREADABLE',
    exit: 3,
    where: 'view',
    when: 'The id has no draft file, its row is closed, and the stored envelope of the row is not a JSON object.',
    repair:
      'Inspect the row with `handoff contract list --contract-id ID --with-envelope`; write to the contract to open a continuation.',
  },
  {
    code: 'FILL_LIST_COLLISION',
    exit: 1,
    where: 'fill',
    when: 'The patch would change a populated list of the draft (a different, longer, empty or null list, a scalar, or the list removed by replacing an ancestor). The fill is refused whole; every colliding path is listed with its existing and incoming counts.',
    path: 'collisions[].path',
    repair:
      'Extend a populated list with `handoff contract add`; replace or clear it with `handoff contract set`; re-sending the stored list unchanged is fine.',
  },
  {
    code: 'PATCH_FORBIDDEN',
    exit: 1,
    where: 'patch',
    when: 'The merge patch would remove or change agent_status.agent_id (directly, or by removing or replacing agent_status), change or remove a key only the tool writes (_contract_tag, backstop, ...), replace the whole envelope, or contains a `__proto__`, `constructor` or `prototype` key at any depth. Nothing is written.',
    path: 'path (the offending key path)',
    repair:
      'Leave agent_status.agent_id and the system keys out of the patch; to remove a block you wrote, send {"block": null}.',
  },
  {
    code: 'NOT_A_LIST',
    exit: 1,
    where: 'add',
    when: 'The value at FIELD exists and is neither a list nor null.',
    repair: 'Use `handoff contract set` to replace the value, or `add` to a list field.',
  },
  {
    code: 'ADD_LIST_VALUE',
    exit: 1,
    where: 'add',
    when: 'VALUE is a JSON array: `add` appends one entry, so it would nest the whole array in the list. Nothing is written. (NOT_A_LIST comes first when the target is not a list.)',
    repair:
      "Pass --each to append each element as its own entry, in order (wrap it, --each '[[...]]', to append an array as one entry), or use `set` to replace the whole list.",
  },
  {
    code: 'PATH_NOT_OBJECT',
    exit: 1,
    where: 'set, add',
    when: 'An intermediate segment of FIELD holds an array or a scalar; paths walk objects only and never index lists.',
    repair: 'Use `set` on the whole list, or `add` to append to it.',
  },
  {
    code: 'DRAFT_EXISTS',
    exit: 1,
    where: 'init',
    when: 'A file (readable or not) already exists for the --draft-id given to init.',
    repair:
      'Continue the draft with --draft-id on set/add/fill, or run `handoff contract init` without --draft-id for a new one.',
  },
  {
    code: 'DRAFT_LOCKED',
    exit: 4,
    where: 'init, set, add, fill, view (adoption), finalize, evidence run, contract verify',
    when: "The per-draft lock stayed with one other writer for 15 s of the wait (a lock that keeps changing hands, a queue of writers that moves, is waited for up to 120 s in all); the message names the holder's pid. Nothing was written.",
    repair:
      'Retry once the other writer is done. A lock whose process died, or older than 120 s, is broken automatically.',
  },
  {
    code: 'DRAFT_WRITE_FAILED',
    exit: 4,
    where: 'init, set, add, fill, view (adoption)',
    when: 'The atomic save of the draft (or creating its lock) failed: disk full, permissions, a read-only filesystem. The previous draft is intact and the temp file removed.',
    repair: 'Fix the condition named in the message (free space, permissions of the data root) and run the verb again.',
  },
  {
    code: 'ENVELOPE_TOO_LARGE',
    exit: 2,
    where: 'set, add, fill (and the draft append of evidence run / contract verify); approval request',
    when: 'The envelope after the write, as the row stores it (compact JSON), is larger than HANDOFF_MAX_ENVELOPE_BYTES (default 1 MiB), checked under the lock after the change and before validation; or a JSON input (--json, --json-file, stdin) is larger than that limit, refused from its size before parsing; or approval content, measured as its JSON-escaped text in UTF-8 bytes, is over half that limit (so the envelope that cites it still fits). Nothing is written.',
    repair:
      'Keep long outputs out of the envelope: deposit them with `handoff evidence add` and cite them; or raise HANDOFF_MAX_ENVELOPE_BYTES.',
  },
  {
    code: 'DATA_ROOT_UNSAFE',
    exit: 4,
    where:
      'every verb that uses drafts/, evidence/, tmp/ or gate/ under the data root, or the default store file (the gate: exit 1 unless --on-store-error block)',
    when: "One of the data root's own folders (drafts/, evidence/, tmp/, gate/) is a symlink or not a folder, or the default store file <root>/handoff.db (or its -wal/-shm) is a symlink (an explicit HANDOFF_DB may be one). Nothing is written or deleted and no link is followed, so a planted link cannot send writes (or gc deletions, or the store) outside the data root.",
    repair:
      'Replace the link with a real folder or file; to move the data, move the whole root and point HANDOFF_HOME at it (the root itself may be a symlink), or point HANDOFF_DB at the store.',
  },
  {
    code: 'DATA_ROOT_UNUSABLE',
    exit: 4,
    where: 'every verb that creates the data root (the gate: exit 1 unless --on-store-error block)',
    when: 'The data root (or a missing parent of it) cannot be created, e.g. HANDOFF_HOME=/proc/nonexist; folders are created one level at a time, so this fails at once.',
    repair: 'Set HANDOFF_HOME (or XDG_DATA_HOME) to a folder that can be created and written.',
  },
  {
    code: 'INTERNAL',
    exit: 70,
    where: 'every verb',
    when: 'An unexpected exception (a bug). One line; the stack trace only with HANDOFF_DEBUG=1.',
    repair: 'Re-run with HANDOFF_DEBUG=1 and report the stack trace.',
  },
] as const satisfies readonly CodeEntry[];
