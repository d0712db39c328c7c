/** Envelope builders for the validator tests: a valid base per state, mutated through a callback on a copy. */
import { initialEnvelope } from '../../src/envelope/vocabulary.js';

// Tests poke arbitrary shapes into envelopes; a loose type keeps the tables readable.
export type Env = Record<string, any>;

export const AID = 'a1b2c30f1e2d3c4b5';

export const inProgress = (): Env => initialEnvelope(AID);

export const complete = (): Env => {
  const e = inProgress();
  e.agent_status.agent_state = 'COMPLETE';
  e.agent_status.next_action = 'done';
  e.evidence_report.verification = { type: 'command', command: 'npm test', result: 'pass' };
  return e;
};

export const approval = (): Env => {
  const e = inProgress();
  e.agent_status.agent_state = 'APPROVAL_REQUEST';
  e.approval_request = { exact_content: 'git push origin main' };
  return e;
};

export const withState = (state: unknown, start: () => Env = inProgress): Env => {
  const e = start();
  e.agent_status.agent_state = state;
  return e;
};

/** A copy of `start()` changed by `mutate`. */
export const env = (mutate: (e: Env) => void, start: () => Env = inProgress): Env => {
  const e = start();
  mutate(e);
  return e;
};

export const fullConsolidation = (): Env => ({
  ownership_assessment: 'owned_here',
  confirmed_findings: [],
  suspected_findings: [],
  conflicts: [],
  open_gaps: [],
  next_best_agent: null,
});

/** The pairs a result reports, for table assertions. */
export const pairs = (r: { errors: { code: string; path: string }[] }): [string, string][] =>
  r.errors.map((e) => [e.code, e.path]);
