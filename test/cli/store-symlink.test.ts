/**
 * A symlink at the default store file `<root>/handoff.db` (or its -wal/-shm) is refused, never followed
 * (DATA_ROOT_UNSAFE, exit 4): a planted link cannot send the store's reads and writes elsewhere. An explicit
 * HANDOFF_DB is the user's own choice and may be a link.
 */
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const ok = (home: string, args: string[], env: NodeJS.ProcessEnv = {}): any => {
  const r = run(home, [...args, '--json'], { env: { HANDOFF_WORKSPACE: 'ws', ...env } });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
};

/** A data root holding a real store (one brief) and a draft. */
function realRoot(): { home: string; draft: string } {
  const home = tempHome();
  ok(home, ['brief', 'add', 'pay']);
  return { home, draft: ok(home, ['contract', 'init']).draft_id as string };
}

describe('a symlinked store file at the default place', () => {
  it('handoff.db as a link: reads and writes are DATA_ROOT_UNSAFE (exit 4); neither side changes', () => {
    const elsewhere = realRoot();
    const home = tempHome();
    const draft = ok(home, ['contract', 'init']).draft_id as string;
    symlinkSync(join(elsewhere.home, 'handoff.db'), join(home, 'handoff.db'));
    const before = [snapshot(home), snapshot(elsewhere.home)];
    for (const args of [
      ['contract', 'list'],
      ['brief', 'list'],
      ['brief', 'add', 'other'],
      ['contract', 'set', 'agent_status.next_action', 'x', '--draft-id', draft],
      ['contract', 'finalize', '--draft-id', draft],
    ]) {
      const r = run(home, [...args, '--json'], { env: { HANDOFF_WORKSPACE: 'ws' } });
      expect([r.code, r.json?.code], `${args.join(' ')}: ${r.stdout}${r.stderr}`).toEqual([4, 'DATA_ROOT_UNSAFE']);
      expect(r.json.path).toBe(join(home, 'handoff.db'));
    }
    expect([snapshot(home), snapshot(elsewhere.home)]).toEqual(before);
  });

  it('a -wal or -shm link beside a real store is refused too; its target is never created', () => {
    for (const suffix of ['-wal', '-shm']) {
      const { home } = realRoot();
      const target = join(mkdtempSync(join(tmpdir(), 'handoff-link-')), 'planted');
      symlinkSync(target, join(home, `handoff.db${suffix}`));
      const before = snapshot(home);
      const r = run(home, ['brief', 'add', 'other', '--json'], { env: { HANDOFF_WORKSPACE: 'ws' } });
      expect([r.code, r.json?.code, r.json?.path], r.stdout + r.stderr).toEqual([
        4,
        'DATA_ROOT_UNSAFE',
        join(home, `handoff.db${suffix}`),
      ]);
      expect(existsSync(target)).toBe(false);
      expect(snapshot(home)).toEqual(before);
    }
  });

  it('an explicit HANDOFF_DB may be a link', () => {
    const elsewhere = realRoot();
    const home = tempHome();
    const link = join(home, 'store-link.db');
    symlinkSync(join(elsewhere.home, 'handoff.db'), link);
    expect(ok(home, ['brief', 'list'], { HANDOFF_DB: link }).briefs.map((b: { name: string }) => b.name)).toEqual([
      'pay',
    ]);
    ok(home, ['brief', 'add', 'second'], { HANDOFF_DB: link });
    expect(ok(elsewhere.home, ['brief', 'list']).count).toBe(2);
  });
});
