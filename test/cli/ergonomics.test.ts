import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

/** What an agent reading stderr needs: the code on every failure line, and a word when its JSON was taken as text. */
describe('agent-facing ergonomics', () => {
  it('a human-mode failure line ends with its code', () => {
    const home = tempHome();
    const r = run(home, ['contract', 'set', 'work_phase', 'x', '--draft-id', 'not-an-id']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error: --draft-id "not-an-id" is not a contract id .* \[INVALID_DRAFT_ID\]\n$/);
  });

  it('a VALUE that looks like JSON but does not parse is stored as text, with a [NOT JSON] notice', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    const r = run(home, [
      'contract',
      'add',
      'evidence_report.files_checked',
      '{"path":"a.ts"',
      '--draft-id',
      id,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\[NOT JSON\] VALUE is not valid JSON \(.*\); it is stored as the string given\n$/);
    const v = run(home, ['contract', 'view', '--field', 'evidence_report.files_checked', '--draft-id', id, '--json']);
    expect(v.json.value).toEqual(['{"path":"a.ts"']);
    const ok = run(home, ['contract', 'add', 'evidence_report.key_outputs', '{"a":1}', '--draft-id', id]);
    expect(ok.stderr).toBe('');
  });

  it('evidence run without -- says where the command goes, and runs nothing', () => {
    const home = tempHome();
    const id = run(home, ['contract', 'init', '--json']).json.draft_id as string;
    const before = snapshot(home);
    const r = run(home, ['evidence', 'run', '--draft-id', id, 'touch', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^Error: unexpected argument "touch"\. The command to run goes after --\. Usage: handoff evidence run .* \[USAGE\]\n$/,
    );
    expect(snapshot(home)).toEqual(before);
  });

  it('handoff <topic> --help lists the topic verbs (exit 0); handoff --help lists the environment', () => {
    const home = tempHome();
    const topic = run(home, ['evidence', '--help']);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toContain('  evidence run ');
    expect(topic.stdout).not.toContain('contract init');
    const top = run(home, ['--help']);
    expect(top.code).toBe(0);
    for (const v of ['HANDOFF_HOME', 'HANDOFF_DB', 'HANDOFF_WORKSPACE', 'HANDOFF_DEBUG'])
      expect(top.stdout).toContain(v);
    // A topic alone prints the topic's help, exit 0, as --help does.
    const bare = run(home, ['evidence']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('  evidence run ');
  });
});
