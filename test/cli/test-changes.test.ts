/**
 * Tests unweakened, or declared, in real git repositories: dispatch takes the base in
 * --workdir, finalize detects the changed test files once and stores them, a COMPLETE close declares each modified or
 * deleted one (TESTS_CHANGED_UNDECLARED) and --protect-tests refuses them (TESTS_PROTECTED); the row, list --json,
 * chain and the handoff statement carry what was detected beside what was declared.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome, type RunResult } from '../helpers/cli.js';
import { git } from '../helpers/receipts-cli.js';
import { COMPLETE_PATCH, rawStore, row } from '../helpers/gate.js';
import { check } from '../helpers/schemas/schemas.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const TEST_A = "import { it, expect } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\n";
const WEAK_A = "import { it } from 'vitest';\nit.skip('adds', () => {});\n";
const PKG = (test: string): string => `${JSON.stringify({ name: 'p', scripts: { test } }, null, 2)}\n`;

/** A repository with one commit: app code, a test under test/, package.json with scripts.test. */
function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-tests-repo-'));
  git(dir, 'init', '-q');
  mkdirSync(join(dir, 'test'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'add.js'), 'export const add = (a, b) => a + b;\n');
  writeFileSync(join(dir, 'test', 'add.test.js'), TEST_A);
  writeFileSync(join(dir, 'package.json'), PKG('vitest run'));
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

const hf = (home: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): RunResult =>
  run(home, args, { cwd: opts.cwd, env: { HANDOFF_WORKSPACE: 'ws', ...opts.env } });

function dispatch(home: string, flags: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): any {
  const r = hf(home, ['contract', 'dispatch', '--goal', 'make the tests pass', ...flags, '--json'], opts);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

/** Fills a close in `state` with the verification (plus `extra` in it) and finalizes; returns the finalize result. */
function close(home: string, cid: string, extra: Record<string, unknown> = {}, state = 'COMPLETE'): RunResult {
  const patch = {
    ...COMPLETE_PATCH,
    evidence_report: { verification: { ...COMPLETE_PATCH.evidence_report.verification, ...extra } },
  };
  const fill = hf(home, ['contract', 'fill', '--draft-id', cid, '--json', JSON.stringify(patch)]);
  expect(fill.code, fill.stdout + fill.stderr).toBe(0);
  const set = hf(home, ['contract', 'set', 'agent_status.agent_state', state, '--draft-id', cid]);
  expect(set.code, set.stdout + set.stderr).toBe(0);
  return hf(home, ['contract', 'finalize', '--draft-id', cid, '--json']);
}

const codes = (r: RunResult): [string, string][] => (r.json?.errors ?? []).map((e: any) => [e.code, e.detail]);
const listed = (home: string, cid: string): any =>
  hf(home, ['contract', 'list', '--json']).json.handoffs.find((h: any) => h.contract_id === cid);

describe('a weakened test', () => {
  it('undeclared: COMPLETE is refused with TESTS_CHANGED_UNDECLARED (exit 1) and nothing is written', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    expect(d.test_base).toMatchObject({
      workdir: realpathSync(dir),
      git_head: git(dir, 'rev-parse', 'HEAD').trim(),
      protect_tests: false,
      test_files: 2, // test/add.test.js and package.json#scripts.test
    });
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A);
    const fill = hf(home, ['contract', 'fill', '--draft-id', d.contract_id, '--json', JSON.stringify(COMPLETE_PATCH)]);
    expect(fill.code).toBe(0);
    expect(
      hf(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', d.contract_id]).code,
    ).toBe(0);
    const before = snapshot(home);
    const r = hf(home, ['contract', 'finalize', '--draft-id', d.contract_id, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', codes: ['TESTS_CHANGED_UNDECLARED'] });
    expect(codes(r)).toEqual([['TESTS_CHANGED_UNDECLARED', expect.stringContaining('test/add.test.js was modified')]]);
    expect(r.json.errors[0].path).toBe('evidence_report.verification.test_changes');
    expect(snapshot(home)).toEqual(before);
    expect(row(home, d.contract_id)).toMatchObject({ agent_state: 'DISPATCHED', test_changes_json: null });
  });

  it('declared: COMPLETE closes, and the row, list --json, chain and the handoff statement carry both', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A);
    const declared = [{ path: 'test/add.test.js', reason: 'the case moved to an integration suite' }];
    const r = close(home, d.contract_id, { test_changes: declared });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.agent_state).toBe('COMPLETE');
    const detected = [
      { path: 'test/add.test.js', change: 'modified', old_sha256: sha(TEST_A), new_sha256: sha(WEAK_A) },
    ];
    expect(JSON.parse(row(home, d.contract_id).test_changes_json)).toEqual({ detected, declared });
    expect(listed(home, d.contract_id)).toMatchObject({
      test_changes: detected,
      test_changes_declared: declared,
      test_base: { workdir: realpathSync(dir), protect_tests: false, test_files: 2 },
    });
    const chain = hf(home, ['contract', 'chain', '--contract-id', d.contract_id, '--json']);
    expect(chain.json.chain[0]).toMatchObject({ test_changes: detected, test_changes_declared: declared });
    const db = rawStore(home);
    try {
      const st = db
        .prepare("SELECT payload FROM attestations WHERE kind = 'handoff' AND subject_id = ?")
        .get(d.contract_id) as { payload: string };
      expect(JSON.parse(st.payload).predicate.test_changes).toEqual({ detected, declared });
    } finally {
      db.close();
    }
  });

  it('declared under --protect-tests: TESTS_PROTECTED (exit 1); a non-COMPLETE close still stores the detection', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir, '--protect-tests']);
    expect(d.test_base.protect_tests).toBe(true);
    rmSync(join(dir, 'test', 'add.test.js'));
    const declared = [{ path: 'test/add.test.js', reason: 'flaky' }];
    const r = close(home, d.contract_id, { test_changes: declared });
    expect(r.code).toBe(1);
    expect(codes(r)).toEqual([['TESTS_PROTECTED', expect.stringContaining('test/add.test.js was deleted')]]);
    expect(row(home, d.contract_id).agent_state).toBe('DISPATCHED');
    const nv = close(home, d.contract_id, { test_changes: declared }, 'NEEDS_VERIFICATION');
    expect(nv.code, nv.stdout + nv.stderr).toBe(0);
    expect(listed(home, d.contract_id).test_changes).toEqual([
      { path: 'test/add.test.js', change: 'deleted', old_sha256: sha(TEST_A), new_sha256: null },
    ]);
  });
});

describe('what counts as a test change', () => {
  it('an added test is only listed: COMPLETE closes without a declaration', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    const added = "it('subtracts', () => {});\n";
    writeFileSync(join(dir, 'src', 'sub.spec.ts'), added);
    writeFileSync(join(dir, 'src', 'add.js'), 'export const add = (a, b) => b + a;\n'); // not a test file
    const r = close(home, d.contract_id);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(listed(home, d.contract_id)).toMatchObject({
      agent_state: 'COMPLETE',
      test_changes: [{ path: 'src/sub.spec.ts', change: 'added', old_sha256: null, new_sha256: sha(added) }],
      test_changes_declared: null,
    });
  });

  it('a changed package.json scripts.test is a modified test file; the rest of package.json is not', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    writeFileSync(join(dir, 'package.json'), PKG('vitest run --passWithNoTests || true'));
    const r = close(home, d.contract_id);
    expect(r.code).toBe(1);
    expect(codes(r)).toEqual([
      ['TESTS_CHANGED_UNDECLARED', expect.stringContaining('package.json#scripts.test was modified')],
    ]);

    const home2 = tempHome();
    const dir2 = repo();
    const d2 = dispatch(home2, ['--workdir', dir2]);
    writeFileSync(join(dir2, 'package.json'), PKG('vitest run').replace('"name": "p"', '"name": "q"'));
    const ok = close(home2, d2.contract_id);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(listed(home2, d2.contract_id).test_changes).toEqual([]);
  });

  it("pyproject.toml's [tool.pytest.ini_options] counts; a change elsewhere in the file does not", () => {
    const home = tempHome();
    const dir = repo();
    const toml = (addopts: string, version: string): string =>
      `[project]\nname = "p"\nversion = "${version}"\n\n[tool.pytest.ini_options]\naddopts = "${addopts}"\n`;
    writeFileSync(join(dir, 'pyproject.toml'), toml('-q', '1'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'py');
    const d1 = dispatch(home, ['--workdir', dir]);
    writeFileSync(join(dir, 'pyproject.toml'), toml('-q', '2'));
    expect(close(home, d1.contract_id).code).toBe(0);
    expect(listed(home, d1.contract_id).test_changes).toEqual([]);
    const d = dispatch(home, ['--workdir', dir]);
    writeFileSync(join(dir, 'pyproject.toml'), toml('-q --deselect tests/test_x.py', '2'));
    const r = close(home, d.contract_id);
    expect(codes(r)).toEqual([
      ['TESTS_CHANGED_UNDECLARED', expect.stringContaining('pyproject.toml#tool.pytest.ini_options was modified')],
    ]);
  });

  it('--tests replaces the default globs; HANDOFF_TEST_GLOBS applies when --tests is absent', () => {
    const home = tempHome();
    const dir = repo();
    writeFileSync(join(dir, 'checks.txt'), 'check 1\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'checks');
    const byFlag = dispatch(home, ['--workdir', dir, '--tests', '*.txt']);
    expect(byFlag.test_base).toMatchObject({ globs: ['*.txt'], test_files: 2 });
    const byEnv = dispatch(home, ['--workdir', dir], { env: { HANDOFF_TEST_GLOBS: 'src/**, *.txt' } });
    expect(byEnv.test_base).toMatchObject({ globs: ['src/**', '*.txt'] });
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A); // not a test under either list
    writeFileSync(join(dir, 'checks.txt'), 'check 2\n');
    expect(codes(close(home, byFlag.contract_id))).toEqual([
      ['TESTS_CHANGED_UNDECLARED', expect.stringContaining('checks.txt was modified')],
    ]);
  });

  it('a work tree whose .git was removed after dispatch is still compared on the base paths', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A);
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    const r = close(home, d.contract_id);
    // Only the weakened file: the untouched scripts.test is not reported deleted for want of a listing.
    expect(codes(r)).toEqual([['TESTS_CHANGED_UNDECLARED', expect.stringContaining('test/add.test.js was modified')]]);
  });

  it('outside git the base is unknown and the row says test_changes: "unknown"', () => {
    const home = tempHome();
    const plain = mkdtempSync(join(tmpdir(), 'handoff-plain-'));
    writeFileSync(join(plain, 'a.test.js'), TEST_A);
    const d = dispatch(home, ['--workdir', plain]);
    expect(d.test_base).toMatchObject({ git_head: null, tree_fingerprint: null, test_files: 'unknown' });
    writeFileSync(join(plain, 'a.test.js'), WEAK_A);
    const r = close(home, d.contract_id);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(listed(home, d.contract_id).test_changes).toBe('unknown');
  });
});

describe('--workdir', () => {
  it("a worktree other than the dispatcher's directory: its tests are the base, the dispatcher's checkout is not", () => {
    const home = tempHome();
    const main = repo();
    const wt = join(mkdtempSync(join(tmpdir(), 'handoff-wt-')), 'feature');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const d = dispatch(home, ['--workdir', wt], { cwd: main });
    expect(d.test_base.workdir).toBe(realpathSync(wt));
    writeFileSync(join(main, 'test', 'add.test.js'), WEAK_A); // the dispatcher's checkout: not this turn's tree
    expect(close(home, d.contract_id, {}, 'NEEDS_VERIFICATION').code).toBe(0);
    expect(listed(home, d.contract_id).test_changes).toEqual([]);

    const d2 = dispatch(home, ['--workdir', wt], { cwd: main });
    writeFileSync(join(wt, 'test', 'add.test.js'), WEAK_A);
    const r = close(home, d2.contract_id);
    expect(codes(r)).toEqual([['TESTS_CHANGED_UNDECLARED', expect.stringContaining('test/add.test.js')]]);
  });

  it('is validated before anything is written: missing or not a directory is CWD_NOT_FOUND (exit 2)', () => {
    const home = tempHome();
    const dir = repo();
    for (const bad of [join(dir, 'nope'), join(dir, 'package.json'), '']) {
      const before = snapshot(home);
      const r = hf(home, ['contract', 'dispatch', '--goal', 'g', '--workdir', bad, '--json']);
      expect(r.code, bad).toBe(2);
      expect(r.json.code).toBe('CWD_NOT_FOUND');
      expect(snapshot(home)).toEqual(before);
    }
  });

  it('globs that leave the work directory or hold controls are usage errors (exit 2)', () => {
    const home = tempHome();
    for (const [args, env] of [
      [['--tests', '../x/**'], {}],
      [['--tests', '/etc/**'], {}],
      [['--tests', 'a\u0007b'], {}],
      [[], { HANDOFF_TEST_GLOBS: 'ok/**,../up' }],
    ] as [string[], Record<string, string>][]) {
      const r = hf(home, ['contract', 'dispatch', '--goal', 'g', ...args, '--json'], { env });
      expect(r.code, JSON.stringify(args)).toBe(2);
      expect(r.json.code).toBe('USAGE');
    }
  });
});

describe('declarations and continuations', () => {
  it('a malformed test_changes is TEST_CHANGES_SHAPE (exit 1), with or without a base', () => {
    const home = tempHome();
    const dir = repo();
    for (const bad of [
      'test/add.test.js',
      [{ path: 'test/add.test.js' }],
      [{ path: '', reason: 'r' }],
      [{ path: 'p', reason: 'r', extra: 1 }],
    ]) {
      const d = dispatch(home, ['--workdir', dir]);
      const r = close(home, d.contract_id, { test_changes: bad });
      expect(r.code, JSON.stringify(bad)).toBe(1);
      expect(r.json.codes).toEqual(['TEST_CHANGES_SHAPE']);
    }
    const init = hf(home, ['contract', 'init', '--json']).json.draft_id as string;
    expect(close(home, init, { test_changes: {} }).json.codes).toEqual(['TEST_CHANGES_SHAPE']);
  });

  it("a continuation compares against the dispatch's base and takes it on its row", () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    expect(close(home, d.contract_id, {}, 'NEEDS_INPUT').code).toBe(0);
    const add = hf(home, [
      'contract',
      'add',
      'evidence_report.open_gaps',
      'more',
      '--draft-id',
      d.contract_id,
      '--json',
    ]);
    const next = add.json.continuation.contract_id as string;
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A);
    expect(codes(close(home, next))).toEqual([
      ['TESTS_CHANGED_UNDECLARED', expect.stringContaining('test/add.test.js')],
    ]);
    const ok = close(home, next, { test_changes: [{ path: 'test/add.test.js', reason: 'r' }] });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(listed(home, next)).toMatchObject({
      test_base: { workdir: realpathSync(dir) },
      test_changes: [{ path: 'test/add.test.js', change: 'modified' }],
    });
  });
});

describe('the published schemas', () => {
  it('hold the real outputs with test changes, and refuse a detection or a declaration out of shape', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir, '--protect-tests']);
    expect(check('contract-dispatch', d).why).toBe('');
    writeFileSync(join(dir, 'test', 'add.test.js'), WEAK_A);
    writeFileSync(join(dir, 'test', 'new.test.js'), TEST_A);
    const refused = close(home, d.contract_id);
    expect(check('validation-rejection', refused.json).why).toBe('');
    expect(
      close(home, d.contract_id, { test_changes: [{ path: 'test/add.test.js', reason: 'r' }] }, 'BLOCKED').code,
    ).toBe(0);
    const list = hf(home, ['contract', 'list', '--json']).json;
    const chain = hf(home, ['contract', 'chain', '--contract-id', d.contract_id, '--json']).json;
    expect(check('contract-list', list).why).toBe('');
    expect(check('contract-chain', chain).why).toBe('');
    expect(list.handoffs[0].test_changes.map((c: any) => c.change)).toEqual(['modified', 'added']);
    const wrong = structuredClone(list);
    wrong.handoffs[0].test_changes[0].change = 'weakened';
    expect(check('contract-list', wrong).ok).toBe(false);
    const undeclared = structuredClone(chain);
    undeclared.chain[0].test_changes_declared = [{ path: 'test/add.test.js' }];
    expect(check('contract-chain', undeclared).ok).toBe(false);
  });
});

describe('the stop gate reads what finalize stored', () => {
  it('a COMPLETE row whose stored detection is undeclared is blocked, never excused', () => {
    const home = tempHome();
    const dir = repo();
    const d = dispatch(home, ['--workdir', dir]);
    const r = close(home, d.contract_id);
    expect(r.code).toBe(0);
    const gateOf = () =>
      run(home, ['contract', 'gate', '--draft-id', d.contract_id, '--stop-reason', 'end_turn', '--json'], {
        env: { HANDOFF_WORKSPACE: 'ws' },
      });
    expect(gateOf().json).toMatchObject({ decision: 'allow', codes: [] });
    // A row written behind finalize's back (its triggers dropped): the stored detection alone decides.
    const db = rawStore(home);
    try {
      db.exec('DROP TRIGGER handoffs_test_changes_complete');
      db.prepare('UPDATE handoffs SET test_changes_json = ? WHERE contract_id = ?').run(
        JSON.stringify({
          detected: [{ path: 'test/add.test.js', change: 'deleted', old_sha256: sha(TEST_A), new_sha256: null }],
          declared: null,
        }),
        d.contract_id,
      );
    } finally {
      db.close();
    }
    const g = gateOf();
    expect(g.code).toBe(2);
    expect(g.json).toMatchObject({ decision: 'block', source: 'row', codes: ['TESTS_CHANGED_UNDECLARED'] });
    expect(g.stderr).toContain('test/add.test.js was deleted');
  });
});
