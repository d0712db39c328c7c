import type { CodeEntry } from './types.js';

/**
 * Codes of the store and finalize that are not validator, draft, evidence or receipt codes: the store
 * codes, finalize's single refusals, the update_contracts shape checks, chain lookups and approvals.
 * (DRAFT_NOT_FOUND is a draft code; EVIDENCE_* are evidence codes; RECEIPT_* are receipt codes.)
 */
export const storeCodes = [
  {
    code: 'STORE_UNREADABLE',
    exit: 4,
    where: 'every verb that reads or writes the store (probes too)',
    when: 'The DB file cannot be opened, read or written: it is corrupt, not a SQLite file, or access is denied.',
    repair:
      'Check the path and permissions named in the message; move a damaged file aside (a writer then creates a new store).',
  },
  {
    code: 'STORE_WRITE_FAILED',
    exit: 4,
    where:
      'every verb that writes the store; a read when SQLite cannot make room for its -shm file and a -wal file holds writes',
    when: 'The device holding the store is full (or over quota): the write was rolled back and nothing was written. A read on a full disk still works when no -wal file holds pending writes; a draft write still saves the draft and skips its mirror (the next write or finalize mirrors it).',
    repair: 'Free space on the device named by the message (or raise the quota), then retry.',
  },
  {
    code: 'STORE_FOREIGN_DB',
    exit: 4,
    where: 'every verb that opens the store',
    when: 'The DB file is a SQLite database of another application: a non-zero application_id other than "hand", or tables but no handoff schema.',
    repair: 'Point $HANDOFF_DB at a handoff store, or unset it to use <root>/handoff.db.',
  },
  {
    code: 'STORE_BUSY',
    exit: 4,
    where: 'every verb that writes the store',
    when: 'The write lock was not obtained within the busy timeout (5 s) on each of 3 attempts; on PostgreSQL a lock wait past lock_timeout (5 s, or half of HANDOFF_STORE_TIMEOUT_MS when that is shorter), a deadlock or a serialization failure, or a server or pooler that stayed full ("too many clients", a full pool) while its new connections were retried with backoff for HANDOFF_STORE_TIMEOUT_MS.',
    repair: 'Another process holds the store; retry in a moment.',
  },
  {
    code: 'STORE_UNREACHABLE',
    exit: 4,
    where:
      'every verb that opens the store, with HANDOFF_STORE_URL set (the stop gate: a store condition; also its budget running out before the contract was found)',
    when: 'The PostgreSQL server named by HANDOFF_STORE_URL refused the connection, or did not answer a connect or a statement within HANDOFF_STORE_TIMEOUT_MS (default 10 s; inside a transaction the server also cancels a statement past it), or dropped the connection during a call. A COMMIT that got no answer has an unknown outcome: `"outcome": "unknown"` (dispatch then keeps its draft and names its `contract_id`). The message names the URL with its password redacted.',
    repair:
      'Check that the server runs and that HANDOFF_STORE_URL names its host, port and database; unset it to use the SQLite file. After an unknown outcome, finalize the contract as usual: it converges whether the row was written or not.',
  },
  {
    code: 'STORE_SCHEMA_TOO_NEW',
    exit: 4,
    where: 'every verb that opens the store',
    when: 'The store was migrated by a newer handoff: its schema version is above the highest migration of this build. The file is left untouched.',
    repair: 'Upgrade handoff to the version that wrote the store.',
  },
  {
    code: 'STORE_MIGRATION_MISMATCH',
    exit: 4,
    where: 'every verb that opens the store read-write',
    when: 'A migration recorded in schema_version is missing from this build or its file no longer has the recorded sha256. Nothing is applied.',
    repair: 'Use the handoff build that created the store; released migration files are never edited.',
  },
  {
    code: 'STORE_MIGRATION_FAILED',
    exit: 4,
    where: 'every verb that opens the store read-write',
    when: 'A pending migration failed (SQL error or foreign key violation) and was rolled back; the message names the file and the SQLite error.',
    repair:
      'Report the message; the store stays at its previous version and is still usable by the build that wrote it.',
  },
  {
    code: 'STORE_NEEDS_MIGRATION',
    exit: 4,
    where:
      'read verbs on a read-only data root or store file (list, chain, brief, evidence, approval list, the probes)',
    when: 'The store cannot be written here, so it is read as it is without migrating, and its older schema lacks a table or column the verb needs.',
    repair: 'Run any writing verb once where the store is writable (it migrates the store), then read it here again.',
  },
  {
    code: 'STORE_WRITE_REFUSED',
    exit: 4,
    where: 'contract finalize; on PostgreSQL also brief add, evidence add, evidence run',
    when: 'SQLite refused the finalize write (a CHECK, trigger or foreign-key constraint the earlier checks did not foresee, e.g. an envelope nested deeper than json_valid() accepts, or a trigger added to the store by hand); or PostgreSQL refused data it cannot hold (SQLSTATE class 22, e.g. a NUL character in text). The transaction was rolled back; without a store none is created.',
    repair:
      'Nothing was written; report the message. A store edited by hand (extra triggers) must be restored; an envelope must nest at most 512 levels. PostgreSQL text cannot hold a NUL character: deposit such content without it (an evidence run output holding one is stored as a blob).',
  },
  {
    code: 'STORE_COPY_TARGET_NOT_EMPTY',
    exit: 1,
    where: 'store copy',
    when: 'The PostgreSQL store given with --to already holds rows (or blobs); a copy goes only into an empty database or an empty, migrated store.',
    repair:
      'Nothing was written. Create an empty database for the copy, or keep using the store the target already is.',
  },
  {
    code: 'STORE_COPY_FAILED',
    exit: 4,
    where: 'store copy',
    when: "A blob a row references is missing from the data root or no longer matches the row's sha256, the target refused a row (e.g. a NUL character in text), or the rows read back differ from the source. The copy transaction was rolled back.",
    repair:
      'Nothing was written to the target (it may be left migrated and empty). Restore or fix what the message names (handoff evidence orphans lists missing blobs) and copy again.',
  },
  {
    code: 'CHAIN_TOO_LONG',
    exit: 4,
    where: 'set, add, fill, finalize, chain, evidence run, contract verify',
    when: "A continuation walk would reach a 65th row, or a new link would become a chain's 65th row (64 rows is the legal maximum).",
    repair: 'Start a new contract (handoff contract init or a new dispatch) instead of continuing this one.',
  },
  {
    code: 'CHAIN_BROKEN',
    exit: 4,
    where: 'set, add, fill, finalize, chain, evidence run, contract verify',
    when: 'A continuation walk met the same row twice (a loop), or a link points at a row that does not exist.',
    repair: 'The store was edited by hand; inspect it with handoff contract list and start a new contract.',
  },
  {
    code: 'ROW_NOT_FOUND',
    exit: 3,
    where: 'contract chain, contract wait',
    when: 'No handoff row has the given contract id (or there is no store file).',
    repair: 'Check the id with handoff contract list; a draft that was never finalized or dispatched has no row.',
  },
  {
    code: 'APPROVAL_NOT_FOUND',
    exit: 3,
    where: 'approval decide, approval show',
    when: 'No approval has the given id (or there is no store file).',
    repair: 'List approvals with handoff approval list and pass an id exactly as printed (P- and 32 hex).',
  },
  {
    code: 'APPROVAL_TRANSITION_REFUSED',
    exit: 1,
    where: 'approval decide',
    when: 'The decision is not allowed from the current status: pending → approved/rejected/expired, approved → revoked; rejected, expired and revoked are final, and so is used (set by the finalize of the executing turn, never by decide).',
    repair: 'Request a new approval with handoff approval request when the decision must change.',
  },
  {
    code: 'AGENT_ID_MISMATCH',
    exit: 1,
    where: 'contract finalize',
    when: "The envelope's agent_status.agent_id differs from the draft id's agent prefix.",
    path: 'agent_status.agent_id',
    repair: 'Set agent_status.agent_id to the part of the draft id before the first dot.',
  },
  {
    code: 'CLOSING_STATE_REQUIRED',
    exit: 1,
    where: 'contract finalize',
    when: 'The canonical agent_state is IN_PROGRESS; finalize persists only closing states.',
    path: 'agent_status.agent_state',
    repair:
      'Set agent_status.agent_state to COMPLETE, BLOCKED, NEEDS_INPUT, NEEDS_VERIFICATION or APPROVAL_REQUEST (last, after its dependencies).',
  },
  {
    code: 'PLAN_TASK_CONFLICT',
    exit: 1,
    where: 'contract finalize',
    when: "--plan-task-id differs from the plan task the contract's row (or its chain) is already bound to.",
    repair: 'Drop --plan-task-id or pass the bound value; a binding is set once.',
  },
  {
    code: 'BLIND_VERIFICATION_REQUIRED',
    exit: 1,
    where: 'contract finalize, contract gate (block)',
    when: 'A turn bound to a plan task tries to close COMPLETE; a bound producer cannot verify its own work.',
    path: 'agent_status.agent_state',
    repair:
      'Close NEEDS_VERIFICATION and propose evidence_report.verification.result; a verifier dispatched with --parent-handoff-id <this row> judges it.',
  },
  {
    code: 'UPDATE_CONTRACTS_SHAPE',
    exit: 1,
    where: 'contract finalize',
    when: 'update_contracts is not an array (nor null), or an entry is not an object with a non-blank string contract and an object payload.',
    path: 'update_contracts, update_contracts[i], update_contracts[i].contract, update_contracts[i].payload',
    repair:
      'Write entries as {"contract": "<section>", "payload": {...}}; evidence entries use "contract": "evidence".',
  },
  {
    code: 'SECTION_NOT_WRITABLE',
    exit: 1,
    where: 'contract finalize',
    when: "A non-evidence update_contracts entry names a section outside the dispatch's --can-write list.",
    path: 'update_contracts[i].contract',
    repair:
      'Use one of the sections the dispatch allows (handoff contract list --json shows can_write), or remove the entry.',
  },
] as const satisfies readonly CodeEntry[];
