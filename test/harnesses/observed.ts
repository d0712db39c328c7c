/**
 * What the suite saw each harness do, per scenario: the keys of the hook input, the form the gate answered in, how
 * many times the harness called the hook, how many model requests the turn made and how long the run took. The
 * runner prints it as a table (scripts/harnesses/run.mjs).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { RecordedRequest } from './fake-model.js';
import type { HarnessRun } from './drive.js';
import type { HarnessName } from './recipes.js';
import type { HookCall } from './wiring.js';

export type Scenario = 'blocked' | 'finalized' | 'exit1';

export interface Observation {
  inputKeys: string[];
  /** How the gate answered each call: `exit 2 + stderr`, `stdout {"decision":"block"}`, `exit 0`, `exit 1`. */
  answers: string[];
  hookCalls: number;
  modelRequests: number;
  /** The 0-based model request where the block reason first appeared, or null. */
  reasonSeenAt: number | null;
  exit: number | null;
  ms: number;
}

const seen: Partial<Record<HarnessName, Partial<Record<Scenario, Observation>>>> = {};

function stdoutJson(c: HookCall): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(c.stdout);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** block, allow or error: what a call's answer means to the harness that made it. */
export function blockForm(harness: HarnessName, c: HookCall): 'block' | 'allow' | 'error' {
  const out = stdoutJson(c);
  const jsonBlock = out !== undefined && (out.decision === 'block' || out.decision === 'deny');
  if (c.exit === 2) return harness === 'copilot' ? 'error' : 'block';
  if (c.exit !== 0) return 'error';
  return jsonBlock ? 'block' : 'allow';
}

function answerOf(c: HookCall): string {
  if (c.exit === 2) return 'exit 2 + stderr';
  if (c.exit !== 0) return `exit ${c.exit}`;
  const out = stdoutJson(c);
  if (out?.decision !== undefined) return `stdout {"decision":${JSON.stringify(out.decision)}}`;
  if (out?.systemMessage !== undefined) return 'stdout {"systemMessage"}';
  return c.stdout.trim() === '' ? 'exit 0' : `exit 0, stdout ${c.stdout.trim().slice(0, 20)}`;
}

export function recordObservation(
  harness: HarnessName,
  scenario: Scenario,
  o: { run: HarnessRun; calls: HookCall[]; turns: RecordedRequest[] },
  reasonMark = 'ROW_NOT_FINALIZED',
): void {
  const keys = new Set<string>();
  for (const c of o.calls) for (const k of Object.keys(c.input)) keys.add(k);
  const at = o.turns.findIndex((t) => t.text.includes(reasonMark));
  (seen[harness] ??= {})[scenario] = {
    inputKeys: [...keys].sort(),
    answers: o.calls.map(answerOf),
    hookCalls: o.calls.length,
    modelRequests: o.turns.length,
    reasonSeenAt: at < 0 ? null : at,
    exit: o.run.code,
    ms: o.run.ms,
  };
}

/**
 * Adds this file's observations to the report at `path` (each suite file writes its own harnesses; a file that ran
 * earlier in the same run keeps what it wrote).
 */
export function saveObservations(path: string): void {
  let before: typeof seen = {};
  try {
    before = JSON.parse(readFileSync(path, 'utf8')) as typeof seen;
  } catch {
    // no report yet
  }
  const merged: typeof seen = { ...before };
  for (const [h, byScenario] of Object.entries(seen) as [HarnessName, Partial<Record<Scenario, Observation>>][])
    merged[h] = { ...merged[h], ...byScenario };
  writeFileSync(path, JSON.stringify(merged, null, 2) + '\n');
}
