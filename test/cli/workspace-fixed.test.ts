/**
 * A draft's workspace is fixed at its birth. `init` and `dispatch` record the
 * resolved workspace in `drafts/<id>.meta.json`; every later verb on the draft uses it whatever the current directory;
 * only an explicit --workspace that differs is WORKSPACE_MISMATCH (exit 2); the gate ignores workspace flags; a draft
 * without the sidecar keeps the old rule; a brief or evidence verb that finds no brief names the workspaces that have one.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome, type RunResult } from '../helpers/cli.js';
import { COMPLETE_PATCH, row, stopInput } from '../helpers/gate.js';

/** A fresh folder `<tmp>/<random>/<name>` to run commands in. */
function folder(name: string): string {
  const d = join(mkdtempSync(join(tmpdir(), 'cwd-')), name);
  mkdirSync(d);
  return d;
}

const at = (home: string, cwd: string, args: string[], env: Record<string, string> = {}): RunResult =>
  run(home, args, { cwd, env });
const metaPath = (home: string, id: string): string => join(home, 'drafts', `${id}.meta.json`);
const meta = (home: string, id: string): unknown => JSON.parse(readFileSync(metaPath(home, id), 'utf8'));

function initIn(home: string, cwd: string, args: string[] = []): string {
  const r = at(home, cwd, ['contract', 'init', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.json.draft_id as string;
}

function closeBlocked(home: string, cwd: string, id: string): void {
  const f = at(home, cwd, [
    'contract',
    'fill',
    '--draft-id',
    id,
    '--json',
    '{"agent_status":{"agent_state":"BLOCKED"}}',
  ]);
  expect(f.code, f.stdout).toBe(0);
}

describe('the workspace is recorded at birth', () => {
  it('init records the resolved workspace in a sidecar: derived names are made into slugs', () => {
    const home = tempHome();
    const id = initIn(home, folder('My Project'));
    // The sidecar also records the workspace's root path (workspace_root), which implicit resolution keys on.
    expect(meta(home, id)).toMatchObject({ workspace: 'My-Project' });
    const r = at(home, folder('café'), ['contract', 'init', '--json']);
    expect(r.json.workspace).toBe('caf-');
    expect(meta(home, r.json.draft_id)).toMatchObject({ workspace: 'caf-' });
    const flagged = at(home, folder('x'), ['contract', 'init', '--json', '--workspace', 'billing']);
    expect(flagged.json.workspace).toBe('billing');
    const env = at(home, folder('x'), ['contract', 'init', '--json'], { HANDOFF_WORKSPACE: 'from-env' });
    expect(meta(home, env.json.draft_id)).toMatchObject({ workspace: 'from-env' });
  });

  it.each([
    ['--workspace', ['--workspace', 'My Project'], {}],
    ['$HANDOFF_WORKSPACE', [], { HANDOFF_WORKSPACE: '../x' }],
  ])('an explicit unsafe workspace (%s) is UNSAFE_SLUG, exit 2, nothing written', (_what, args, env) => {
    const home = tempHome();
    const before = snapshot(home);
    const r = at(home, folder('p'), ['contract', 'init', '--json', ...args], env);
    expect([r.code, r.json.code]).toEqual([2, 'UNSAFE_SLUG']);
    expect(snapshot(home)).toEqual(before);
  });

  it('DRAFT_EXISTS leaves no sidecar behind', () => {
    const home = tempHome();
    const id = initIn(home, folder('p'));
    rmSync(metaPath(home, id));
    const r = at(home, folder('q'), ['contract', 'init', '--draft-id', id, '--json']);
    expect([r.code, r.json.code]).toEqual([1, 'DRAFT_EXISTS']);
    expect(existsSync(metaPath(home, id))).toBe(false);
  });

  it('dispatch records it too, and the row takes it', () => {
    const home = tempHome();
    const r = at(home, folder('Proj X'), ['contract', 'dispatch', '--goal', 'g', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.workspace).toBe('Proj-X');
    expect(meta(home, r.json.contract_id)).toMatchObject({ workspace: 'Proj-X', dispatched: true });
    const bad = at(home, folder('p'), ['contract', 'dispatch', '--goal', 'g', '--workspace', 'a b', '--json']);
    expect([bad.code, bad.json.code]).toEqual([2, 'UNSAFE_SLUG']);
  });
});

describe('later verbs use the recorded workspace whatever the cwd', () => {
  it('finalize from another folder stores the birth workspace; a differing --workspace is WORKSPACE_MISMATCH', () => {
    const home = tempHome();
    const proj = folder('proj');
    const elsewhere = folder('elsewhere');
    const id = initIn(home, proj);
    closeBlocked(home, elsewhere, id);
    const before = snapshot(home);
    const mismatch = at(home, elsewhere, [
      'contract',
      'finalize',
      '--draft-id',
      id,
      '--workspace',
      'elsewhere',
      '--json',
    ]);
    expect([mismatch.code, mismatch.json.code]).toEqual([2, 'WORKSPACE_MISMATCH']);
    expect(mismatch.json).toMatchObject({ draft_id: id, workspace: 'proj', requested_workspace: 'elsewhere' });
    expect(snapshot(home)).toEqual(before);
    const fin = at(home, elsewhere, ['contract', 'finalize', '--draft-id', id, '--json'], {
      HANDOFF_WORKSPACE: 'env-ws',
    });
    expect(fin.code, fin.stdout).toBe(0);
    expect(fin.json.workspace).toBe('proj');
    expect(row(home, id).workspace).toBe('proj');
  });

  it('an explicit --workspace equal to the recorded one is fine', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    closeBlocked(home, folder('x'), id);
    const fin = at(home, folder('y'), ['contract', 'finalize', '--draft-id', id, '--workspace', 'proj', '--json']);
    expect([fin.code, fin.json.workspace]).toEqual([0, 'proj']);
  });

  it('evidence run and contract verify use it; a differing --workspace is refused before anything runs', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    const elsewhere = folder('elsewhere');
    const ran = at(home, elsewhere, [
      'evidence',
      'run',
      '--draft-id',
      id,
      '--json',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('y'.repeat(5000))",
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.json.receipt.workspace).toBe('proj');
    expect(ran.json.receipt.stdout_path).toContain(join('evidence', 'proj', '_receipts'));

    const marker = join(elsewhere, 'ran');
    const before = snapshot(home);
    const refused = at(home, elsewhere, [
      'evidence',
      'run',
      '--draft-id',
      id,
      '--workspace',
      'other',
      '--json',
      '--',
      'touch',
      marker,
    ]);
    expect([refused.code, refused.json.code]).toEqual([2, 'WORKSPACE_MISMATCH']);
    expect(existsSync(marker)).toBe(false);
    expect(snapshot(home)).toEqual(before);

    const fill = at(home, elsewhere, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ evidence_report: { verification: { type: 'command', command: 'true' } } }),
    ]);
    expect(fill.code, fill.stdout).toBe(0);
    const verified = at(home, folder('third'), ['contract', 'verify', '--draft-id', id, '--json']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.json.receipt.workspace).toBe('proj');
    const vMismatch = at(home, elsewhere, ['contract', 'verify', '--draft-id', id, '--workspace', 'other', '--json']);
    expect([vMismatch.code, vMismatch.json.code]).toEqual([2, 'WORKSPACE_MISMATCH']);
  });

  it('the gate ignores workspace flags: a capture that inserts the row takes the recorded workspace', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    // The gate captures only into a store that exists.
    expect(at(home, folder('proj'), ['contract', 'dispatch', '--goal', 'g', '--json']).code).toBe(0);
    const g = at(home, folder('elsewhere'), ['contract', 'gate', '--draft-id', id, '--workspace', 'other', '--json']);
    expect([g.code, g.json.captured]).toEqual([2, true]);
    expect(row(home, id).workspace).toBe('proj');
    const hook = run(home, ['contract', 'gate', '--draft-id', id, '--json'], {
      cwd: folder('x'),
      input: stopInput({ session: 's', cwd: '/tmp' }),
    });
    expect(hook.code).toBe(2);
  });

  it('a continuation link and an adopted draft get a sidecar with the row workspace', () => {
    const home = tempHome();
    const d = at(home, folder('proj'), ['contract', 'dispatch', '--goal', 'g', '--json']).json;
    rmSync(join(home, 'drafts', `${d.contract_id}.json`));
    rmSync(metaPath(home, d.contract_id));
    const adopt = at(home, folder('elsewhere'), [
      'contract',
      'fill',
      '--draft-id',
      d.contract_id,
      '--json',
      JSON.stringify(COMPLETE_PATCH),
    ]);
    expect([adopt.code, adopt.json.adopted]).toEqual([0, true]);
    expect(meta(home, d.contract_id)).toEqual({ workspace: 'proj' });
    expect(
      at(home, folder('e2'), ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', d.contract_id])
        .code,
    ).toBe(0);
    expect(at(home, folder('e3'), ['contract', 'finalize', '--draft-id', d.contract_id]).code).toBe(0);
    const link = at(home, folder('e4'), [
      'contract',
      'add',
      'evidence_report.open_gaps',
      'more',
      '--draft-id',
      d.contract_id,
      '--json',
    ]);
    expect(link.code, link.stdout).toBe(0);
    const linkId = link.json.continuation.contract_id as string;
    expect(meta(home, linkId)).toEqual({ workspace: 'proj' });
  });

  it('a draft without a sidecar keeps the old rule (the workspace of the finalizing call)', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    rmSync(metaPath(home, id));
    closeBlocked(home, folder('x'), id);
    const fin = at(home, folder('Later Place'), ['contract', 'finalize', '--draft-id', id, '--json']);
    expect([fin.code, fin.json.workspace]).toEqual([0, 'Later-Place']);
  });

  it('an unreadable sidecar is DRAFT_UNREADABLE (exit 3), naming the file; nothing written', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    closeBlocked(home, folder('x'), id);
    writeFileSync(metaPath(home, id), '{"workspace":"a b"}');
    const before = snapshot(home);
    const fin = at(home, folder('y'), ['contract', 'finalize', '--draft-id', id, '--json']);
    expect([fin.code, fin.json.code]).toEqual([3, 'DRAFT_UNREADABLE']);
    expect(fin.json.error).toContain('.meta.json');
    expect(snapshot(home)).toEqual(before);
  });
});

describe('the sidecar goes with its draft (gc)', () => {
  it('gc removes the sidecar with an aged draft, and an orphan sidecar older than an hour', () => {
    const home = tempHome();
    const id = initIn(home, folder('proj'));
    const old = new Date(Date.now() - 10 * 86_400_000);
    utimesSync(join(home, 'drafts', `${id}.json`), old, old);
    const orphan = initIn(home, folder('proj'));
    rmSync(join(home, 'drafts', `${orphan}.json`));
    utimesSync(metaPath(home, orphan), old, old);
    const fresh = initIn(home, folder('proj'));
    const r = run(home, ['contract', 'gc', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(existsSync(join(home, 'drafts', `${id}.json`))).toBe(false);
    expect(existsSync(metaPath(home, id))).toBe(false);
    expect(existsSync(metaPath(home, orphan))).toBe(false);
    expect(existsSync(metaPath(home, fresh))).toBe(true);
    expect(r.json.removed.map((x: any) => [x.draft_id, x.reason])).toEqual(
      expect.arrayContaining([
        [id, 'aged'],
        [orphan, 'temp'],
      ]),
    );
  });
});

describe('briefs in another workspace are named', () => {
  it('evidence add, evidence list, brief show, evidence run --brief and dispatch --brief say where the brief is', () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'payments', '--workspace', 'proj', '--ac', 'AC-1=works']).code).toBe(0);
    expect(run(home, ['brief', 'add', 'payments', '--workspace', 'other-proj']).code).toBe(0);
    const tmp = folder('tmp');
    const before = snapshot(home);
    const checks: RunResult[] = [
      at(home, tmp, [
        'evidence',
        'add',
        '--brief',
        'payments',
        '--ac',
        'AC-1',
        '--type',
        'text',
        '--text',
        'x',
        '--json',
      ]),
      at(home, tmp, ['evidence', 'list', '--brief', 'payments', '--json']),
      at(home, tmp, ['brief', 'show', 'payments', '--json']),
      at(home, tmp, ['contract', 'dispatch', '--goal', 'g', '--brief', 'payments', '--json']),
    ];
    for (const r of checks) {
      expect([r.code, r.json.code]).toEqual([3, 'BRIEF_NOT_FOUND']);
      expect(r.json.workspaces).toEqual(['other-proj', 'proj']);
      expect(r.json.error).toContain('"proj"');
    }
    expect(snapshot(home)).toEqual(before);
    const id = initIn(home, tmp);
    const ran = at(home, tmp, [
      'evidence',
      'run',
      '--draft-id',
      id,
      '--brief',
      'payments',
      '--ac',
      'AC-1',
      '--json',
      '--',
      'true',
    ]);
    expect([ran.code, ran.json.code, ran.json.workspaces]).toEqual([3, 'BRIEF_NOT_FOUND', ['other-proj', 'proj']]);
    const human = at(home, tmp, ['brief', 'show', 'payments']);
    expect(human.stderr).toMatch(
      /^Error: no brief "payments" in workspace "tmp".*"other-proj", "proj".* \[BRIEF_NOT_FOUND\]\n$/,
    );
  });

  it('no other workspace has one: the message says so plainly (no list)', () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'other', '--workspace', 'proj']).code).toBe(0);
    const r = at(home, folder('tmp'), ['brief', 'show', 'payments', '--json']);
    expect([r.code, r.json.code, r.json.workspaces]).toEqual([3, 'BRIEF_NOT_FOUND', []]);
  });
});
