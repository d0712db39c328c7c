/** Helpers shared by the draft tests (unit tests in test/drafts, CLI tests in test/cli/drafts-*.test.ts). */
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { run, snapshot, type RunResult } from './cli.js';
import type { StoreSession } from '../../src/drafts/store-access.js';

export const draftsDirOf = (home: string): string => join(home, 'drafts');
export const draftPathOf = (home: string, id: string): string => join(home, 'drafts', `${id}.json`);
export const readDraftJson = (home: string, id: string): any => JSON.parse(readFileSync(draftPathOf(home, id), 'utf8'));
export const dbOf = (home: string): string => join(home, 'handoff.db');
export const hasDb = (home: string): boolean => existsSync(dbOf(home));

/** `contract init --json` → the draft id. */
export function initDraft(home: string, extra: string[] = []): string {
  const r = run(home, ['contract', 'init', '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return r.json.draft_id as string;
}

/**
 * `--verification any` unless `args` name a policy: the tests that dispatch only to have a contract close with the
 * envelope rules alone; a test about the policies passes its own `--verification` or `--require-receipt`.
 */
export const anyPolicyUnlessNamed = (args: readonly string[]): string[] =>
  args.some((a) => a === '--require-receipt' || a.startsWith('--verification')) ? [] : ['--verification', 'any'];

/** `contract dispatch --json` → the contract id (a DISPATCHED row and its draft); policy `any` unless `extra` names one. */
export function dispatch(home: string, extra: string[] = []): { id: string; handoffId: number } {
  const r = run(home, [
    'contract',
    'dispatch',
    '--goal',
    'test goal',
    '--workspace',
    'ws',
    '--json',
    ...anyPolicyUnlessNamed(extra),
    ...extra,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { id: r.json.contract_id as string, handoffId: r.json.handoff_id as number };
}

/** Runs `args` and asserts the call wrote nothing under `home` (bytes, mtimes, no new or removed entry). */
export function runUnchanged(home: string, args: string[], opts: Parameters<typeof run>[2] = {}): RunResult {
  const before = snapshot(home);
  const r = run(home, args, opts);
  expect(snapshot(home), `${args.join(' ')} wrote something`).toEqual(before);
  return r;
}

/**
 * Every refusal prints one line on stderr in human mode, never a stack trace; a USAGE error adds the verb's usage
 * line ("the parser's message and the verb's usage line").
 */
export function expectOneLineError(r: RunResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const lines = r.stderr.trim().split('\n');
  expect(r.stderr).toMatch(/^(Error|Rejected): /);
  if (lines.length === 2) expect(lines[1]).toMatch(/^Usage: handoff /);
  else expect(lines).toHaveLength(1);
}

/** A COMPLETE-able build: verification with result pass (companion included), next_action done. */
export const completeWrites = (id: string): string[][] => [
  [
    'contract',
    'fill',
    '--draft-id',
    id,
    '--json',
    '{"evidence_report":{"verification":{"type":"command","command":"npm test","result":"PASS"}}}',
  ],
  ['contract', 'set', 'agent_status.next_action', 'done', '--draft-id', id],
  ['contract', 'set', 'agent_status.agent_state', 'complete', '--draft-id', id],
];

/** Closes a draft: sets `state` (BLOCKED needs nothing else) and finalizes it into the store. */
export function closeDraft(home: string, id: string, state = 'BLOCKED'): void {
  const s = run(home, ['contract', 'set', 'agent_status.agent_state', state, '--draft-id', id]);
  expect(s.code, s.stderr).toBe(0);
  const f = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
  expect(f.code, f.stdout + f.stderr).toBe(0);
}

/** Sets a file's mtime (ms precision) so "newest" is deterministic. */
export function setMtime(path: string, ms: number): void {
  utimesSync(path, new Date(ms), new Date(ms));
}

/** A StoreSession written as plain synchronous functions (each answer is wrapped in a promise, as a store's is). */
type Methods = Omit<StoreSession, 'prepare' | 'rowChain'>;
export type SyncSession = {
  [K in keyof Methods]: (...args: Parameters<Methods[K]>) => Awaited<ReturnType<Methods[K]>>;
};

export function fakeSession(fake: SyncSession): StoreSession {
  const out: Record<string, unknown> = {};
  for (const [key, fn] of Object.entries(fake) as [string, (...args: unknown[]) => unknown][]) {
    out[key] = (...args: unknown[]) => new Promise((resolve) => resolve(fn(...args)));
  }
  return out as unknown as StoreSession;
}
