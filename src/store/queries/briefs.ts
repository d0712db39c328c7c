/**
 * Briefs and their acceptance criteria, written once for both backends. Names and ac ids: uniqueness ignores case
 * (the dialect's `nocase`), lookups are exact.
 */
import type { AcRow, BriefRow, BriefSummary } from '../briefs.js';
import type { NewBrief } from '../concerns.js';
import { q, type Dialect, type Op } from './op.js';

const BRIEF_COLS = 'id, workspace, name, title, objective, created_at';

const IGNORING_CASE = (d: Dialect): string =>
  `SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = $1 AND ${d.nocase('name')} = ${d.nocase('$2')}`;
const LIST_BRIEFS = (d: Dialect): string =>
  `SELECT b.id, b.name, b.title, b.created_at,
          (SELECT COUNT(*) FROM acceptance_criteria a WHERE a.brief_id = b.id) AS ac_count,
          (SELECT COUNT(*) FROM evidence e WHERE e.brief_id = b.id) AS evidence_count
     FROM briefs b WHERE b.workspace = $1 ORDER BY ${d.nocase('b.name')}, b.name, b.id`;
const LOCK_BRIEF = (d: Dialect): string => `SELECT id FROM briefs WHERE id = $1${d.forUpdate}`;

export const briefReads = {
  /** Exact lookup by (workspace, name). */
  *findBrief(workspace: string, name: string): Op<BriefRow | undefined> {
    const text = `SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = $1 AND name = $2`;
    return (yield* q<BriefRow>(text, [workspace, name])).rows[0];
  },
  /** The brief whose name equals `name` ignoring case (for BRIEF_EXISTS and "did you mean" hints). */
  *findBriefIgnoringCase(workspace: string, name: string): Op<BriefRow | undefined> {
    return (yield* q<BriefRow>(IGNORING_CASE, [workspace, name])).rows[0];
  },
  *findBriefById(id: number): Op<BriefRow | undefined> {
    return (yield* q<BriefRow>(`SELECT ${BRIEF_COLS} FROM briefs WHERE id = $1`, [id])).rows[0];
  },
  *listAcs(briefId: number): Op<AcRow[]> {
    const text =
      'SELECT ac_id, description, position FROM acceptance_criteria WHERE brief_id = $1 ORDER BY position, id';
    return (yield* q<AcRow>(text, [briefId])).rows;
  },
  /** Briefs of a workspace ordered by name (ignoring case, then exact), with their AC and evidence counts. */
  *listBriefs(workspace: string): Op<BriefSummary[]> {
    return (yield* q<BriefSummary>(LIST_BRIEFS, [workspace])).rows;
  },
  /** Evidence rows per ac_id of one brief (exact ac_id). */
  *evidenceCountsByAc(briefId: number): Op<Map<string, number>> {
    const text = 'SELECT ac_id, COUNT(*) AS n FROM evidence WHERE brief_id = $1 GROUP BY ac_id ORDER BY ac_id';
    const { rows } = yield* q<{ ac_id: string; n: number }>(text, [briefId]);
    return new Map(rows.map((r) => [r.ac_id, r.n]));
  },
  /** The workspaces holding a brief of exactly this name, in byte order (to say where a brief is when not here). */
  *workspacesWithBrief(name: string): Op<string[]> {
    const text = 'SELECT workspace FROM briefs WHERE name = $1 GROUP BY workspace ORDER BY workspace';
    return (yield* q<{ workspace: string }>(text, [name])).rows.map((r) => r.workspace);
  },
};

export const briefWrites = {
  *insertBrief(b: NewBrief): Op<BriefRow> {
    const text = `INSERT INTO briefs (workspace, name, title, objective) VALUES ($1, $2, $3, $4) RETURNING ${BRIEF_COLS}`;
    return (yield* q<BriefRow>(text, [b.workspace, b.name, b.title, b.objective])).rows[0];
  },
  /**
   * Appends ACs after the brief's last position and returns them as stored; the brief row is locked first (where
   * writers run side by side), so concurrent appends do not interleave.
   */
  *appendAcs(briefId: number, acs: { ac_id: string; description: string }[]): Op<AcRow[]> {
    yield* q(LOCK_BRIEF, [briefId]);
    const text = 'SELECT COALESCE(MAX(position), 0) AS p FROM acceptance_criteria WHERE brief_id = $1';
    const last = (yield* q<{ p: number }>(text, [briefId])).rows[0].p;
    const out: AcRow[] = [];
    for (const [i, ac] of acs.entries()) {
      const position = last + i + 1;
      yield* q('INSERT INTO acceptance_criteria (brief_id, ac_id, description, position) VALUES ($1, $2, $3, $4)', [
        briefId,
        ac.ac_id,
        ac.description,
        position,
      ]);
      out.push({ ac_id: ac.ac_id, description: ac.description, position });
    }
    return out;
  },
};
