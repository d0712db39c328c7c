/**
 * Scenario steps shared by the case tables. Every step drives the built binary (HANDOFF_WORKSPACE=ws) and asserts
 * that it succeeded, so a case fails at the step that drifted instead of validating some other output.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import type { RunOptions, RunResult } from '../../helpers/cli.js';
import { hf, newDraft } from '../../cli/receipts-fixtures.js';
import { draftPath } from '../../cli/store-fixtures.js';
import type { ResultCase } from '../case.js';

export { hf, newDraft };

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
export function fillClose(home: string, id: string, state = 'COMPLETE'): void {
  ok(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(closePatch(state))]);
}

/** A new draft filled with a close in `state`, ready to finalize. */
export function readyDraft(home: string, state = 'COMPLETE'): string {
  const id = newDraft(home);
  fillClose(home, id, state);
  return id;
}

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
      newDraft(home);
      newDraft(home);
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
