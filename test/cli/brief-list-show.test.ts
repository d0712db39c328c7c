import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { addBrief, expectRefusal, state } from '../helpers/evidence.js';

const W = ['--workspace', 'ws', '--json'];

describe('brief list', () => {
  it('without a DB: empty, exit 0, nothing created', () => {
    const home = tempHome();
    const r = run(home, ['brief', 'list', ...W]);
    expect(r.json).toEqual({ status: 'ok', count: 0, truncated: false, next_cursor: null, briefs: [] });
    expect(state(home).tree).toEqual({});
    expect(run(home, ['brief', 'list', '--workspace', 'ws']).stdout).toBe('No briefs in workspace ws.\n');
  });

  it("lists the workspace's briefs by name with ac and evidence counts", () => {
    const home = tempHome();
    addBrief(home, 'zeta', ['A', 'B']);
    addBrief(home, 'Alpha');
    addBrief(home, 'beta', [], 'other');
    expect(
      run(home, [
        'evidence',
        'add',
        '--brief',
        'zeta',
        '--ac',
        'A',
        '--type',
        'text',
        '--text',
        'x',
        '--workspace',
        'ws',
      ]).code,
    ).toBe(0);
    const r = run(home, ['brief', 'list', ...W]);
    expect(r.json.count).toBe(2);
    expect(r.json.briefs.map((b: any) => [b.name, b.ac_count, b.evidence_count])).toEqual([
      ['Alpha', 0, 0],
      ['zeta', 2, 1],
    ]);
    expect(Object.keys(r.json.briefs[0])).toEqual(['id', 'name', 'title', 'created_at', 'ac_count', 'evidence_count']);
    expect(run(home, ['brief', 'list', '--workspace', 'ws']).stdout).toMatch(/showing 2\n$/);
  });

  it('refuses an unsafe workspace', () => {
    expectRefusal(run(tempHome(), ['brief', 'list', '--workspace', 'a/b', '--json']), 'UNSAFE_SLUG', 2);
  });
});

describe('brief show', () => {
  it('shows the brief, its ACs with evidence counts and evidence filed under undeclared ids', () => {
    const home = tempHome();
    addBrief(home, 'pay');
    const add = (ac: string): void => {
      expect(
        run(home, [
          'evidence',
          'add',
          '--brief',
          'pay',
          '--ac',
          ac,
          '--type',
          'text',
          '--text',
          'x',
          '--workspace',
          'ws',
        ]).code,
      ).toBe(0);
    };
    add('early');
    add('AC-1');
    expect(run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'AC-1=one', '--ac', 'AC-2=two', ...W]).code).toBe(0);
    add('AC-1');
    const r = run(home, ['brief', 'show', 'pay', ...W]);
    expect(r.code).toBe(0);
    expect(r.json.brief).toMatchObject({ name: 'pay', workspace: 'ws' });
    expect(r.json.acceptance_criteria).toEqual([
      { ac_id: 'AC-1', description: 'one', position: 1, evidence_count: 2 },
      { ac_id: 'AC-2', description: 'two', position: 2, evidence_count: 0 },
    ]);
    expect(r.json.undeclared_ac_evidence).toEqual([{ ac_id: 'early', evidence_count: 1 }]);
    const human = run(home, ['brief', 'show', 'pay', '--workspace', 'ws']).stdout.split('\n');
    expect(human[0]).toMatch(/^Brief pay \(id=1, workspace=ws/);
    expect(human.filter((l) => l.includes('AC-'))).toHaveLength(2);
  });

  it('BRIEF_NOT_FOUND (exit 3) without a DB (nothing created), for an unknown name, and for another workspace', () => {
    const home = tempHome();
    expectRefusal(run(home, ['brief', 'show', 'pay', ...W]), 'BRIEF_NOT_FOUND', 3);
    expect(state(home).tree).toEqual({});
    addBrief(home, 'pay');
    expectRefusal(run(home, ['brief', 'show', 'nope', ...W]), 'BRIEF_NOT_FOUND', 3);
    expectRefusal(run(home, ['brief', 'show', 'pay', '--workspace', 'other', '--json']), 'BRIEF_NOT_FOUND', 3);
    const r = run(home, ['brief', 'show', 'PAY', ...W]);
    expectRefusal(r, 'BRIEF_NOT_FOUND', 3);
    expect(r.json.error).toContain('did you mean "pay"');
  });

  it.each(['../x', '..', '.hidden', 'a..b', 'a/b', 'x'.repeat(65), 'a b', 'a\n', 'é'])(
    'row 2: NAME %j -> UNSAFE_SLUG',
    (name) => {
      const home = tempHome();
      expectRefusal(run(home, ['brief', 'show', name, ...W]), 'UNSAFE_SLUG', 2);
      expect(state(home).tree).toEqual({});
    },
  );
});
