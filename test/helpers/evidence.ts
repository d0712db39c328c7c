/** Helpers for the brief/evidence tests: a store with briefs, row counts, evidence-tree snapshots, thrown errors. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HandoffError } from '../../src/errors.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { run, snapshot, type RunResult } from './cli.js';
import { WS } from './receipts-cli.js';

export { WS };

/** Runs `handoff brief add NAME --ac …` in workspace `ws` and returns the parsed JSON. */
export function addBrief(home: string, name: string, acs: string[] = [], ws = WS): any {
  const r = run(home, [
    'brief',
    'add',
    name,
    ...acs.flatMap((a) => ['--ac', `${a}=criterion ${a}`]),
    '--workspace',
    ws,
    '--json',
  ]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r.json;
}

/** Row counts of the tables a refusal must not touch (all zero when there is no DB file). */
export function counts(home: string): Record<string, number> {
  const file = join(home, 'handoff.db');
  const out: Record<string, number> = { briefs: 0, acceptance_criteria: 0, evidence: 0, handoffs: 0 };
  if (!existsSync(file)) return out;
  const Database = loadSqlite();
  // Not `readonly`: a read-only connection on a WAL store leaves -wal/-shm behind; query_only writes nothing.
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    for (const t of Object.keys(out)) {
      const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(t);
      out[t] = exists ? (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n : 0;
    }
  } finally {
    db.close();
  }
  return out;
}

/** Everything below <home>/evidence (files with content, directories). */
export const evidenceTree = (home: string): ReturnType<typeof snapshot> => snapshot(join(home, 'evidence'));

/** The whole state a refusal must leave unchanged. */
export const state = (home: string): { tree: ReturnType<typeof snapshot>; counts: Record<string, number> } => ({
  tree: snapshot(home),
  counts: counts(home),
});

/** A refusal: the code, the exit code, no stack trace, one JSON error object. */
export function expectRefusal(r: RunResult, code: string, exit: number): void {
  expect({ code: r.json?.code, exit: r.code }, r.stderr + r.stdout).toEqual({ code, exit });
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.json?.status).toBe(exit === 1 ? 'rejected' : 'error');
}

/** A refusal in human mode: one line on stderr, no stack. */
export function expectHumanRefusal(r: RunResult, exit: number): void {
  expect(r.code, r.stderr).toBe(exit);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** The error `fn` throws, or undefined when it returns (assert on it outside any catch). */
export function failure(fn: () => unknown): HandoffError | undefined {
  try {
    fn();
  } catch (e) {
    return e as HandoffError;
  }
  return undefined;
}

/** The error an async call rejects with, or undefined. */
export async function failureAsync(fn: () => Promise<unknown>): Promise<HandoffError | undefined> {
  try {
    await fn();
  } catch (e) {
    return e as HandoffError;
  }
  return undefined;
}
