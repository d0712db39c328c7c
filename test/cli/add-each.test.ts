/** `add` with a JSON array VALUE is refused (ADD_LIST_VALUE); `--each` appends each element. */
import { describe, expect, it } from 'vitest';
import { initDraft } from '../helpers/drafts.js';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const field = (home: string, id: string, path: string): unknown =>
  run(home, ['contract', 'view', '--field', path, '--draft-id', id, '--json']).json.value;

describe('add with a list VALUE', () => {
  it('a JSON array VALUE is ADD_LIST_VALUE, exit 1, nothing written, with a hint naming --each', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const h = run(home, ['contract', 'add', 'evidence_report.files_checked', '["a.ts","b.ts"]', '--draft-id', id]);
    expect(h.code).toBe(1);
    expect(h.stdout).toBe('');
    expect(h.stderr).toMatch(/^Rejected: .*--each.* \[ADD_LIST_VALUE\]\n$/);
    const j = run(home, ['contract', 'add', 'evidence_report.files_checked', '[]', '--draft-id', id, '--json']);
    expect([j.code, j.json.status, j.json.code]).toEqual([1, 'rejected', 'ADD_LIST_VALUE']);
    expect(j.json).toMatchObject({ draft_id: id, path: 'evidence_report.files_checked' });
    expect(snapshot(home)).toEqual(before);
  });

  it('NOT_A_LIST still comes first when the target is not a list', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = run(home, ['contract', 'add', 'agent_status.next_action', '["x"]', '--draft-id', id, '--json']);
    expect([r.code, r.json.code]).toEqual([1, 'NOT_A_LIST']);
  });

  it('--each appends each element as its own entry, in order; a nested array stays one entry', () => {
    const home = tempHome();
    const id = initDraft(home);
    expect(
      run(home, ['contract', 'add', '--each', 'evidence_report.files_checked', '["a.ts","b.ts"]', '--draft-id', id])
        .code,
    ).toBe(0);
    expect(run(home, ['contract', 'add', 'evidence_report.files_checked', 'c.ts', '--draft-id', id]).code).toBe(0);
    expect(
      run(home, [
        'contract',
        'add',
        'evidence_report.files_checked',
        '["d.ts",{"path":"e.ts","commit":"abcdef1"}]',
        '--each',
        '--draft-id',
        id,
      ]).code,
    ).toBe(0);
    expect(field(home, id, 'evidence_report.files_checked')).toEqual([
      'a.ts',
      'b.ts',
      'c.ts',
      'd.ts',
      { path: 'e.ts', commit: 'abcdef1' },
    ]);
    expect(
      run(home, ['contract', 'add', '--each', 'evidence_report.key_outputs', '[["x","y"]]', '--draft-id', id]).code,
    ).toBe(0);
    expect(field(home, id, 'evidence_report.key_outputs')).toEqual([['x', 'y']]);
    expect(run(home, ['contract', 'add', '--each', 'evidence_report.open_gaps', '[]', '--draft-id', id]).code).toBe(0);
    expect(field(home, id, 'evidence_report.open_gaps')).toEqual([]);
  });

  it.each(['a.ts', '{"a":1}', '42', 'null'])(
    '--each with a VALUE that is not a JSON array (%s): USAGE, exit 2, nothing written',
    (value) => {
      const home = tempHome();
      const id = initDraft(home);
      const before = snapshot(home);
      const r = run(home, [
        'contract',
        'add',
        '--each',
        'evidence_report.files_checked',
        value,
        '--draft-id',
        id,
        '--json',
      ]);
      expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
      expect(r.json.error).toMatch(/^--each needs a JSON array VALUE/);
      expect(snapshot(home)).toEqual(before);
    },
  );
});
