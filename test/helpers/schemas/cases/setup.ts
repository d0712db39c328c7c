/**
 * Scenario steps shared by the case tables. The output under test always comes from the built binary
 * (HANDOFF_WORKSPACE=ws). Setup steps that only need a draft on disk write it as `contract init` would (the initial
 * envelope, or a valid close, under a fresh id), which saves a process per step on a shared machine; every other
 * setup step drives the binary and asserts that it succeeded, so a case fails at the step that drifted.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import type { RunOptions, RunResult } from '../../cli.js';
import { hf } from '../../receipts-cli.js';
import { draftPath, envelopeIn, mintDraft, prefix, writeDraft } from '../../store-cli.js';
import type { ResultCase } from '../case.js';

export { hf };

/** A new draft file holding a valid envelope in `state` (IN_PROGRESS: the initial envelope); returns its id. */
export function plantDraft(home: string, state = 'IN_PROGRESS', edit: (e: Record<string, any>) => void = () => {}): string {
  const id = mintDraft();
  const e = envelopeIn(prefix(id), state);
  edit(e);
  writeDraft(home, id, e);
  return id;
}

/** Runs a setup step and returns its JSON, asserting exit 0. */
export function ok(home: string, args: string[], opts: RunOptions = {}): any {
  const r = hf(home, args, opts);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.json;
}

/** A patch that closes an unbound turn in `state` (COMPLETE with done and a passing command check). */
export const closePatch = (state = 'COMPLETE', verification: Record<string, unknown> = { type: 'command', command: 'npm test', result: 'pass' }) => ({
  agent_status: { agent_state: state, next_action: state === 'COMPLETE' ? 'done' : 'review', pending_steps: [] },
  evidence_report: { verification },
});

/** Fills a close into draft `id` (not finalized). */
export function fillClosePatch(home: string, id: string, state = 'COMPLETE'): void {
  ok(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(closePatch(state))]);
}

/** A new draft holding a valid close in `state`, ready to finalize. */
export const readyDraft = (home: string, state = 'COMPLETE'): string => plantDraft(home, state);

/** A draft finalized in `state`; returns its id. */
export function closedContract(home: string, state = 'COMPLETE'): string {
  const id = readyDraft(home, state);
  ok(home, ['contract', 'finalize', '--draft-id', id, '--json']);
  return id;
}

/** `contract dispatch --json` with the given flags. */
export const dispatched = (home: string, ...flags: string[]): any => ok(home, ['contract', 'dispatch', '--goal', 'Add idempotency keys', ...flags, '--json']);

export const removeDraftFile = (home: string, id: string): void => rmSync(draftPath(home, id));

/** Two drafts of two agents, so a verb without addressing flags cannot choose. */
export function ambiguousCase(verb: string, args: string[]): ResultCase {
  return {
    verb,
    schema: 'ambiguous-draft',
    name: 'two drafts and no --draft-id',
    exit: 2,
    produce: (home): RunResult => {
      plantDraft(home);
      plantDraft(home);
      return hf(home, [...verb.split(' '), ...args]);
    },
    expect: (j) => expect([j.code, j.candidates.length]).toEqual(['AMBIGUOUS_DRAFT', 2]),
    wrong: {
      'a single candidate': (j) => ({ ...j, candidates: j.candidates.slice(0, 1) }),
      'a candidate without its mtime': (j) => ({ ...j, candidates: j.candidates.map(({ mtime: _m, ...c }: any) => c) }),
      'another code': (j) => ({ ...j, code: 'DRAFT_NOT_FOUND' }),
    },
  };
}

/**
 * A refusal or error printed by one call of `verb` (args may run setup steps first): the generic error shape with
 * `code`, `rejected` for exit 1, else `error` (the gate fails open with exit 1 and status error).
 */
export function refusal(verb: string, code: string, exit: number, args: (home: string) => string[], detail?: string): ResultCase {
  const status = exit === 1 && verb !== 'contract gate' && verb !== 'approval gate' ? 'rejected' : 'error';
  return {
    verb,
    schema: 'error',
    name: detail === undefined ? code : `${code} (${detail})`,
    exit,
    produce: (home) => hf(home, [...verb.split(' '), ...args(home)]),
    expect: (j) => expect([j.status, j.code]).toEqual([status, code]),
  };
}

/** A list verb before any store exists: an empty list, exit 0. */
export function noStoreCase(verb: string, schema: string, args: string[] = []): ResultCase {
  return {
    verb,
    schema,
    name: 'no store yet',
    exit: 0,
    produce: (home) => hf(home, [...verb.split(' '), ...args, '--json']),
    expect: (j) => expect(j.count).toBe(0),
  };
}
