/**
 * The data root rules (the data root's own folders are real folders; a draft file is never a symlink) and creation (an
 * unusable data root fails at once: DATA_ROOT_UNUSABLE, folders created one level at a time).
 */
import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft, readDraftJson } from '../helpers/drafts.js';

import { expectCleanFailure, mintDraft, runJson } from '../helpers/store-cli.js';

const elsewhere = (): string => mkdtempSync(join(tmpdir(), 'handoff-elsewhere-'));

describe('an unusable data root fails fast', () => {
  it.each([
    ['under /proc', () => '/proc/nonexist/handoff'],
    ['below a regular file', () => join(tempHome(), 'a-file', 'root')],
  ])('a data root %s: DATA_ROOT_UNUSABLE, exit 4, for every verb that would create it', (_what, rootOf) => {
    const root = rootOf();
    if (root.includes('a-file')) writeFileSync(join(root, '..'), 'x');
    for (const args of [
      ['contract', 'init'],
      ['contract', 'set', 'report_prose', 'x', '--draft-id', mintDraft()],
      ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws'],
      ['approval', 'request', '--content', 'x'],
      ['brief', 'add', 'b', '--workspace', 'ws'],
    ]) {
      const r = run(root, [...args, '--json'], { cwd: tmpdir() });
      expectCleanFailure(r, 4, 'DATA_ROOT_UNUSABLE');
      expect(r.json.path).toBe(root);
    }
  });

  it('a missing data root several levels deep is created one level at a time (0700)', () => {
    const root = join(tempHome(), 'a', 'b', 'c');
    const r = run(root, ['contract', 'init', '--json'], { cwd: tmpdir() });
    expect(r.code, r.stdout).toBe(0);
    const id = r.json.draft_id as string;
    expect(readDraftJson(root, id).agent_status.agent_id).toBe(id.split('.')[0]);
  });
});

describe("the data root's own folders must be real folders", () => {
  it('a symlinked drafts/: every draft verb is DATA_ROOT_UNSAFE (exit 4), nothing written or deleted there', () => {
    const home = tempHome();
    const target = elsewhere();
    const id = mintDraft();
    writeFileSync(join(target, `${id}.json`), '{"old": true}\n');
    const old = (Date.now() - 30 * 86_400_000) / 1000;
    utimesSync(join(target, `${id}.json`), old, old);
    symlinkSync(target, join(home, 'drafts'));
    const before = { home: snapshot(home), target: snapshot(target) };
    for (const args of [
      ['contract', 'init'],
      ['contract', 'set', 'report_prose', 'x', '--draft-id', id],
      ['contract', 'add', 'evidence_report.commands_run', 'x'],
      ['contract', 'view', '--draft-id', id],
      ['contract', 'validate', '--draft-id', id],
      ['contract', 'finalize', '--draft-id', id],
      ['contract', 'dispatch', '--goal', 'g', '--workspace', 'ws'],
      ['contract', 'gc'],
    ]) {
      expectCleanFailure(runJson(home, args), 4, 'DATA_ROOT_UNSAFE');
    }
    expect({ home: snapshot(home), target: snapshot(target) }).toEqual(before);
  });

  it('a symlinked evidence/: evidence add of a blob is DATA_ROOT_UNSAFE (exit 4), nothing written there', () => {
    const home = tempHome();
    expect(runJson(home, ['brief', 'add', 'b', '--workspace', 'ws']).code).toBe(0);
    const target = elsewhere();
    symlinkSync(target, join(home, 'evidence'));
    const before = { home: snapshot(home), target: snapshot(target) };
    const r = runJson(home, [
      'evidence',
      'add',
      '--brief',
      'b',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'x'.repeat(5000),
      '--workspace',
      'ws',
    ]);
    expectCleanFailure(r, 4, 'DATA_ROOT_UNSAFE');
    expect({ home: snapshot(home), target: snapshot(target) }).toEqual(before);
  });

  it('a symlinked tmp/: evidence run is DATA_ROOT_UNSAFE (exit 4) before the command is started', () => {
    const home = tempHome();
    const id = initDraft(home);
    const target = elsewhere();
    symlinkSync(target, join(home, 'tmp'));
    const marker = join(home, 'ran');
    const before = { home: snapshot(home), target: snapshot(target) };
    const r = run(home, ['evidence', 'run', '--json', '--draft-id', id, '--', 'touch', marker]);
    expectCleanFailure(r, 4, 'DATA_ROOT_UNSAFE');
    expect({ home: snapshot(home), target: snapshot(target) }).toEqual(before);
  });

  it('a regular file in place of drafts/ is DATA_ROOT_UNSAFE too', () => {
    const home = tempHome();
    writeFileSync(join(home, 'drafts'), 'not a folder');
    const before = snapshot(home);
    expectCleanFailure(runJson(home, ['contract', 'init']), 4, 'DATA_ROOT_UNSAFE');
    expect(snapshot(home)).toEqual(before);
  });

  it('the data root itself may be a symlink (move data by moving the root)', () => {
    const real = elsewhere();
    const link = join(tempHome(), 'root-link');
    symlinkSync(real, link);
    const id = initDraft(link);
    expect(snapshot(real)[`drafts/${id}.json`]).toBeDefined();
  });

  it('a draft file that is a symlink is DRAFT_UNREADABLE (exit 3) for readers and writers, never followed', () => {
    const home = tempHome();
    const real = initDraft(home);
    const target = join(elsewhere(), 'draft.json');
    writeFileSync(target, JSON.stringify(readDraftJson(home, real)));
    const id = mintDraft(real.split('.')[0]);
    mkdirSync(join(home, 'drafts'), { recursive: true });
    symlinkSync(target, join(home, 'drafts', `${id}.json`));
    const before = snapshot(home);
    for (const args of [
      ['contract', 'view', '--draft-id', id],
      ['contract', 'validate', '--draft-id', id],
      ['contract', 'set', 'report_prose', 'x', '--draft-id', id],
    ]) {
      const r = runJson(home, args);
      expectCleanFailure(r, 3, 'DRAFT_UNREADABLE');
      expect(r.json.error).toMatch(/symbolic link/);
    }
    expect(snapshot(home)).toEqual(before);
  });
});
