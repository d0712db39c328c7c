/** The gate fails open: exit 1 for its own problems, never 2, nothing written. */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runAsync, snapshot, tempHome } from '../helpers/cli.js';
import { dispatchJson, gate, rawStore, row, stopInput, subagentStop } from '../helpers/gate.js';

const ONE_LINE = /^handoff contract gate: [^\n]*\. Stop not gated\.\n$/;

function expectFailOpen(home: string, args: string[], input: string, code: string): void {
  const before = snapshot(home);
  const human = gate(home, args, input);
  expect(human.code, human.stderr).toBe(1);
  expect(human.stdout).toBe('');
  expect(human.stderr).toMatch(ONE_LINE);
  const json = gate(home, [...args, '--json'], input);
  expect(json.code).toBe(1);
  expect(json.json).toMatchObject({ status: 'error', code });
  expect(snapshot(home)).toEqual(before);
}

describe('fail open: bad stdin', () => {
  it.each<[string, string]>([
    ['empty stdin', ''],
    ['not JSON', 'garbage'],
    ['an array', '[]'],
    ['null', 'null'],
    ['no hook_event_name', '{"session_id":"s"}'],
    ['unknown hook_event_name', '{"hook_event_name":"PreToolUse","session_id":"s"}'],
  ])('%s: exit 1', (_name, input) => {
    expectFailOpen(tempHome(), [], input, 'HOOK_INPUT_INVALID');
  });

  it('with --draft-id, stdin is optional but still parsed when present', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    expect(gate(home, ['--draft-id', d.contract_id, '--json'], '').json.lane).toBe('draft_id');
    expectFailOpen(home, ['--draft-id', d.contract_id], 'not json', 'HOOK_INPUT_INVALID');
  });
});

describe('fail open: bad flags', () => {
  it.each<[string[], string]>([
    [['--max-rejections', '0'], 'USAGE'],
    [['--max-rejections', 'three'], 'USAGE'],
    [['--on-missing', 'maybe'], 'USAGE'],
    [['--draft-id', 'not-an-id'], 'INVALID_DRAFT_ID'],
    [['--workspace', ' '], 'USAGE'],
    [['--unknown-flag'], 'USAGE'],
    [['extra-positional'], 'USAGE'],
  ])('%j: exit 1, not 2', (args, code) => {
    expectFailOpen(tempHome(), args, stopInput({ session: 's' }), code);
  });
});

describe('fail open: the store', () => {
  it('a file that is not SQLite: exit 1', () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'handoff.db'),
      'this is not a database, just text that is long enough to look like a header.....',
    );
    expectFailOpen(home, [], subagentStop({ agentId: 'x', extra: { stop_reason: 'end_turn' } }), 'STORE_UNREADABLE');
  });

  it('a schema newer than the build: exit 1, file untouched', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'g']);
    const db = rawStore(home);
    db.prepare(
      "INSERT INTO schema_version (version, name, checksum, applied_at) VALUES (999, '0999_future.sql', 'x', 'now')",
    ).run();
    db.close();
    expectFailOpen(home, [], stopInput({ session: 's', extra: { stop_reason: 'end_turn' } }), 'STORE_SCHEMA_TOO_NEW');
  });

  it('a missing transcript is never an error', () => {
    const home = tempHome();
    const r = gate(home, ['--json'], subagentStop({ agentId: 'x', transcript: '/nonexistent/agent.jsonl' }));
    expect(r.code).toBe(2);
    expect(r.json.stop_class).toBe('unknown');
  });

  it('capture and counter writes that fail after the verdict leave the verdict and exit unchanged; the counter moves to <root>/gate/', async () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'busy-run']);
    // Another process holds the write lock past the gate's busy timeout (5 s, one attempt).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D=require('better-sqlite3');const db=new D(${JSON.stringify(join(home, 'handoff.db'))});db.exec('BEGIN IMMEDIATE');console.log('locked');setTimeout(()=>{},30000);`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((res) =>
        holder.stdout.on('data', (b: Buffer) => b.toString().includes('locked') && res()),
      );
      const r = await runAsync(home, ['contract', 'gate', '--json'], {
        input: subagentStop({ agentId: 'busy-run', extra: { stop_reason: 'end_turn' } }),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.json).toMatchObject({
        decision: 'block',
        exit: 2,
        codes: ['ROW_NOT_FINALIZED'],
        captured: false,
        attempt: 1,
      });
      expect(r.json.capture_error).toEqual(expect.any(String));
      // The store could not hold the rejection counter: it counts in a file under the data root instead.
      expect(r.json.counter_error).toBeUndefined();
      expect(readdirSync(join(home, 'gate'))).toHaveLength(1);
      expect(r.stderr).toContain('could not be captured');
      expect(r.stderr).toContain('This is block 1 of 2');
    } finally {
      holder.kill();
    }
    expect(row(home, d.contract_id).agent_state).toBe('DISPATCHED');
  });
});
