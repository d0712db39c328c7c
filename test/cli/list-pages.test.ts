/**
 * Lists a script can trust: every list verb keeps `count` and always says `truncated` and `next_cursor`
 * (one row more is fetched); `--cursor` continues, `--all` lists every row, `--total` adds `total`; the human list
 * ends "showing N (more: --all or --cursor C)" or "showing N of T"; a running dispatched row reads `running` in both.
 */
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { expectCleanFailure, insertRow, mintDraft, runJson, withStore } from '../helpers/store-cli.js';

/** `n` rows; every two share a created_at, so the cursor must order ties by id. */
function seeded(n: number): { home: string; ids: string[] } {
  const home = tempHome();
  const ids: string[] = [];
  withStore(home, (db) => {
    for (let i = 0; i < n; i++) {
      const contract_id = mintDraft();
      const minute = String(Math.floor(i / 2)).padStart(2, '0');
      insertRow(db, { contract_id, agent_state: 'COMPLETE', created_at: `2024-01-01T10:${minute}:00.000Z` });
      ids.push(contract_id);
    }
  });
  return { home, ids: ids.reverse() }; // newest first, as listed
}

const idsOf = (j: { handoffs: { contract_id: string }[] }): string[] => j.handoffs.map((h) => h.contract_id);

describe('contract list pages', () => {
  it('the default page of 20 says it was cut; following next_cursor lists every row once, in order', () => {
    const { home, ids } = seeded(57);
    const first = runJson(home, ['contract', 'list']);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ count: 20, truncated: true });
    expect(first.json.total).toBeUndefined();
    const seen = idsOf(first.json);
    let cursor: string | null = first.json.next_cursor;
    while (cursor !== null) {
      const next = runJson(home, ['contract', 'list', '--cursor', cursor]);
      expect(next.code, next.stdout).toBe(0);
      seen.push(...idsOf(next.json));
      cursor = next.json.next_cursor;
      expect(next.json.truncated).toBe(cursor !== null);
    }
    expect(seen).toEqual(ids);
  });

  it('a page that holds every row is not cut; --all lists all; --total counts whatever the page', () => {
    const { home, ids } = seeded(21);
    expect(runJson(home, ['contract', 'list', '--limit', '21']).json).toMatchObject({
      count: 21,
      truncated: false,
      next_cursor: null,
    });
    const all = runJson(home, ['contract', 'list', '--all']).json;
    expect(all).toMatchObject({ count: 21, truncated: false, next_cursor: null });
    expect(idsOf(all)).toEqual(ids);
    expect(runJson(home, ['contract', 'list', '--limit', '5', '--total']).json).toMatchObject({
      count: 5,
      truncated: true,
      total: 21,
    });
  });

  it('the human list ends with what it showed and how to see more', () => {
    const { home } = seeded(57);
    const cut = run(home, ['contract', 'list']).stdout.trimEnd().split('\n').at(-1);
    const next = runJson(home, ['contract', 'list']).json.next_cursor as string;
    expect(cut).toBe(`showing 20 (more: --all or --cursor ${next})`);
    expect(run(home, ['contract', 'list', '--total']).stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^showing 20 of 57 \(more: --all or --cursor \S+\)$/,
    );
    expect(run(home, ['contract', 'list', '--all', '--total']).stdout.trimEnd().split('\n').at(-1)).toBe(
      'showing 57 of 57',
    );
  });

  it('a cursor the list never gave, or --all with --cursor or --limit, is USAGE (exit 2) and writes nothing', () => {
    const { home } = seeded(3);
    const before = snapshot(home);
    const approvalCursor = Buffer.from('["approval","2024-01-01","x"]').toString('base64url');
    for (const args of [
      ['--cursor', 'not a cursor'],
      ['--cursor', approvalCursor],
      ['--cursor', Buffer.from('["handoff","2024",1.5]').toString('base64url')],
      ['--all', '--limit', '5'],
      ['--all', '--cursor', approvalCursor],
    ]) {
      expectCleanFailure(runJson(home, ['contract', 'list', ...args]), 2, 'USAGE');
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('a running dispatched row reads running in the table as in the JSON', () => {
    const home = tempHome();
    const id = mintDraft();
    withStore(home, (db) =>
      insertRow(db, { contract_id: id, agent_state: 'DISPATCHED', created_at: new Date().toISOString() }),
    );
    expect(runJson(home, ['contract', 'list']).json.handoffs[0]).toMatchObject({ liveness: 'running' });
    const row = run(home, ['contract', 'list']).stdout.split('\n')[1];
    expect(row).toMatch(/\sDISPATCHED\s+running\s/);
    expect(row).not.toMatch(/never_finalized/);
  });
});

describe('the other list verbs page the same way', () => {
  it('brief list and evidence list: --limit, next_cursor, --total', () => {
    const home = tempHome();
    for (const name of ['a1', 'a2', 'a3']) {
      const r = runJson(home, ['brief', 'add', name, '--ac', 'AC-1=works', '--workspace', 'w']);
      expect(r.code, r.stdout).toBe(0);
    }
    const first = runJson(home, ['brief', 'list', '--workspace', 'w', '--limit', '2', '--total']).json;
    expect(first).toMatchObject({ count: 2, truncated: true, total: 3 });
    const rest = runJson(home, [
      'brief',
      'list',
      '--workspace',
      'w',
      '--limit',
      '2',
      '--cursor',
      first.next_cursor,
    ]).json;
    expect(rest).toMatchObject({ count: 1, truncated: false, next_cursor: null });
    expect([...first.briefs, ...rest.briefs].map((b: { name: string }) => b.name)).toEqual(['a1', 'a2', 'a3']);
    const ev = runJson(home, ['evidence', 'list', '--brief', 'a1', '--workspace', 'w']).json;
    expect(ev).toMatchObject({ count: 0, truncated: false, next_cursor: null });
  });

  it('approval list says truncated and next_cursor even with no store', () => {
    const home = tempHome();
    expect(runJson(home, ['approval', 'list', '--total']).json).toMatchObject({
      count: 0,
      truncated: false,
      next_cursor: null,
      total: 0,
    });
  });
});
