/**
 * The README's Quickstart runs as written: its fenced block is executed by bash, unchanged, in the repository (the
 * alias needs $PWD there), with aliases enabled as in an interactive shell. The block makes its own HANDOFF_HOME.
 * Exactly one line is meant to be rejected (the one followed by a `# -> Rejected: CODES` comment), with exactly those
 * codes; nothing else may fail, and the turn ends finalized COMPLETE. No command of the README runs the project's own
 * test suite.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, REPO } from '../helpers/cli.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The fenced block under `## Quickstart`. */
function quickstartBlock(): string {
  const section = README.slice(README.indexOf('## Quickstart'));
  const m = /```bash\n([^]*?)```/.exec(section);
  if (m === null) throw new Error('README has no quickstart code block');
  return m[1];
}

describe('README quickstart', () => {
  it('runs as written in bash', () => {
    const block = quickstartBlock();
    const expected = /^#\s+-> Rejected: ([A-Z_, ]+?) \(/m.exec(block)?.[1].split(', ');
    expect(expected).toEqual(['COMPLETE_SHAPE', 'VERIFICATION_RESULT']);
    const script = join(mkdtempSync(join(tmpdir(), 'quickstart-')), 'quickstart.sh');
    // Print the data root at the end, so the test can look at what the block wrote.
    writeFileSync(script, `${block}\necho "HOME_USED=$HANDOFF_HOME"\n`);
    const r = spawnSync('bash', ['-O', 'expand_aliases', script], {
      cwd: REPO,
      env: baseEnv(undefined, { HANDOFF_HOME: undefined }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const what = `${r.stdout}\n${r.stderr}`;
    expect(r.status, what).toBe(0);
    const rejections = r.stderr.split('\n').filter((l) => l.startsWith('Rejected:') || l.startsWith('Error:'));
    expect(rejections, what).toHaveLength(1);
    const codes = [...r.stderr.matchAll(/^ {2}([A-Z_]+) \[/gm)].map((m) => m[1]);
    expect(codes, what).toEqual(expected);
    expect(r.stderr, what).toMatch(/Receipt R-[0-9a-f]{16} recorded: exit=0 outcome=pass/);
    expect(r.stdout, what).toMatch(/finalized \(handoff_id=1, state=COMPLETE\)/);
    const home = /^HOME_USED=(\S+)$/m.exec(r.stdout)?.[1];
    expect(home).toMatch(/^\/.+/);
    expect(home).not.toBe(REPO);
  });

  it("no command shown in the README runs the project's own test suite", () => {
    const blocks = [...README.matchAll(/```bash\n([^]*?)```/g)].map((m) => m[1]);
    for (const b of blocks)
      expect(b).not.toMatch(/--\s+npm\s+test|evidence run[^\n]*npm test|verification[^\n]*npm test/);
  });
});
