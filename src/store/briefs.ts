/**
 * Briefs and acceptance criteria: their rows, and the writes on a SQLite connection synchronously (the shared
 * statements of queries/briefs.ts) for the tests of a `Db`.
 */
import type { NewBrief } from './concerns.js';
import type { Db } from './db.js';
import { briefWrites } from './queries/briefs.js';
import { onSqlite } from './sqlite-dialect.js';

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

export const insertBrief = (db: Db, b: NewBrief): BriefRow => onSqlite(db, briefWrites.insertBrief(b));

/** Appends ACs after the brief's last position; returns them as stored. */
export const appendAcs = (db: Db, briefId: number, acs: { ac_id: string; description: string }[]): AcRow[] =>
  onSqlite(db, briefWrites.appendAcs(briefId, acs));
