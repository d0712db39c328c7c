/**
 * Constructors for the draft verbs' named refusals and errors. Messages are one line;
 * the exit code comes from the one table. Validation rejections are results, not errors (src/render/rejection.ts).
 */
import { HandoffError, jsonQuote } from '../errors.js';

export const draftNotFound = (draftId: string, why?: string): HandoffError =>
  new HandoffError(
    'DRAFT_NOT_FOUND',
    `no draft ${draftId}${why ? ` (${why})` : ''}; start one with \`handoff contract init\`, or pass the contract_id printed by the dispatch`,
    { draft_id: draftId },
  );

export const noDrafts = (agentId?: string): HandoffError =>
  new HandoffError(
    'DRAFT_NOT_FOUND',
    agentId === undefined
      ? 'no draft found; run `handoff contract init`, which prints the ids to pass on every later call'
      : `agent ${agentId} has no draft; run \`handoff contract init --agent-id ${agentId}\`, or pass the contract_id printed by the dispatch`,
    agentId === undefined ? {} : { agent_id: agentId },
  );

export const draftUnreadable = (draftId: string, path: string, problem: string): HandoffError =>
  new HandoffError(
    'DRAFT_UNREADABLE',
    `draft file ${path} ${problem}; it is never overwritten: remove it or start another draft with \`handoff contract init\``,
    { draft_id: draftId, path },
  );

export const draftExists = (draftId: string): HandoffError =>
  new HandoffError(
    'DRAFT_EXISTS',
    `draft ${draftId} already exists; continue it with --draft-id ${draftId}, or run \`handoff contract init\` without --draft-id for a new one`,
    { draft_id: draftId },
  );

export const draftLocked = (draftId: string, holderPid: number | undefined, waitedMs: number): HandoffError =>
  new HandoffError(
    'DRAFT_LOCKED',
    `draft ${draftId} is locked by ${holderPid === undefined ? 'another process' : `pid ${holderPid}`}; gave up after ${Math.round(waitedMs / 1000)} s, nothing was written; try again`,
    { draft_id: draftId, holder_pid: holderPid ?? null },
  );

export const draftWriteFailed = (draftId: string, path: string, e: unknown): HandoffError =>
  new HandoffError('DRAFT_WRITE_FAILED', `cannot write draft ${path}: ${oneLine((e as Error)?.message ?? String(e))}`, {
    draft_id: draftId,
    path,
  });

export const invalidFieldPath = (field: string): HandoffError =>
  new HandoffError(
    'INVALID_FIELD_PATH',
    `FIELD ${jsonQuote(field)} is not a dotted path of non-empty segments (e.g. evidence_report.commands_run)`,
    { field },
  );

/** A FIELD with more segments than an envelope may nest (MAX_JSON_DEPTH): refused before any file access. */
export const fieldPathTooDeep = (field: string, segments: number, max: number): HandoffError =>
  new HandoffError(
    'INVALID_FIELD_PATH',
    `FIELD ${jsonQuote(field)} has ${segments} segments; an envelope nests at most ${max} levels, so a path has at most ${max} segments`,
    { field },
  );

export const fieldNotFound = (field: string, missing: string, walked: string): HandoffError =>
  new HandoffError(
    'FIELD_NOT_FOUND',
    `field ${jsonQuote(field)} not found: no key ${jsonQuote(missing)} under ${walked === '(root)' ? walked : jsonQuote(walked)}`,
    { field, missing, walked },
  );

export const pathNotObject = (draftId: string, walked: string, type: string): HandoffError =>
  new HandoffError(
    'PATH_NOT_OBJECT',
    type === 'array'
      ? `${jsonQuote(walked)} is an array; paths do not index lists: use \`set\` on the whole list, or \`add\` to append`
      : `${jsonQuote(walked)} is a ${type}, not an object, so the path cannot go through it`,
    { draft_id: draftId, path: walked, type },
  );

export const notAList = (draftId: string, path: string, type: string): HandoffError =>
  new HandoffError(
    'NOT_A_LIST',
    `${jsonQuote(path)} holds a ${type}, not a list; \`add\` only extends lists (use \`set\` to replace the value)`,
    { draft_id: draftId, path, type },
  );

export const addListValue = (draftId: string, path: string, length: number): HandoffError =>
  new HandoffError(
    'ADD_LIST_VALUE',
    `VALUE is a JSON array (${length} element${length === 1 ? '' : 's'}); \`add\` appends one entry, so it would nest the whole array in ${jsonQuote(path)}; nothing was written`,
    { draft_id: draftId, path, length },
    "Pass --each to append each element as its own entry, in order (to append an array as one entry, wrap it: --each '[[...]]'), or use `set` to replace the whole list.",
  );

export const rowEnvelopeUnreadable = (draftId: string, handoffId: number): HandoffError =>
  new HandoffError(
    'ROW_ENVELOPE_UNREADABLE',
    `contract ${draftId} has no draft file and the stored envelope of its row (handoff_id ${handoffId}) is not a JSON object`,
    { draft_id: draftId, handoff_id: handoffId },
  );

export const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ');

/**
 * A write whose resulting envelope, as the row stores it (compact JSON), is over the limit, or a
 * JSON input of a write verb larger than the limit (refused from its size, before parsing). Exit 2, nothing written.
 */
export const envelopeTooLarge = (what: string, bytes: number, limit: number): HandoffError =>
  new HandoffError(
    'ENVELOPE_TOO_LARGE',
    `${what} is ${bytes} bytes, over the limit of ${limit} bytes (HANDOFF_MAX_ENVELOPE_BYTES); nothing was written`,
    { bytes, limit },
    'Keep long outputs out of the envelope: deposit them with `handoff evidence add` and cite them.',
  );
