/**
 * Fixtures for the store/finalize CLI tests: drafts written straight into a HANDOFF_HOME, rows seeded through the
 * store's own opening code (src/store/db.ts), and small readers of the resulting DB.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { closeDb, openWriter, type Db } from '../../src/store/db.js';
import { expect } from 'vitest';
import { run, type RunResult } from './cli.js';

export const mintAgent = (): string => `a${randomBytes(8).toString('hex')}`;
export const mintDraft = (agent = mintAgent()): string => `${agent}.${randomBytes(6).toString('hex')}`;
export const prefix = (id: string): string => id.slice(0, id.indexOf('.'));

type Obj = Record<string, any>;

/** A valid envelope in `state` (COMPLETE carries done + a passing command verification). */
export function envelopeIn(agentId: string, state: string, extra: Obj = {}): Obj {
  const e: Obj = initialEnvelope(agentId);
  e.agent_status.agent_state = state;
  if (state === 'COMPLETE' || state === 'NEEDS_VERIFICATION') {
    e.agent_status.next_action = state === 'COMPLETE' ? 'done' : 'verify';
    e.evidence_report.verification = {
      type: 'command',
      command: 'npm test',
      result: state === 'COMPLETE' ? 'pass' : 'fail',
    };
  }
  if (state === 'APPROVAL_REQUEST') e.approval_request = { exact_content: 'git push origin main' };
  return { ...e, ...extra };
}

export const draftPath = (home: string, id: string): string => join(home, 'drafts', `${id}.json`);
export const dbFile = (home: string): string => join(home, 'handoff.db');

export function writeDraft(home: string, id: string, envelope: unknown): string {
  mkdirSync(join(home, 'drafts'), { recursive: true, mode: 0o700 });
  const path = draftPath(home, id);
  writeFileSync(path, `${JSON.stringify(envelope, null, 2)}\n`, { mode: 0o600 });
  return path;
}

export const readDraftFile = (home: string, id: string): Obj =>
  JSON.parse(readFileSync(draftPath(home, id), 'utf8')) as Obj;

/** Opens (creating and migrating) the home's store in this process; close it before spawning writers. */
export function storeOf(home: string): Db {
  const db = openWriter({ HANDOFF_HOME: home }, home, { create: true });
  if (db === null) throw new Error('no store');
  return db;
}

export function withStore<T>(home: string, fn: (db: Db) => T): T {
  const db = storeOf(home);
  try {
    return fn(db);
  } finally {
    closeDb(db);
  }
}

export interface SeedRow {
  contract_id: string;
  agent_state?: string;
  cut_reason?: string | null;
  raw?: unknown;
  workspace?: string;
  kind?: string | null;
  plan_task_id?: string | null;
  parent_handoff_id?: number | null;
  continues_handoff_id?: number | null;
  harness_id?: string | null;
  consolidation?: 0 | 1;
  require_receipt?: 0 | 1;
  can_write?: string[] | null;
  created_at?: string;
}

/** Inserts one handoffs row (a dispatch birth by default); returns its id. */
export function seedRow(home: string, r: SeedRow): number {
  return withStore(home, (db) => insertRow(db, r));
}

export function insertRow(db: Db, r: SeedRow): number {
  const state = r.agent_state ?? 'DISPATCHED';
  const cut =
    r.cut_reason !== undefined
      ? r.cut_reason
      : state === 'DISPATCHED'
        ? 'never_finalized'
        : state === 'IN_PROGRESS'
          ? 'backstop_capture'
          : null;
  const now = r.created_at ?? new Date().toISOString();
  const out = db
    .prepare(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind, plan_task_id,
                             parent_handoff_id, continues_handoff_id, harness_id, goal, consolidation, require_receipt,
                             can_write_json, created_at, updated_at)
       VALUES (@contract_id, @agent_id, @workspace, @state, @cut, @raw, @kind, @plan, @parent, @continues, @harness, 'goal',
               @consolidation, @require_receipt, @can_write, @now, @now) RETURNING id`,
    )
    .get({
      contract_id: r.contract_id,
      agent_id: prefix(r.contract_id),
      workspace: r.workspace ?? 'ws',
      state,
      cut,
      raw: JSON.stringify(r.raw ?? initialEnvelope(prefix(r.contract_id))),
      kind: r.kind === undefined ? 'investigation' : r.kind,
      plan: r.plan_task_id ?? null,
      parent: r.parent_handoff_id ?? null,
      continues: r.continues_handoff_id ?? null,
      harness: r.harness_id ?? null,
      consolidation: r.consolidation ?? 0,
      require_receipt: r.require_receipt ?? 0,
      can_write: r.can_write === undefined || r.can_write === null ? null : JSON.stringify(r.can_write),
      now,
    }) as { id: number };
  return out.id;
}

export function rowOf(home: string, contractId: string): Obj | undefined {
  return withStore(
    home,
    (db) => db.prepare('SELECT * FROM handoffs WHERE contract_id = ?').get(contractId) as Obj | undefined,
  );
}

export function countRows(home: string, table = 'handoffs'): number {
  return withStore(home, (db) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
}

/** `handoff <args> --json` with HANDOFF_HOME=home. */
export const runJson = (home: string, args: string[], env: Record<string, string | undefined> = {}): RunResult =>
  run(home, [...args, '--json'], { env });

/** The checks every refusal owes: its exit code, its code, one stderr line at most in JSON mode, no stack trace. */
export function expectCleanFailure(r: RunResult, exit: number, code: string): void {
  expect({ exit: r.code, code: r.json?.code }, `${r.stdout} ${r.stderr}`).toEqual({ exit, code });
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
