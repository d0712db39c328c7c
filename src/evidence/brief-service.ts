/** Briefs with acceptance criteria: add (or extend), list, show. Flags are checked by the caller. */
import { HandoffError, jsonQuote } from '../errors.js';
import type { Env } from '../paths.js';
import type { AcRow, BriefRow, BriefSummary } from '../store/briefs.js';
import type { Store, StoreReads, StoreTx } from '../store/store.js';
import type { AcSpec } from './flags.js';
import { refusedAs, withReader, withWriter } from './store-access.js';

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
 * BRIEF_NOT_FOUND (exit 3), naming the workspaces where a brief of that name exists (the
 * workspace used to follow the current directory, so "no brief" usually means "not in this workspace"), with a
 * "did you mean" hint when a brief here differs only by case.
 */
export async function briefNotFoundIn(workspace: string, name: string, db?: StoreReads): Promise<HandoffError> {
  const near = db ? await db.findBriefIgnoringCase(workspace, name) : undefined;
  const workspaces = db ? await db.workspacesWithBrief(name) : [];
  return briefNotFoundError(workspace, name, near, workspaces);
}

/** BRIEF_NOT_FOUND from the hints read beforehand (any store): a same-name-ignoring-case brief, the workspaces having it. */
export function briefNotFoundError(
  workspace: string,
  name: string,
  near: BriefRow | undefined,
  workspaces: string[],
): HandoffError {
  const elsewhere =
    workspaces.length > 0
      ? `, but a brief of that name exists in workspace ${workspaces.map((w) => jsonQuote(w)).join(', ')}`
      : '';
  const hint = near
    ? `did you mean ${jsonQuote(near.name)}? (lookups are exact)`
    : workspaces.length > 0
      ? `pass --workspace ${workspaces[0]} (or run from that project)`
      : 'see handoff brief list, or create it with handoff brief add';
  return new HandoffError(
    'BRIEF_NOT_FOUND',
    `no brief ${jsonQuote(name)} in workspace ${jsonQuote(workspace)}${elsewhere};`,
    { brief: name, workspace, workspaces },
    hint,
  );
}

/** Looks a brief up exactly, or throws BRIEF_NOT_FOUND. */
export async function requireBrief(db: StoreReads, workspace: string, name: string): Promise<BriefRow> {
  const brief = await db.findBrief(workspace, name);
  if (brief === undefined) throw await briefNotFoundIn(workspace, name, db);
  return brief;
}

/** A promise that rejects with the error `make` resolves to (for the `absent` callbacks, which are synchronous). */
export const rejectWith = <T>(make: Promise<HandoffError>): Promise<T> => make.then((e) => Promise.reject(e));

export async function addBrief(env: Env, cwd: string, input: BriefAddInput): Promise<BriefAddResult> {
  const absent = (): Promise<BriefAddResult> => rejectWith(briefNotFoundIn(input.workspace, input.name));
  return withWriter(env, cwd, !input.extend, (store) => addIn(store, input), absent);
}

async function addIn(store: Store, input: BriefAddInput): Promise<BriefAddResult> {
  try {
    return await store.tx((t) => (input.extend ? extend(t, input) : create(t, input)));
  } catch (e) {
    // Two creators racing on PostgreSQL: the unique index refuses the second insert; report it as the existing brief.
    if (!input.extend) {
      const existing = await store.findBriefIgnoringCase(input.workspace, input.name).catch(() => undefined);
      if (existing !== undefined) throw briefExists(input, existing);
    }
    throw await refusedAs(e, store.location, `the brief ${jsonQuote(input.name)}`);
  }
}

function briefExists(input: BriefAddInput, existing: BriefRow): HandoffError {
  const same = existing.name === input.name ? '' : ` (as ${jsonQuote(existing.name)}; names are unique ignoring case)`;
  return new HandoffError(
    'BRIEF_EXISTS',
    `brief ${jsonQuote(input.name)} already exists in workspace ${jsonQuote(input.workspace)}${same}; nothing was written.`,
    { brief_id: existing.id },
    `Add criteria with: handoff brief add ${existing.name} --extend --ac ID=TEXT`,
  );
}

async function create(t: StoreTx, input: BriefAddInput): Promise<BriefAddResult> {
  const existing = await t.findBriefIgnoringCase(input.workspace, input.name);
  if (existing !== undefined) throw briefExists(input, existing);
  const brief = await t.insertBrief(input);
  const acs = await t.appendAcs(brief.id, input.acs);
  return { created: true, brief, acceptance_criteria: acs, added: acs.map((a) => a.ac_id) };
}

async function extend(t: StoreTx, input: BriefAddInput): Promise<BriefAddResult> {
  const brief = await t.findBrief(input.workspace, input.name);
  if (brief === undefined) throw await briefNotFoundIn(input.workspace, input.name, t);
  const have = await t.listAcs(brief.id);
  const clashes = input.acs.filter((a) => have.some((h) => h.ac_id.toLowerCase() === a.ac_id.toLowerCase()));
  if (clashes.length > 0) {
    throw new HandoffError(
      'AC_EXISTS',
      `brief ${jsonQuote(brief.name)} already declares ${clashes.map((c) => jsonQuote(c.ac_id)).join(', ')} (ac ids are unique ignoring case); nothing was written.`,
      { ac_ids: clashes.map((c) => c.ac_id) },
    );
  }
  const added = await t.appendAcs(brief.id, input.acs);
  return { created: false, brief, acceptance_criteria: [...have, ...added], added: added.map((a) => a.ac_id) };
}

export const listBriefsOf = (env: Env, cwd: string, workspace: string): Promise<BriefSummary[]> =>
  withReader(
    env,
    cwd,
    (s) => s.listBriefs(workspace),
    () => [],
  );

export interface BriefShow {
  brief: BriefRow;
  acceptance_criteria: (AcRow & { evidence_count: number })[];
  undeclared_ac_evidence: { ac_id: string; evidence_count: number }[];
}

export function showBrief(env: Env, cwd: string, workspace: string, name: string): Promise<BriefShow> {
  return withReader(
    env,
    cwd,
    async (s) => {
      const brief = await requireBrief(s, workspace, name);
      const counts = await s.evidenceCountsByAc(brief.id);
      const acs = (await s.listAcs(brief.id)).map((a) => ({ ...a, evidence_count: counts.get(a.ac_id) ?? 0 }));
      const declared = new Set(acs.map((a) => a.ac_id));
      const undeclared = [...counts]
        .filter(([ac]) => !declared.has(ac))
        .map(([ac_id, evidence_count]) => ({ ac_id, evidence_count }));
      return { brief, acceptance_criteria: acs, undeclared_ac_evidence: undeclared };
    },
    () => rejectWith<BriefShow>(briefNotFoundIn(workspace, name)),
  );
}
