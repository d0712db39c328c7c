/** Briefs and acceptance criteria. Names and ac ids: uniqueness ignores case, lookups are exact. */
import type { Db } from './db.js';

export interface BriefRow {
  id: number;
  workspace: string;
  name: string;
  title: string | null;
  objective: string | null;
  created_at: string;
}

export interface AcRow {
  ac_id: string;
  description: string;
  position: number;
}

export interface BriefSummary {
  id: number;
  name: string;
  title: string | null;
  ac_count: number;
  evidence_count: number;
  created_at: string;
}

const BRIEF_COLS = 'id, workspace, name, title, objective, created_at';

/** Exact lookup by (workspace, name). */
export const findBrief = (db: Db, workspace: string, name: string): BriefRow | undefined =>
  db.prepare(`SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = ? AND name = ?`).get(workspace, name) as
    BriefRow | undefined;

/** The brief whose name equals `name` ignoring case (for BRIEF_EXISTS and "did you mean" hints). */
export const findBriefIgnoringCase = (db: Db, workspace: string, name: string): BriefRow | undefined =>
  db
    .prepare(`SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = ? AND name = ? COLLATE NOCASE`)
    .get(workspace, name) as BriefRow | undefined;

/** The workspaces holding a brief of exactly this name, in order (to say where a brief is when it is not here). */
export const workspacesWithBrief = (db: Db, name: string): string[] =>
  (
    db.prepare('SELECT DISTINCT workspace FROM briefs WHERE name = ? ORDER BY workspace').all(name) as {
      workspace: string;
    }[]
  ).map((r) => r.workspace);

export const findBriefById = (db: Db, id: number): BriefRow | undefined =>
  db.prepare(`SELECT ${BRIEF_COLS} FROM briefs WHERE id = ?`).get(id) as BriefRow | undefined;

export function insertBrief(
  db: Db,
  b: { workspace: string; name: string; title: string | null; objective: string | null },
): BriefRow {
  return db
    .prepare(`INSERT INTO briefs (workspace, name, title, objective) VALUES (?, ?, ?, ?) RETURNING ${BRIEF_COLS}`)
    .get(b.workspace, b.name, b.title, b.objective) as BriefRow;
}

export const listAcs = (db: Db, briefId: number): AcRow[] =>
  db
    .prepare('SELECT ac_id, description, position FROM acceptance_criteria WHERE brief_id = ? ORDER BY position, id')
    .all(briefId) as AcRow[];

/** Appends ACs after the brief's last position; returns them as stored. */
export function appendAcs(db: Db, briefId: number, acs: { ac_id: string; description: string }[]): AcRow[] {
  const last = db
    .prepare('SELECT COALESCE(MAX(position), 0) AS p FROM acceptance_criteria WHERE brief_id = ?')
    .get(briefId) as {
    p: number;
  };
  const insert = db.prepare(
    'INSERT INTO acceptance_criteria (brief_id, ac_id, description, position) VALUES (?, ?, ?, ?)',
  );
  return acs.map((ac, i) => {
    const position = last.p + i + 1;
    insert.run(briefId, ac.ac_id, ac.description, position);
    return { ac_id: ac.ac_id, description: ac.description, position };
  });
}

/** Briefs of a workspace ordered by name (ignoring case, then exact), with their AC and evidence counts. */
export const listBriefs = (db: Db, workspace: string): BriefSummary[] =>
  db
    .prepare(
      `SELECT b.id, b.name, b.title, b.created_at,
              (SELECT COUNT(*) FROM acceptance_criteria a WHERE a.brief_id = b.id) AS ac_count,
              (SELECT COUNT(*) FROM evidence e WHERE e.brief_id = b.id) AS evidence_count
         FROM briefs b WHERE b.workspace = ? ORDER BY b.name COLLATE NOCASE, b.name, b.id`,
    )
    .all(workspace) as BriefSummary[];

/** Evidence rows per ac_id of one brief (exact ac_id). */
export function evidenceCountsByAc(db: Db, briefId: number): Map<string, number> {
  const rows = db
    .prepare('SELECT ac_id, COUNT(*) AS n FROM evidence WHERE brief_id = ? GROUP BY ac_id ORDER BY ac_id')
    .all(briefId) as { ac_id: string; n: number }[];
  return new Map(rows.map((r) => [r.ac_id, r.n]));
}
