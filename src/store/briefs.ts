/** Briefs and acceptance criteria: their rows (the statements: queries/briefs.ts). */

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
