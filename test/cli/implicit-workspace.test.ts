/**
 * A call without --draft-id or --agent-id picks the newest draft born in the current workspace, never one of another
 * workspace, and says which one it used (stderr notice; `"resolved": "newest_in_workspace"` in --json).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome, type RunResult } from '../helpers/cli.js';

function folder(name: string): string {
  const d = join(mkdtempSync(join(tmpdir(), 'cwd-')), name);
  mkdirSync(d);
  return d;
}

const at = (home: string, cwd: string, args: string[], env: Record<string, string> = {}): RunResult =>
  run(home, args, { cwd, env });

function initIn(home: string, cwd: string): string {
  const r = at(home, cwd, ['contract', 'init', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json.draft_id as string;
}

const NOTICE = /^\[RESOLVED\] (\S+): the newest draft of workspace "([^"]+)"/m;

describe('an implicit draft stays in its workspace', () => {
  it("a write in project B never lands in project A's draft: DRAFT_NOT_FOUND naming where drafts are, nothing written", () => {
    const home = tempHome();
    const a = folder('projA');
    const b = folder('projB');
    const idA = initIn(home, a);
    initIn(home, folder('projC'));
    initIn(home, folder('projC'));
    const before = snapshot(home);
    const r = at(home, b, ['contract', 'set', 'work_phase', 'executing', '--json']);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({
      code: 'DRAFT_NOT_FOUND',
      workspace: 'projB',
      other_workspaces: { projA: 1, projC: 2 },
    });
    expect(r.json.error).toMatch(/--draft-id/);
    expect(snapshot(home)).toEqual(before);
    const human = at(home, b, ['contract', 'view']);
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/"projA": 1/);
    expect(human.stderr).toMatch(/"projC": 2/);
    expect(human.stderr.trimEnd()).toMatch(/\[DRAFT_NOT_FOUND\]$/);
    // --draft-id still reaches it from anywhere.
    expect(at(home, b, ['contract', 'set', 'work_phase', 'executing', '--draft-id', idA]).code).toBe(0);
  });

  it('each workspace resolves its own draft (no ambiguity across workspaces), and says so', () => {
    const home = tempHome();
    const a = folder('projA');
    const b = folder('projB');
    const idA = initIn(home, a);
    const idB = initIn(home, b);
    for (const [cwd, id, ws] of [
      [a, idA, 'projA'],
      [b, idB, 'projB'],
    ] as const) {
      const set = at(home, cwd, ['contract', 'set', 'work_phase', 'executing', '--json']);
      expect(set.code, set.stdout).toBe(0);
      expect(set.json).toMatchObject({ draft_id: id, resolved: 'newest_in_workspace' });
      expect(set.stderr.match(NOTICE)?.slice(1)).toEqual([id, ws]);
      const view = at(home, cwd, ['contract', 'view', '--json']);
      expect(view.json).toMatchObject({ draft_id: id, resolved: 'newest_in_workspace' });
      expect(view.stderr).toMatch(NOTICE);
      const validate = at(home, cwd, ['contract', 'validate', '--json']);
      expect(validate.json).toMatchObject({ draft_id: id, resolved: 'newest_in_workspace' });
      expect(validate.stderr).toMatch(NOTICE);
    }
    // An explicit id resolves nothing: no notice, no key.
    const explicit = at(home, a, ['contract', 'view', '--draft-id', idB, '--json']);
    expect(explicit.json.resolved).toBeUndefined();
    expect(explicit.stderr).not.toMatch(/\[RESOLVED\]/);
  });

  it("HANDOFF_WORKSPACE and a verb's --workspace name the current workspace", () => {
    const home = tempHome();
    const idA = initIn(home, folder('projA'));
    const b = folder('projB');
    const viaEnv = at(home, b, ['contract', 'view', '--json'], { HANDOFF_WORKSPACE: 'projA' });
    expect(viaEnv.json).toMatchObject({ draft_id: idA, resolved: 'newest_in_workspace' });
    at(home, b, ['contract', 'fill', '--draft-id', idA, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']);
    expect(at(home, b, ['contract', 'finalize', '--json']).code).toBe(3);
    const fin = at(home, b, ['contract', 'finalize', '--workspace', 'projA', '--json']);
    expect(fin.code, fin.stdout).toBe(0);
    expect(fin.json).toMatchObject({ draft_id: idA, workspace: 'projA', resolved: 'newest_in_workspace' });
    expect(fin.stderr).toMatch(NOTICE);
  });

  it("a draft without a birth record belongs to its row's workspace; with no row, to every workspace", () => {
    const home = tempHome();
    const a = folder('projA');
    const b = folder('projB');
    const rowed = initIn(home, a);
    at(home, a, ['contract', 'fill', '--draft-id', rowed, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']);
    expect(at(home, a, ['contract', 'finalize', '--draft-id', rowed]).code).toBe(0);
    rmSync(join(home, 'drafts', `${rowed}.meta.json`));
    expect(at(home, b, ['contract', 'view', '--json']).json).toMatchObject({
      code: 'DRAFT_NOT_FOUND',
      other_workspaces: { projA: 1 },
    });
    expect(at(home, a, ['contract', 'view', '--json']).json).toMatchObject({
      draft_id: rowed,
      resolved: 'newest_in_workspace',
    });

    const home2 = tempHome();
    const loose = initIn(home2, a);
    rmSync(join(home2, 'drafts', `${loose}.meta.json`));
    expect(at(home2, b, ['contract', 'view', '--json']).json).toMatchObject({
      draft_id: loose,
      resolved: 'newest_in_workspace',
    });
  });

  it('an unreadable birth record is skipped and counted, never guessed at', () => {
    const home = tempHome();
    const a = folder('projA');
    const good = initIn(home, a);
    const bad = initIn(home, a);
    writeFileSync(join(home, 'drafts', `${bad}.meta.json`), 'not json');
    const r = at(home, a, ['contract', 'view', '--json']);
    expect(r.json).toMatchObject({ draft_id: good, resolved: 'newest_in_workspace' });
    expect(r.stderr).toMatch(/1 draft with an unreadable birth record skipped/);
    writeFileSync(join(home, 'drafts', `${good}.meta.json`), '{}');
    const none = at(home, a, ['contract', 'view', '--json']);
    expect(none.code).toBe(3);
    expect(none.json).toMatchObject({ code: 'DRAFT_NOT_FOUND', skipped_unreadable: 2 });
  });

  it('evidence run without an id resolves in the workspace and reports it', () => {
    const home = tempHome();
    const a = folder('projA');
    const id = initIn(home, a);
    const r = at(home, a, ['evidence', 'run', '--json', '--', 'node', '-e', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', resolved: 'newest_in_workspace', receipt: { contract_id: id } });
    expect(r.stderr).toMatch(NOTICE);
    const other = at(home, folder('projB'), ['evidence', 'run', '--json', '--', 'node', '-e', '0']);
    expect(other.code).toBe(3);
    expect(other.json.code).toBe('DRAFT_NOT_FOUND');
    expect(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8')).toContain('node -e 0');
  });

  it('two repositories of the same folder name never share a draft: the key is the root, not the name', () => {
    const home = tempHome();
    const one = folder('app');
    const two = folder('app');
    mkdirSync(join(one, '.git'));
    writeFileSync(join(one, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
    writeFileSync(join(two, '.git'), 'gitdir: elsewhere\n'); // a worktree's .git is a file
    mkdirSync(join(two, 'src'));
    const idOne = initIn(home, one);
    expect(JSON.parse(readFileSync(join(home, 'drafts', `${idOne}.meta.json`), 'utf8'))).toEqual({
      workspace: 'app',
      workspace_root: realpathSync(one),
      claim_token_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const before = snapshot(home);
    const r = at(home, join(two, 'src'), ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--json']);
    expect(r.code, r.stdout).toBe(3);
    expect(r.json).toMatchObject({ code: 'DRAFT_NOT_FOUND', workspace: 'app' });
    expect(r.json.other_workspaces).toEqual({ [realpathSync(one)]: 1 });
    expect(snapshot(home)).toEqual(before);
    // From a sub-folder of its own repository the draft still resolves.
    mkdirSync(join(one, 'lib'));
    const own = at(home, join(one, 'lib'), ['contract', 'view', '--json']);
    expect(own.json).toMatchObject({ draft_id: idOne, resolved: 'newest_in_workspace' });
    // HANDOFF_WORKSPACE names the workspace: the name decides again.
    const named = at(home, two, ['contract', 'view', '--json'], { HANDOFF_WORKSPACE: 'app' });
    expect(named.json).toMatchObject({ draft_id: idOne, resolved: 'newest_in_workspace' });
  });

  it('a draft recorded under a name only (before roots were recorded) keeps resolving by name', () => {
    const home = tempHome();
    const one = folder('app');
    const id = initIn(home, one);
    writeFileSync(join(home, 'drafts', `${id}.meta.json`), '{"workspace":"app"}\n');
    const r = at(home, folder('app'), ['contract', 'view', '--json']);
    expect(r.json).toMatchObject({ draft_id: id, resolved: 'newest_in_workspace' });
  });

  it('a birth record whose workspace_root is not an absolute path is unreadable, skipped, never guessed at', () => {
    const home = tempHome();
    const one = folder('app');
    const id = initIn(home, one);
    writeFileSync(join(home, 'drafts', `${id}.meta.json`), '{"workspace":"app","workspace_root":"relative/app"}\n');
    const r = at(home, one, ['contract', 'view', '--json']);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ code: 'DRAFT_NOT_FOUND', skipped_unreadable: 1 });
  });

  it('briefs and evidence warn when one workspace name is used from two roots, and not when named', () => {
    const home = tempHome();
    const one = folder('app');
    const two = folder('app');
    initIn(home, one);
    const WARN = /^\[WORKSPACE TWO ROOTS\] workspace "app" is used from "([^"]+)" and from "([^"]+)"/m;
    expect(at(home, one, ['brief', 'list']).stderr).not.toMatch(WARN);
    const brief = at(home, two, ['brief', 'add', 'pay', '--ac', 'AC-1=works', '--json']);
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stderr.match(WARN)?.slice(1)).toEqual([realpathSync(two), realpathSync(one)]);
    expect(at(home, two, ['evidence', 'list', '--brief', 'pay']).stderr).toMatch(WARN);
    expect(at(home, two, ['brief', 'list'], { HANDOFF_WORKSPACE: 'app' }).stderr).not.toMatch(WARN);
  });
});
