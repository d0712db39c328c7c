/**
 * Helpers for the dispatchJson / claim / gate CLI tests: dispatching, closing contracts through the real verbs,
 * transcripts written the way Claude Code writes them, recorded-shape hook input, and a raw DB handle for fixtures
 * that no verb can produce (a row from an older tool) and for assertions.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { run, type RunResult } from './cli.js';
import { anyPolicyUnlessNamed } from './drafts.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import type { Db } from '../../src/store/db.js';

export const WS_FLAGS = ['--workspace', 'ws'];

/** `contract dispatch … --json`, asserting success; policy `any` unless `args` name one. */
export function dispatchJson(home: string, args: string[]): any {
  const r = run(home, ['contract', 'dispatch', ...WS_FLAGS, ...anyPolicyUnlessNamed(args), ...args, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

/** `items` as a JSON Lines file `dir/name` (a transcript in any harness's shape); returns its path. */
export function writeJsonLines(dir: string, name: string, items: object[]): string {
  const p = join(dir, name);
  writeFileSync(p, items.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return p;
}

/** A Claude Code transcript: the prompt as the first user line, then assistant lines with their stop reasons. */
export function writeTranscript(
  dir: string,
  name: string,
  prompt: unknown,
  stopReasons: (string | null)[] = ['end_turn'],
): string {
  const lines: object[] = [{ type: 'user', message: { role: 'user', content: prompt }, uuid: 'u1', sessionId: 'sess' }];
  stopReasons.forEach((stop_reason, i) => {
    lines.push({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: `turn ${i}` }], stop_reason },
      uuid: `a${i}`,
    });
  });
  return writeJsonLines(dir, name, lines);
}

/** Recorded-shape SubagentStop hook input. */
export function subagentStop(o: {
  session?: string;
  agentId?: string;
  agentType?: string;
  transcript?: string;
  cwd?: string;
  extra?: object;
}): string {
  return JSON.stringify({
    session_id: o.session ?? 'sess-1',
    transcript_path: '/nonexistent/parent-session.jsonl',
    cwd: o.cwd ?? '/tmp',
    hook_event_name: 'SubagentStop',
    stop_hook_active: false,
    agent_id: o.agentId,
    agent_type: o.agentType ?? 'implementer',
    agent_transcript_path: o.transcript,
    last_assistant_message: 'All done, COMPLETE.',
    ...o.extra,
  });
}

/** Recorded-shape Stop hook input. */
export function stopInput(o: { session?: string; transcript?: string; cwd?: string; extra?: object }): string {
  return JSON.stringify({
    session_id: o.session ?? 'sess-main',
    transcript_path: o.transcript,
    cwd: o.cwd ?? '/tmp',
    hook_event_name: 'Stop',
    stop_hook_active: false,
    ...o.extra,
  });
}

export const gate = (home: string, args: string[], input: string | undefined): RunResult =>
  run(home, ['contract', 'gate', ...args], { input: input ?? '' });

/** Writes with the draft verbs and finalizes in `state`; returns finalize's JSON. */
export function finalizeAs(home: string, cid: string, state: string, patch: object = {}): any {
  const fill = run(home, ['contract', 'fill', '--draft-id', cid, '--json', JSON.stringify(patch)]);
  expect(fill.code, fill.stdout + fill.stderr).toBe(0);
  const set = run(home, ['contract', 'set', 'agent_status.agent_state', state, '--draft-id', cid, '--json']);
  expect(set.code, set.stdout + set.stderr).toBe(0);
  const fin = run(home, ['contract', 'finalize', '--draft-id', cid, '--json']);
  expect(fin.code, fin.stdout + fin.stderr).toBe(0);
  return fin.json;
}

/** A patch that lets COMPLETE validate (unbound turns). */
export const COMPLETE_PATCH = {
  agent_status: { pending_steps: [], next_action: 'done' },
  evidence_report: { verification: { type: 'command', command: 'npm test', result: 'pass' } },
};

/** A raw connection to the test's store (fixtures and assertions only). */
export function rawStore(home: string): Db {
  const Database = loadSqlite();
  return new Database(join(home, 'handoff.db'));
}

export function row(home: string, cid: string): any {
  const db = rawStore(home);
  try {
    return db.prepare('SELECT * FROM handoffs WHERE contract_id = ?').get(cid);
  } finally {
    db.close();
  }
}

export function rejections(home: string): any[] {
  const db = rawStore(home);
  try {
    return db.prepare('SELECT * FROM gate_rejections ORDER BY key').all();
  } finally {
    db.close();
  }
}

/**
 * What Claude Code writes into the transcript when it delivers a stop hook's block (a `system` record with subtype
 * `stop_hook_summary`): the breaker counts a continuation only with this proof of delivery.
 */
export function deliver(transcript: string, reason: string): void {
  appendFileSync(
    transcript,
    `${JSON.stringify({ type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookErrors: [reason] })}\n`,
  );
}
