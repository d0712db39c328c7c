/** Briefs with acceptance criteria (evidence.md §3): add (or extend), list, show. Flags are checked by the caller. */
import { EXIT, HandoffError, jsonQuote } from '../errors.js';
import type { Env } from '../paths.js';
import { guard, writeTx, type Db } from '../store/db.js';
import {
  appendAcs,
  evidenceCountsByAc,
  findBrief,
  findBriefIgnoringCase,
  insertBrief,
  listAcs,
  listBriefs,
  workspacesWithBrief,
  type AcRow,
  type BriefRow,
  type BriefSummary,
} from '../store/briefs.js';
import type { AcSpec } from './flags.js';
import { withReader, withWriter } from './store-access.js';

export interface BriefAddInput {
  workspace: string;
  name: string;
  title: string | null;
  objective: string | null;
  acs: AcSpec[];
  extend: boolean;
}

export interface BriefAddResult {
  created: boolean;
  brief: BriefRow;
  acceptance_criteria: AcRow[];
  added: string[];
}

/**
 * BRIEF_NOT_FOUND (exit 3), naming the workspaces where a brief of that name exists (amendments-2.md §E2: the
 * workspace used to follow the current directory, so "no brief" usually means "not in this workspace"), with a
 * "did you mean" hint when a brief here differs only by case.
 */
export function briefNotFound(workspace: string, name: string, db?: Db): HandoffError {
  const near = db ? guard(db, () => findBriefIgnoringCase(db, workspace, name)) : undefined;
  const workspaces = db ? guard(db, () => workspacesWithBrief(db, name)) : [];
  return briefNotFoundError(workspace, name, near, workspaces);
}

/** BRIEF_NOT_FOUND from the hints read beforehand (any store): a same-name-ignoring-case brief, the workspaces having it. */
export function briefNotFoundError(workspace: string, name: string, near: BriefRow | undefined, workspaces: string[]): HandoffError {
  const elsewhere =
    workspaces.length > 0 ? `, but a brief of that name exists in workspace ${workspaces.map((w) => jsonQuote(w)).join(', ')}` : '';
  const hint = near
    ? `did you mean ${jsonQuote(near.name)}? (lookups are exact)`
    : workspaces.length > 0
      ? `pass --workspace ${workspaces[0]} (or run from that project)`
      : 'see handoff brief list, or create it with handoff brief add';
  return new HandoffError(
    'BRIEF_NOT_FOUND',
    EXIT.NOT_FOUND,
    `no brief ${jsonQuote(name)} in workspace ${jsonQuote(workspace)}${elsewhere};`,
    { brief: name, workspace, workspaces },
    hint,
  );
}

/** Looks a brief up exactly, or throws BRIEF_NOT_FOUND. */
export function requireBrief(db: Db, workspace: string, name: string): BriefRow {
  const brief = guard(db, () => findBrief(db, workspace, name));
  if (brief === undefined) throw briefNotFound(workspace, name, db);
  return brief;
}

export function addBrief(env: Env, cwd: string, input: BriefAddInput): BriefAddResult {
  const absent = (): BriefAddResult => {
    throw briefNotFound(input.workspace, input.name);
  };
  return withWriter(env, cwd, !input.extend, (db) => writeTx(db, () => (input.extend ? extend(db, input) : create(db, input))), absent);
}

function create(db: Db, input: BriefAddInput): BriefAddResult {
  const existing = findBriefIgnoringCase(db, input.workspace, input.name);
  if (existing !== undefined) {
    const same = existing.name === input.name ? '' : ` (as ${jsonQuote(existing.name)}; names are unique ignoring case)`;
    throw new HandoffError(
      'BRIEF_EXISTS',
      EXIT.REJECTED,
      `brief ${jsonQuote(input.name)} already exists in workspace ${jsonQuote(input.workspace)}${same}; nothing was written.`,
      { brief_id: existing.id },
      `Add criteria with: handoff brief add ${existing.name} --extend --ac ID=TEXT`,
    );
  }
  const brief = insertBrief(db, input);
  const acs = appendAcs(db, brief.id, input.acs);
  return { created: true, brief, acceptance_criteria: acs, added: acs.map((a) => a.ac_id) };
}

function extend(db: Db, input: BriefAddInput): BriefAddResult {
  const brief = findBrief(db, input.workspace, input.name);
  if (brief === undefined) throw briefNotFound(input.workspace, input.name, db);
  const have = listAcs(db, brief.id);
  const clashes = input.acs.filter((a) => have.some((h) => h.ac_id.toLowerCase() === a.ac_id.toLowerCase()));
  if (clashes.length > 0) {
    throw new HandoffError(
      'AC_EXISTS',
      EXIT.REJECTED,
      `brief ${jsonQuote(brief.name)} already declares ${clashes.map((c) => jsonQuote(c.ac_id)).join(', ')} (ac ids are unique ignoring case); nothing was written.`,
      { ac_ids: clashes.map((c) => c.ac_id) },
    );
  }
  const added = appendAcs(db, brief.id, input.acs);
  return { created: false, brief, acceptance_criteria: [...have, ...added], added: added.map((a) => a.ac_id) };
}

export const listBriefsOf = (env: Env, cwd: string, workspace: string): BriefSummary[] =>
  withReader(env, cwd, (db) => listBriefs(db, workspace), () => []);

export interface BriefShow {
  brief: BriefRow;
  acceptance_criteria: (AcRow & { evidence_count: number })[];
  undeclared_ac_evidence: { ac_id: string; evidence_count: number }[];
}

export function showBrief(env: Env, cwd: string, workspace: string, name: string): BriefShow {
  return withReader(
    env,
    cwd,
    (db) => {
      const brief = requireBrief(db, workspace, name);
      const counts = evidenceCountsByAc(db, brief.id);
      const acs = listAcs(db, brief.id).map((a) => ({ ...a, evidence_count: counts.get(a.ac_id) ?? 0 }));
      const declared = new Set(acs.map((a) => a.ac_id));
      const undeclared = [...counts].filter(([ac]) => !declared.has(ac)).map(([ac_id, evidence_count]) => ({ ac_id, evidence_count }));
      return { brief, acceptance_criteria: acs, undeclared_ac_evidence: undeclared };
    },
    () => {
      throw briefNotFound(workspace, name);
    },
  );
}
