/**
 * A receipt's freshness in real git repositories (with commits, without any commit) and outside git, as
 * `evidence show`, finalize's output and the row state it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeWith, freshHome, git, gitRepo, hf, newDraft, nodeCmd, receipt } from '../helpers/receipts-cli.js';

const show = (home: string, id: string) => hf(home, ['evidence', 'show', id, '--json']).json;
const claimOf = (rc: any) => ({ type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });

/** A git work tree with one staged file and no commit. */
function unbornRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-unborn-'));
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'app.js'), 'console.log(1)\n');
  git(dir, 'add', 'app.js');
  return dir;
}

describe('receipt freshness', () => {
  it('in a repository with commits: fresh, then stale after an edit (show and finalize)', () => {
    const repo = gitRepo();
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    expect(show(home, rc.receipt_id).freshness).toBe('fresh');
    writeFileSync(join(repo, 'app.js'), 'console.log(2)\n');
    expect(show(home, rc.receipt_id).freshness).toBe('stale');
    const r = closeWith(home, d, claimOf(rc), { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.json.errors.map((e: any) => e.code)).toEqual(['RECEIPT_STALE']);
  });

  it('in a work tree without commits: the receipt has a fingerprint, and a staged file changed again is stale', () => {
    const repo = unbornRepo();
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    expect(rc.tree_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(show(home, rc.receipt_id).freshness).toBe('fresh');
    writeFileSync(join(repo, 'app.js'), 'console.log(2)\n');
    git(repo, 'add', 'app.js');
    expect(show(home, rc.receipt_id).freshness).toBe('stale');
    const r = closeWith(home, d, claimOf(rc), { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.json.errors.map((e: any) => e.code)).toEqual(['RECEIPT_STALE']);
    // A new receipt of the same tree closes, recorded fresh.
    const again = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    const ok = closeWith(home, d, claimOf(again), { cwd: repo });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.receipts).toEqual([{ receipt_id: again.receipt_id, freshness: 'fresh' }]);
  });

  it('outside git: no fingerprint, and freshness "unknown" in show, in finalize output and on the row', () => {
    const outside = mkdtempSync(join(tmpdir(), 'handoff-nogit-'));
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0'), { cwd: outside }).receipt;
    expect(rc.tree_fingerprint).toBeNull();
    expect(show(home, rc.receipt_id).freshness).toBe('unknown');
    const human = hf(home, ['evidence', 'show', rc.receipt_id]);
    expect(human.stdout).toMatch(/^freshness: unknown$/m);
    const ok = closeWith(home, d, claimOf(rc), { cwd: outside });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.receipts).toEqual([{ receipt_id: rc.receipt_id, freshness: 'unknown' }]);
    const row = hf(home, ['contract', 'list', '--json']).json.handoffs[0];
    expect(row.receipt_freshness).toEqual([{ receipt_id: rc.receipt_id, freshness: 'unknown' }]);
  });
});
