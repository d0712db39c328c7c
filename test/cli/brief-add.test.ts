import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { addBrief, counts, expectHumanRefusal, expectRefusal, state } from '../helpers/evidence.js';

const W = ['--workspace', 'ws', '--json'];

describe('brief add', () => {
  it('creates a brief with ordered ACs; blank title stored as null; JSON and human shapes', () => {
    const home = tempHome();
    const r = run(home, [
      'brief',
      'add',
      'payments-hardening',
      '--title',
      ' ',
      '--objective',
      'Harden',
      '--ac',
      'AC-1=first = one',
      '--ac',
      'ac_2.b=second',
      ...W,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      status: 'ok',
      created: true,
      brief: {
        id: 1,
        workspace: 'ws',
        name: 'payments-hardening',
        title: null,
        objective: 'Harden',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
      acceptance_criteria: [
        { ac_id: 'AC-1', description: 'first = one', position: 1 },
        { ac_id: 'ac_2.b', description: 'second', position: 2 },
      ],
      added: ['AC-1', 'ac_2.b'],
    });
    const human = run(home, ['brief', 'add', 'other', '--ac', 'A=x', '--workspace', 'ws']);
    expect(human.stdout).toBe('Brief other (id=2) created with 1 acceptance criteria.\n');
    expect(run(home, ['brief', 'add', 'bare', ...W]).json.acceptance_criteria).toEqual([]);
  });

  it('--extend appends after the existing ACs; created:false', () => {
    const home = tempHome();
    addBrief(home, 'pay', ['AC-1', 'AC-2']);
    const r = run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'AC-3=three', '--ac', 'AC-4=four', ...W]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.created).toBe(false);
    expect(r.json.added).toEqual(['AC-3', 'AC-4']);
    expect(r.json.acceptance_criteria.map((a: any) => [a.ac_id, a.position])).toEqual([
      ['AC-1', 1],
      ['AC-2', 2],
      ['AC-3', 3],
      ['AC-4', 4],
    ]);
    const human = run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'AC-5=five', '--workspace', 'ws']);
    expect(human.stdout).toBe('Brief pay (id=1) extended: AC-5.\n');
  });

  it('BRIEF_EXISTS (exit 1) for the same name ignoring case; nothing written', () => {
    const home = tempHome();
    addBrief(home, 'pay', ['AC-1']);
    for (const name of ['pay', 'PAY']) {
      const before = state(home);
      expectRefusal(run(home, ['brief', 'add', name, '--ac', 'AC-9=x', ...W]), 'BRIEF_EXISTS', 1);
      expect(state(home)).toEqual(before);
    }
    expect(run(home, ['brief', 'add', 'pay', '--workspace', 'other', '--json']).code).toBe(0);
  });

  it('AC_EXISTS (exit 1) when --extend repeats an id ignoring case; nothing written', () => {
    const home = tempHome();
    addBrief(home, 'pay', ['AC-1']);
    const before = state(home);
    const r = run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'AC-2=new', '--ac', 'ac-1=clash', ...W]);
    expectRefusal(r, 'AC_EXISTS', 1);
    expect(r.json.ac_ids).toEqual(['ac-1']);
    expect(state(home)).toEqual(before);
  });

  it('--extend of a missing brief is BRIEF_NOT_FOUND (exit 3), with no DB created', () => {
    const home = tempHome();
    expectRefusal(run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'A=x', ...W]), 'BRIEF_NOT_FOUND', 3);
    expect(state(home).tree).toEqual({});
    addBrief(home, 'Pay');
    const r = run(home, ['brief', 'add', 'pay', '--extend', '--ac', 'A=x', ...W]);
    expectRefusal(r, 'BRIEF_NOT_FOUND', 3);
    expect(r.json.error).toContain('did you mean "Pay"');
  });

  it.each([
    ['DUPLICATE_AC', ['--ac', 'AC-1=a', '--ac', 'ac-1=b']],
    ['USAGE', ['--ac', 'AC-1']],
    ['USAGE', ['--ac', 'AC-1=  ']],
    ['USAGE', ['--extend']],
    ['USAGE', ['--extend', '--ac', 'A=x', '--title', 't']],
    ['USAGE', ['--extend', '--ac', 'A=x', '--objective', '']],
    ['USAGE', ['--bogus']],
  ])('%s (exit 2) for %j, before any I/O', (code, flags) => {
    const home = tempHome();
    const before = state(home);
    expectRefusal(run(home, ['brief', 'add', 'pay', ...flags, ...W]), code, 2);
    expect(state(home)).toEqual(before);
  });

  describe('attack inputs', () => {
    it.each(['../../../escape', '..', 'a/b', 'a\\b', ''])('row 1: --ac %j -> UNSAFE_SLUG', (ac) => {
      const home = tempHome();
      expectRefusal(run(home, ['brief', 'add', 'pay', '--ac', `${ac}=x`, ...W]), 'UNSAFE_SLUG', 2);
      expect(state(home).tree).toEqual({});
    });

    it.each(['../x', '..', '.hidden', 'a..b', 'a/b', 'x'.repeat(65), 'a b', 'a\nb', 'é', '-x', '_x'])(
      'row 2: NAME %j -> UNSAFE_SLUG',
      (name) => {
        const home = tempHome();
        expectRefusal(run(home, ['brief', 'add', ...W, '--', name]), 'UNSAFE_SLUG', 2);
        expect(state(home).tree).toEqual({});
      },
    );

    it('row 3: --workspace ../x and $HANDOFF_WORKSPACE "a b" -> UNSAFE_SLUG with the hint; a derived "My Project" is made into My-Project', () => {
      const home = tempHome();
      const before = state(home);
      const r = run(home, ['brief', 'add', 'pay', '--workspace', '../x', '--json']);
      expectRefusal(r, 'UNSAFE_SLUG', 2);
      expect(r.json.error).toContain('--workspace');
      expectRefusal(
        run(home, ['brief', 'add', 'pay', '--json'], { env: { HANDOFF_WORKSPACE: 'a b' } }),
        'UNSAFE_SLUG',
        2,
      );
      expectHumanRefusal(run(home, ['brief', 'add', 'pay', '--workspace', '../x']), 2);
      expect(state(home)).toEqual(before);
      const project = join(home, 'My Project');
      mkdirSync(project);
      const derived = run(home, ['brief', 'add', 'pay', '--json'], { cwd: project });
      expect(derived.json.brief.workspace).toBe('My-Project');
      const ok = run(home, ['brief', 'add', 'pay', '--json'], {
        cwd: join(home, 'My Project'),
        env: { HANDOFF_WORKSPACE: 'my-project' },
      });
      expect(ok.json.brief.workspace).toBe('my-project');
    });

    it('the derived workspace is used as is when it is a slug', () => {
      const home = tempHome();
      const dir = join(home, 'billing-api');
      mkdirSync(dir);
      expect(run(home, ['brief', 'add', 'pay', '--json'], { cwd: dir }).json.brief.workspace).toBe('billing-api');
      expect(counts(home).briefs).toBe(1);
    });
  });
});
