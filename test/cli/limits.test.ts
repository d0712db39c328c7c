/**
 * Id lengths (checked before any file access), the envelope size limit (checked under the lock
 * after the change, before validation), JSON inputs refused from their size before parsing, and the dispatch goal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { dispatch, initDraft, readDraftJson } from '../helpers/drafts.js';
import { expectCleanFailure, runJson } from '../helpers/store-cli.js';

const agentOf = (n: number): string => `a${'0'.repeat(n - 1)}`;

describe('id lengths', () => {
  it('an agent id of 115 characters is accepted, 116 is INVALID_AGENT_ID (exit 2) before any file access', () => {
    const home = tempHome();
    const ok = run(home, ['contract', 'init', '--agent-id', agentOf(115), '--json']);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.draft_id.length).toBe(115 + 1 + 12);
    const before = snapshot(home);
    for (const args of [
      ['contract', 'init', '--agent-id', agentOf(116)],
      ['contract', 'set', 'report_prose', 'x', '--agent-id', agentOf(5000)],
      ['contract', 'list', '--agent-id', agentOf(116)],
      ['approval', 'request', '--content', 'x', '--agent-id', agentOf(116)],
    ]) {
      const r = runJson(home, args);
      expectCleanFailure(r, 2, 'INVALID_AGENT_ID');
      expect(r.stdout.length, 'one short line, not a 10 KB message').toBeLessThan(600);
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('a draft id whose agent part is over 115 or whose whole is over 128 characters is INVALID_DRAFT_ID (exit 2)', () => {
    const home = tempHome();
    const before = snapshot(home);
    for (const id of [`${agentOf(116)}.000000`, `${agentOf(115)}.${'0'.repeat(13)}`, `${agentOf(4990)}.000000000000`]) {
      for (const args of [
        ['contract', 'init', '--draft-id', id],
        ['contract', 'view', '--draft-id', id],
        ['contract', 'finalize', '--draft-id', id],
      ]) {
        expectCleanFailure(runJson(home, args), 2, 'INVALID_DRAFT_ID');
      }
      expectCleanFailure(
        run(home, ['evidence', 'run', '--json', '--draft-id', id, '--', 'true']),
        2,
        'INVALID_DRAFT_ID',
      );
    }
    // The gate's bad input is exit 1 (stop not gated), not 2.
    const g = run(home, ['contract', 'gate', '--draft-id', `${agentOf(116)}.000000`]);
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/Stop not gated\./);
    expect(snapshot(home)).toEqual(before);
  });

  it('bounds that already existed keep their values: --plan-task-id stays at 200 characters', () => {
    const home = tempHome();
    expect(
      runJson(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--plan-task-id', 'T'.repeat(200)])
        .code,
    ).toBe(0);
    expectCleanFailure(
      runJson(home, ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws', '--plan-task-id', 'T'.repeat(201)]),
      2,
      'USAGE',
    );
  });
});

describe('the envelope limit (ENVELOPE_TOO_LARGE, exit 2, nothing written)', () => {
  it('a write whose resulting envelope (compact JSON) exceeds HANDOFF_MAX_ENVELOPE_BYTES is refused; one within is stored', () => {
    const home = tempHome();
    const id = initDraft(home);
    const env = { HANDOFF_MAX_ENVELOPE_BYTES: '2000' };
    const base = readDraftJson(home, id);
    const sizeWith = (n: number): number => Buffer.byteLength(JSON.stringify({ ...base, report_prose: 'y'.repeat(n) }));
    const fits = 2000 - sizeWith(0);
    const before = snapshot(home);
    const r = run(home, ['contract', 'set', 'report_prose', 'x'.repeat(fits + 1), '--draft-id', id, '--json'], { env });
    expectCleanFailure(r, 2, 'ENVELOPE_TOO_LARGE');
    expect(r.json).toMatchObject({ limit: 2000, bytes: 2001 });
    expect(snapshot(home)).toEqual(before);
    // Exactly at the limit is accepted.
    expect(
      run(home, ['contract', 'set', 'report_prose', 'y'.repeat(fits), '--draft-id', id, '--json'], { env }).code,
    ).toBe(0);
    expect(Buffer.byteLength(JSON.stringify(readDraftJson(home, id)))).toBe(2000);
    expectCleanFailure(
      run(home, ['contract', 'add', 'evidence_report.commands_run', 'z', '--draft-id', id, '--json'], { env }),
      2,
      'ENVELOPE_TOO_LARGE',
    );
  });

  it('the size is judged before validation: an oversized invalid write is ENVELOPE_TOO_LARGE, not a rejection', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = run(
      home,
      ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify({ bogus_key: 'x'.repeat(3000) })],
      {
        env: { HANDOFF_MAX_ENVELOPE_BYTES: '2000' },
      },
    );
    expectCleanFailure(r, 2, 'ENVELOPE_TOO_LARGE');
  });

  it('the default limit is 1 MiB', () => {
    const home = tempHome();
    const id = initDraft(home);
    const file = join(home, 'patch.json');
    writeFileSync(file, JSON.stringify({ report_prose: 'p'.repeat(1024 * 1024) }));
    const before = snapshot(home);
    expectCleanFailure(run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file]), 2, 'ENVELOPE_TOO_LARGE');
    expect(snapshot(home)).toEqual(before);
    writeFileSync(file, JSON.stringify({ report_prose: 'p'.repeat(1000 * 1024) }));
    expect(run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file]).code).toBe(0);
  });

  it('JSON inputs larger than the limit are refused from their size, before parsing (--json, --json-file, stdin)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const env = { HANDOFF_MAX_ENVELOPE_BYTES: '1000' };
    // Not even JSON: a parse would say INVALID_JSON; the size decides first.
    const big = `{${' '.repeat(2000)}`;
    const file = join(home, 'big.json');
    writeFileSync(file, big);
    const before = snapshot(home);
    for (const r of [
      run(home, ['contract', 'fill', '--draft-id', id, '--json', big], { env }),
      run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file], { env }),
      run(home, ['contract', 'fill', '--draft-id', id, '--json-file', '-'], { env, input: big }),
    ]) {
      expectCleanFailure(r, 2, 'ENVELOPE_TOO_LARGE');
      expect(r.json.bytes).toBe(2001);
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('a malformed HANDOFF_MAX_ENVELOPE_BYTES is a usage error (exit 2) before any write', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    for (const value of ['0', '-5', '1e6', 'big', '1.5']) {
      expectCleanFailure(
        run(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id, '--json'], {
          env: { HANDOFF_MAX_ENVELOPE_BYTES: value },
        }),
        2,
        'USAGE',
      );
    }
    expect(snapshot(home)).toEqual(before);
  });
});

describe('the dispatch goal (GOAL_TOO_LARGE, exit 2)', () => {
  it('a goal of 64 KiB is dispatched; one byte more is refused, from --goal and from --goal-file; nothing written', () => {
    const home = tempHome();
    const file = join(home, 'goal.txt');
    writeFileSync(file, `${'g'.repeat(64 * 1024 + 1)}\n`);
    const before = snapshot(home);
    expectCleanFailure(
      runJson(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal', 'é'.repeat(32 * 1024) + 'x']),
      2,
      'GOAL_TOO_LARGE',
    );
    expectCleanFailure(
      runJson(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file]),
      2,
      'GOAL_TOO_LARGE',
    );
    writeFileSync(file, 'g'.repeat(50 * 1024 * 1024));
    expectCleanFailure(
      runJson(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file]),
      2,
      'GOAL_TOO_LARGE',
    );
    writeFileSync(file, `${'g'.repeat(64 * 1024)}\n\n`);
    expect(snapshot(home)).toEqual({ ...before, 'goal.txt': snapshot(home)['goal.txt'] });
    const ok = runJson(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.goal.length).toBe(64 * 1024);
    expect(dispatch(home).id).toMatch(/\./);
  });
});
