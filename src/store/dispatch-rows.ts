/** The birth row dispatch writes (the statement: queries/handoffs.ts insertBirthRow). */
import type { VerificationPolicy } from './handoff-row.js';

export interface BirthRow {
  contract_id: string;
  agent_id: string;
  workspace: string;
  raw_handoff_json: string;
  kind: string;
  plan_task_id: string | null;
  parent_handoff_id: number | null;
  brief_id: number | null;
  goal: string;
  consolidation: boolean;
  require_receipt: boolean;
  /** Default 'any' (a row born by a caller that names no policy). */
  verification?: VerificationPolicy;
  checks_json?: string | null;
  harness_id: string | null;
  can_write_json: string | null;
  acceptance_json: string | null;
  /** Approval patterns (migration 0008); null = none. */
  require_approval_json?: string | null;
  now: string;
}
