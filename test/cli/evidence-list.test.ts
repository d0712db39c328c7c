import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { addBrief, expectRefusal } from '../helpers/evidence.js';

const W = ['--workspace', 'ws', '--json'];
const deposit = (home: string, ac: string, text: string) =>
  expect(
    run(home, ['evidence', 'add', '--brief', 'pay', '--ac', ac, '--type', 'text', '--text', text, ...W]).code,
  ).toBe(0);

describe('evidence list', () => {
  it('orders by ac_id, created_at, id; --ac filters exactly (created_at, id); inline text in full', () => {
    const home = tempHome();
    addBrief(home, 'pay');
    deposit(home, 'b', 'one');
    deposit(home, 'a', 'two');
    deposit(home, 'b', 'x'.repeat(4096));
    deposit(home, 'B', 'four');
    const all = run(home, ['evidence', 'list', '--brief', 'pay', ...W]);
    expect(all.json).toMatchObject({ status: 'ok', count: 4, brief: 'pay', brief_id: 1 });
    expect(all.json.evidence.map((e: any) => [e.ac_id, e.id])).toEqual([
      ['B', 4],
      ['a', 2],
      ['b', 1],
      ['b', 3],
    ]);
    expect(all.json.evidence[3].text).toHaveLength(4096);
    const b = run(home, ['evidence', 'list', '--brief', 'pay', '--ac', 'b', ...W]);
    expect(b.json.evidence.map((e: any) => e.id)).toEqual([1, 3]);
    expect(run(home, ['evidence', 'list', '--brief', 'pay', '--ac', 'none', ...W]).json).toMatchObject({
      count: 0,
      evidence: [],
    });
    const human = run(home, ['evidence', 'list', '--brief', 'pay', '--workspace', 'ws']).stdout.split('\n');
    expect(human[0].split(/\s+/)).toEqual([
      'id',
      'ac_id',
      'type',
      'storage',
      'size',
      'sha256',
      'created_by',
      'created_at',
    ]);
    expect(human.at(-2)).toBe('showing 4');
  });

  it('BRIEF_NOT_FOUND (exit 3) without a DB (nothing created) and for an unknown brief', () => {
    const home = tempHome();
    expectRefusal(run(home, ['evidence', 'list', '--brief', 'pay', ...W]), 'BRIEF_NOT_FOUND', 3);
    expect(snapshot(home)).toEqual({});
    addBrief(home, 'pay');
    expectRefusal(run(home, ['evidence', 'list', '--brief', 'nope', ...W]), 'BRIEF_NOT_FOUND', 3);
  });

  it.each(['../x', '..', '.hidden', 'a..b', 'a/b', 'x'.repeat(65), 'a b', 'a\n', 'é'])(
    'row 2: --brief %j -> UNSAFE_SLUG',
    (brief) => {
      const home = tempHome();
      expectRefusal(run(home, ['evidence', 'list', '--brief', brief, ...W]), 'UNSAFE_SLUG', 2);
      expect(snapshot(home)).toEqual({});
    },
  );

  it('--ac and --workspace are slugs too; --brief is required', () => {
    const home = tempHome();
    expectRefusal(run(home, ['evidence', 'list', '--brief', 'pay', '--ac', '../x', ...W]), 'UNSAFE_SLUG', 2);
    expectRefusal(run(home, ['evidence', 'list', '--brief', 'pay', '--workspace', '../x', '--json']), 'UNSAFE_SLUG', 2);
    expectRefusal(run(home, ['evidence', 'list', ...W]), 'USAGE', 2);
  });
});
