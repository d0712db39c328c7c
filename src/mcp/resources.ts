/**
 * The resources of `handoff mcp`: the published envelope JSON Schema, and one draft's envelope
 * as stored. Reading never writes: a draft id is checked against its pattern before any file access, and the draft
 * is read by the drafts' own reader (DRAFT_NOT_FOUND, DRAFT_UNREADABLE). A failure is a JSON-RPC error whose `data`
 * carries the code.
 */
import { readFileSync } from 'node:fs';
import { readDraft } from '../drafts/files.js';
import { listCandidates } from '../drafts/resolve.js';
import { EXIT, HandoffError, isHandoffError } from '../errors.js';
import { checkDraftId } from '../ids.js';
import type { Env } from '../paths.js';
import { ENVELOPE_SCHEMA_FILE } from './envelope-inputs.js';

export const SCHEMA_URI = 'handoff://schema/envelope';
export const DRAFT_URI_TEMPLATE = 'handoff://drafts/{draft_id}';
const DRAFT_PREFIX = 'handoff://drafts/';
/** resources/list names at most this many drafts, newest first (any other is still read by its URI). */
const LISTED_DRAFTS = 100;

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: DRAFT_URI_TEMPLATE,
    name: 'draft',
    title: 'A handoff draft',
    description: 'The envelope of one draft, exactly as stored (draft_id as printed by contract_init or a dispatch).',
    mimeType: 'application/json',
  },
];

const SCHEMA_RESOURCE = {
  uri: SCHEMA_URI,
  name: 'envelope-schema',
  title: 'The handoff envelope JSON Schema',
  description: 'The structure of a handoff envelope (JSON Schema 2020-12): closed levels, keys, declared types.',
  mimeType: 'application/schema+json',
};

export function listResources(env: Env, cwd: string): Record<string, unknown>[] {
  const drafts = listCandidates(env, cwd)
    .slice(0, LISTED_DRAFTS)
    .map((c) => ({
      uri: `${DRAFT_PREFIX}${c.draftId}`,
      name: c.draftId,
      title: `draft ${c.draftId}`,
      mimeType: 'application/json',
    }));
  return [SCHEMA_RESOURCE, ...drafts];
}

export function readResource(uri: string, env: Env, cwd: string): { uri: string; mimeType: string; text: string } {
  try {
    if (uri === SCHEMA_URI)
      return { uri, mimeType: SCHEMA_RESOURCE.mimeType, text: readFileSync(ENVELOPE_SCHEMA_FILE, 'utf8') };
    if (!uri.startsWith(DRAFT_PREFIX))
      throw new HandoffError(
        'RESOURCE_NOT_FOUND',
        `no resource ${JSON.stringify(uri)}; the resources are ${SCHEMA_URI} and ${DRAFT_URI_TEMPLATE}`,
      );
    const draftId = uri.slice(DRAFT_PREFIX.length);
    checkDraftId(draftId, 'the draft id of the URI');
    const read = readDraft(env, draftId, cwd);
    if (read.state === 'missing') {
      throw new HandoffError(
        'DRAFT_NOT_FOUND',
        `no draft ${draftId} in this data root; contract_view materializes a dispatched one`,
        { draft_id: draftId },
      );
    }
    return { uri, mimeType: 'application/json', text: read.text };
  } catch (e) {
    throw rpcError(e);
  }
}

/** JSON-RPC: -32002 resource not found (the not-found codes), -32602 invalid params (usage codes), -32603 otherwise. */
function rpcError(e: unknown): Error {
  if (!isHandoffError(e))
    return Object.assign(new Error(`internal error: ${(e as Error)?.message ?? String(e)}`), {
      code: -32603,
      data: { code: 'INTERNAL' },
    });
  const rpc = e.exit === EXIT.NOT_FOUND ? -32002 : e.exit === EXIT.USAGE ? -32602 : -32603;
  return Object.assign(new Error(`${e.message} [${e.code}]`), { code: rpc, data: { code: e.code, ...e.data } });
}
