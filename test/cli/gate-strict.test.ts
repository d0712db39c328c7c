/**
 * `contract gate --on-store-error block|allow`. With `block`, a damaged store or data root blocks
 * the stop (exit 2) with a reason naming the code, and the breaker counts in a file under <root>/gate/, so an agent
 * cannot switch the gate off by damaging the store; the default `allow` keeps the fail-open exit 1.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, tempHome } from '../helpers/cli.js';
import { deliver, dispatchJson, gate, rawStore, stopInput, subagentStop, writeTranscript } from '../helpers/gate.js';

const STRICT = ['--on-store-error', 'block'];

/** Damages the home's store the way an agent might, and returns the code the gate will name. */
const damage: [string, (home: string) => string][] = [
  [
    'a row inserted into schema_version',
    (home) => {
      const db = rawStore(home);
      db.prepare(
        "INSERT INTO schema_version (version, name, checksum, applied_at) VALUES (999, '0999_x.sql', 'x', 'now')",
      ).run();
      db.close();
      return 'STORE_SCHEMA_TOO_NEW';
    },
  ],
  [
    'a truncated file',
    (home) => {
      writeFileSync(join(home, 'handoff.db'), 'SQLite format 3\0 truncated');
      return 'STORE_UNREADABLE';
    },
  ],
];

describe('--on-store-error block', () => {
  it.each(damage)('%s: blocks (exit 2) naming the code; the default still fails open (exit 1)', (_what, hurt) => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const code = hurt(home);
    const input = subagentStop({ agentId: 'run-1', extra: { stop_reason: 'end_turn' } });
    const open = gate(home, ['--draft-id', d.contract_id], input);
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/Stop not gated\./);

    const r = gate(home, ['--draft-id', d.contract_id, ...STRICT, '--json'], input);
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({
      status: 'ok',
      decision: 'block',
      exit: 2,
      source: 'store_error',
      codes: [code],
      attempt: 1,
      tripped: false,
    });
    expect(r.json.store_error.code).toBe(code);
    expect(r.stderr).toMatch(new RegExp(`^\\[CONTRACT REJECTED\\].*${code}`));
    const human = gate(home, ['--draft-id', d.contract_id, ...STRICT], input);
    expect([human.code, human.stdout]).toEqual([2, '']);
    expect(human.stderr).toContain(code);
  });

  it('the breaker counts in <root>/gate/ and trips after its limit; its allow message names the store error', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'g']);
    writeFileSync(join(home, 'handoff.db'), 'not a database at all, just text long enough to be read as a header.....');
    const transcript = writeTranscript(tempHome(), 'sess-1.jsonl', 'Work.');
    const input = (active: boolean): string =>
      stopInput({ session: 'sess-1', transcript, extra: { stop_reason: 'end_turn', stop_hook_active: active } });
    const first = gate(home, [...STRICT, '--json'], input(false));
    deliver(transcript, first.stderr);
    const second = gate(home, [...STRICT, '--json'], input(true));
    deliver(transcript, second.stderr);
    const third = gate(home, [...STRICT, '--json'], input(true));
    expect([first.code, first.json.attempt, second.code, second.json.attempt]).toEqual([2, 1, 2, 2]);
    expect(readdirSync(join(home, 'gate'))).toHaveLength(1);
    expect([third.code, third.json.tripped, third.json.codes]).toEqual([
      0,
      true,
      ['STORE_UNREADABLE', 'CONTRACT_REJECTION_LIMIT'],
    ]);
    expect(third.json.systemMessage).toMatch(/STORE_UNREADABLE/);
    // A stop the harness makes while continuing the same turn stays tripped.
    const human = gate(home, STRICT, input(true));
    expect(human.code).toBe(0);
    expect(JSON.parse(human.stdout).systemMessage).toMatch(/gave up after block 2 of 2.*STORE_UNREADABLE/);
    // The first stop of a new turn (stop_hook_active false) counts from one: a session is never ungated for good.
    expect(gate(home, [...STRICT, '--json'], input(false)).json).toMatchObject({ exit: 2, attempt: 1, tripped: false });
  });

  it('a data-root condition (symlinked drafts/) blocks under block and fails open by default', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    // The real drafts/ replaced by a link to another folder holding a draft of that name.
    const target = mkdtempSync(join(tmpdir(), 'handoff-elsewhere-'));
    writeFileSync(join(target, `${d.contract_id}.json`), '{}');
    rmSync(join(home, 'drafts'), { recursive: true });
    symlinkSync(target, join(home, 'drafts'));
    const before = { home: snapshot(home), target: snapshot(target) };
    const open = gate(home, ['--draft-id', d.contract_id, '--json'], '');
    expect([open.code, open.json.code]).toEqual([1, 'DATA_ROOT_UNSAFE']);
    const r = gate(home, ['--draft-id', d.contract_id, ...STRICT, '--json'], '');
    expect([r.code, r.json.codes]).toEqual([2, ['DATA_ROOT_UNSAFE']]);
    // Only the block's own counter was written (under gate/); nothing in drafts/ or behind the link.
    const withoutGate = (snap: Record<string, unknown>): Record<string, unknown> =>
      Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith('gate/')));
    expect({ home: withoutGate(snapshot(home)), target: snapshot(target) }).toEqual({
      home: withoutGate(before.home),
      target: before.target,
    });
  });

  it('a bad --on-store-error value is bad input: exit 1, stop not gated', () => {
    const home = tempHome();
    const r = gate(home, ['--on-store-error', 'maybe'], stopInput({ session: 's' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--on-store-error .* must be block or allow.*Stop not gated\./);
    expect(existsSync(join(home, 'gate'))).toBe(false);
  });

  it('a healthy store judges as before under block (an unfinalized contract: ROW_NOT_FINALIZED)', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = gate(home, ['--draft-id', d.contract_id, ...STRICT, '--json'], '');
    expect([r.code, r.json.codes]).toEqual([2, ['ROW_NOT_FINALIZED']]);
  });
});
