/**
 * Draft-file behaviour pinned where a mutation audit found it unguarded.
 * Each test has its own HANDOFF_HOME.
 */
import { linkSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { draftPathOf, draftsDirOf, initDraft, readDraftJson } from '../helpers/drafts.js';

describe('draft files (mutation audit)', () => {
  it('a write replaces the draft by rename: a new inode, the old bytes untouched, mode 0600, no temp file left', () => {
    const home = tempHome();
    const id = initDraft(home);
    const path = draftPathOf(home, id);
    const oldText = readFileSync(path, 'utf8');
    // A second name for the old file: an in-place write would change what it shows, a rename never does.
    const oldLink = join(home, 'old-draft-link');
    linkSync(path, oldLink);
    const oldIno = statSync(path).ino;

    const r = run(home, ['contract', 'set', 'report_prose', 'rewritten', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(statSync(path).ino).not.toBe(oldIno);
    expect(readFileSync(oldLink, 'utf8')).toBe(oldText);
    expect(readDraftJson(home, id).report_prose).toBe('rewritten');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(draftsDirOf(home)).sort()).toEqual([`${id}.json`, `${id}.meta.json`]);
  });
});
