/**
 * `validate`: the full verdict on one envelope, read-only. Never writes, locks, adopts,
 * follows a chain, sanitizes, canonicalizes, or creates the store.
 */
import { HandoffError } from '../errors.js';
import { agentPrefix } from '../ids.js';
import { parseJsonStrict } from '../json.js';
import type { Env } from '../paths.js';
import type { ValidationResult } from '../validator/index.js';
import { draftNotFound } from './errors.js';
import { readDraft } from './files.js';
import { resolveInStore, type Addressing, type ImplicitResolution } from './resolve.js';
import { isClosedRow, isOpenRow, openStoreSession, type HandoffRow } from './store-access.js';

/** Draft mode: the resolved draft as stored; binding = its row's mark when a row exists, else the flag. */
export async function validateDraft(
  env: Env,
  cwd: string | undefined,
  addr: Addressing,
  consolidationFlag: boolean,
  notice?: (line: string) => void,
): Promise<{ draftId: string; verdict: ValidationResult; resolved?: ImplicitResolution }> {
  const store = await openStoreSession(env, cwd);
  try {
    const { draftId, implicit } = await resolveInStore(env, cwd, addr, store, notice);
    const read = readDraft(env, draftId, cwd);
    const row = await store.row(draftId);
    if (read.state === 'missing') {
      if (row === undefined) throw draftNotFound(draftId);
      throw rowWithoutDraft(draftId, row);
    }
    const consolidation = row !== undefined ? Number(row.consolidation) === 1 : consolidationFlag;
    const approvalChain = async (): Promise<string[]> => (row === undefined ? [draftId] : store.chainIds(row));
    const options = {
      consolidation,
      source: 'declaration' as const,
      citingHandoffId: row?.id ?? null,
      citingAgentId: agentPrefix(draftId),
    };
    const verdict = await store.verdict(read.envelope, options, approvalChain);
    return { draftId, verdict, ...(implicit === undefined ? {} : { resolved: implicit }) };
  } finally {
    await store.close();
  }
}

/**
 * A row without a draft file is DRAFT_NOT_FOUND (validate never adopts). What to do next depends on the row:
 * an open row is materialized by `view` or the first write; a closed row is shown read-only by `view`, and a write
 * opens a continuation under a new id instead of recreating this draft.
 */
function rowWithoutDraft(draftId: string, row: HandoffRow): HandoffError {
  const view = `\`handoff contract view --draft-id ${draftId}\``;
  const next = isOpenRow(row)
    ? `${view} or the first write materializes it`
    : isClosedRow(row)
      ? `the contract is closed: ${view} shows its stored envelope read-only, and a write opens a continuation under a new id`
      : `${view} shows its stored envelope read-only`;
  return new HandoffError(
    'DRAFT_NOT_FOUND',
    `contract ${draftId} has a row (${row.agent_state}) but no draft file; ${next}`,
    { draft_id: draftId },
  );
}

/** File mode: any JSON value is judged; binding = the flag only; the cross-check still reads an existing store. */
export async function validateText(
  env: Env,
  cwd: string | undefined,
  text: string,
  what: string,
  consolidation: boolean,
): Promise<ValidationResult> {
  return validateValue(env, cwd, parseJsonStrict(text, what), consolidation);
}

/** File mode on a value that is already parsed (the MCP tool's `envelope`). */
export async function validateValue(
  env: Env,
  cwd: string | undefined,
  value: unknown,
  consolidation: boolean,
): Promise<ValidationResult> {
  const store = await openStoreSession(env, cwd);
  try {
    return await store.verdict(value, { consolidation, source: 'declaration' });
  } finally {
    await store.close();
  }
}
