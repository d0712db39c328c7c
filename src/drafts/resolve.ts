/**
 * Addressing: `--draft-id` as given, else the drafts of `--agent-id`, else the drafts born in the current workspace
 * (never another workspace's: an implicit write must not land in another project's draft); live before spent; the
 * two ambiguity refusals with their candidate lists. The folder is scanned only when no `--draft-id` is given, and
 * the store's spent probe runs only with two or more candidates.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HandoffError } from '../errors.js';
import { agentPrefix, isDraftId } from '../ids.js';
import { draftsDir, type Env } from '../paths.js';
import { noDrafts } from './errors.js';
import { readDraft } from './files.js';
import { inWorkspace, scopeOver, type WorkspaceScope } from './resolve-workspace.js';
import { getOwn, isPlainObject } from './mutate.js';

export interface Candidate {
  draftId: string;
  agentId: string;
  /** mtime in whole milliseconds. */
  mtimeMs: number;
}

export interface Addressing {
  draftId?: string;
  agentId?: string;
}

export interface Resolution {
  draftId: string;
  via: 'draft-id' | 'agent-id' | 'newest';
  /** Only for `via: 'newest'`: the workspace searched and the birth records that could not be read there. */
  implicit?: ImplicitResolution;
}

export interface ImplicitResolution {
  workspace: string;
  /** Drafts whose birth record could not be read (skipped, never guessed at). */
  skipped: number;
}

export type { WorkspaceScope } from './resolve-workspace.js';

/** The spent ids among the given ones (the store's probe; empty without a store). */
export type SpentProbe = (ids: string[]) => Set<string> | Promise<Set<string>>;

/**
 * Draft files `<id>.json` with a valid id (lock and temp files never qualify), newest first by mtime in
 * milliseconds, ties by id descending. A missing folder means no drafts.
 */
export function listCandidates(env: Env, cwd?: string, agentId?: string): Candidate[] {
  const dir = draftsDir(env, cwd);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Candidate[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -5);
    if (!isDraftId(id)) continue;
    const agent = agentPrefix(id);
    if (agentId !== undefined && agent !== agentId) continue;
    try {
      out.push({ draftId: id, agentId: agent, mtimeMs: Math.floor(statSync(join(dir, name)).mtimeMs) });
    } catch {
      // removed between the listing and the stat
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.draftId < b.draftId ? 1 : a.draftId > b.draftId ? -1 : 0));
}

/** A scope that cannot look rows up: a draft without a birth record counts as born in every workspace. */
const WITHOUT_ROWS: WorkspaceScope = { rowWorkspace: () => Promise.resolve(undefined) };

/**
 * resolveDraftId over a store session (or anything that answers spent ids and finds a row by contract id): its spent
 * probe, and its rows for the workspace scope, with `notice` and the --workspace `flag`.
 */
export function resolveInStore(
  env: Env,
  cwd: string | undefined,
  addr: Addressing,
  store: { spent: SpentProbe; row(id: string): Promise<{ workspace: string } | undefined> },
  notice?: (line: string) => void,
  flag?: string,
): Promise<Resolution> {
  return resolveDraftId(env, cwd, addr, (ids) => store.spent(ids), scopeOver(store, notice, flag));
}

/**
 * Resolves the one draft id a verb works on. Throws DRAFT_NOT_FOUND or an ambiguity refusal. Without either id,
 * only drafts born in the current workspace (`scope`) are candidates, and `scope.notice` hears which one was used.
 */
export async function resolveDraftId(
  env: Env,
  cwd: string | undefined,
  addr: Addressing,
  spentProbe: SpentProbe,
  scope: WorkspaceScope = WITHOUT_ROWS,
): Promise<Resolution> {
  if (addr.draftId !== undefined) return { draftId: addr.draftId, via: 'draft-id' };
  if (addr.agentId !== undefined) return pick(env, cwd, addr, listCandidates(env, cwd, addr.agentId), spentProbe);
  const found = await inWorkspace(env, cwd, listCandidates(env, cwd), scope);
  const implicit: ImplicitResolution = { workspace: found.workspace, skipped: found.skipped };
  const resolution = { ...(await pick(env, cwd, addr, found.candidates, spentProbe, found.notFound)), implicit };
  scope.notice?.(resolvedNotice(resolution.draftId, implicit));
  return resolution;
}

/** The `--json` key of an implicit resolution: `{"resolved": "newest_in_workspace"}`, else nothing. */
export const resolvedJson = (r: ImplicitResolution | undefined): { resolved?: 'newest_in_workspace' } =>
  r === undefined ? {} : { resolved: 'newest_in_workspace' };

/** The stderr line of an implicit resolution: which draft, found where. */
export function resolvedNotice(draftId: string, r: ImplicitResolution): string {
  const skipped =
    r.skipped > 0 ? ` (${r.skipped} draft${r.skipped === 1 ? '' : 's'} with an unreadable birth record skipped)` : '';
  return `[RESOLVED] ${draftId}: the newest draft of workspace ${JSON.stringify(r.workspace)}${skipped}; pass --draft-id to pick another`;
}

async function pick(
  env: Env,
  cwd: string | undefined,
  addr: Addressing,
  candidates: Candidate[],
  spentProbe: SpentProbe,
  notFound: () => HandoffError = () => noDrafts(addr.agentId),
): Promise<Resolution> {
  if (candidates.length === 0) throw notFound();
  const via = addr.agentId !== undefined ? 'agent-id' : 'newest';
  if (candidates.length === 1) return { draftId: candidates[0].draftId, via };
  const spent = await spentProbe(candidates.map((c) => c.draftId));
  const live = candidates.filter((c) => !spent.has(c.draftId));
  if (addr.agentId !== undefined) {
    if (live.length === 1) return { draftId: live[0].draftId, via };
    if (live.length >= 2) throw ambiguous('AMBIGUOUS_AGENT_DRAFT', live, env, cwd, addr.agentId);
    return { draftId: candidates[0].draftId, via };
  }
  const pool = live.length > 0 ? live : candidates;
  const agents = new Set(pool.map((c) => c.agentId));
  if (agents.size >= 2) throw ambiguous('AMBIGUOUS_DRAFT', pool, env, cwd);
  return { draftId: pool[0].draftId, via };
}

export interface CandidateView {
  draft_id: string;
  agent_id: string;
  mtime: string;
  agent_state: string | null;
}

/** `agent_status.agent_state` read from the file, or null when unreadable or not a string. */
function stateOf(env: Env, draftId: string, cwd?: string): string | null {
  try {
    const r = readDraft(env, draftId, cwd);
    if (r.state !== 'ok') return null;
    const status = getOwn(r.envelope, 'agent_status');
    const state = isPlainObject(status) ? getOwn(status, 'agent_state') : undefined;
    return typeof state === 'string' ? state : null;
  } catch {
    return null;
  }
}

function ambiguous(
  code: 'AMBIGUOUS_DRAFT' | 'AMBIGUOUS_AGENT_DRAFT',
  listed: Candidate[],
  env: Env,
  cwd: string | undefined,
  agentId?: string,
): HandoffError {
  const candidates: CandidateView[] = listed.map((c) => ({
    draft_id: c.draftId,
    agent_id: c.agentId,
    mtime: new Date(c.mtimeMs).toISOString(),
    agent_state: stateOf(env, c.draftId, cwd),
  }));
  let message: string;
  if (code === 'AMBIGUOUS_DRAFT') {
    const agents = [...new Set(listed.map((c) => c.agentId))];
    const shown = agents.slice(0, 6).join(', ') + (agents.length > 6 ? ', ...' : '');
    message = `${listed.length} drafts of ${agents.length} agents (${shown}) could be meant; pass --draft-id, or --agent-id to narrow`;
  } else {
    message = `agent ${agentId} has ${listed.length} live drafts; only --draft-id picks one`;
  }
  return new HandoffError(code, message, { candidates });
}

/** The human listing under an ambiguity message: up to 5 candidates, then a count of the rest. */
export function candidateLines(candidates: CandidateView[]): string[] {
  const lines = candidates
    .slice(0, 5)
    .map((c) => `  --draft-id ${c.draft_id}  agent=${c.agent_id}  ${c.mtime}  ${c.agent_state ?? '?'}`);
  if (candidates.length > 5) lines.push(`  ... and ${candidates.length - 5} more (newest first)`);
  return lines;
}
