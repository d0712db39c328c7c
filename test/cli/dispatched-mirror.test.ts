/**
 * A write in a dispatched turn mirrors through the connection it read with (no second open, no migration checks on
 * every write), and stays correct: a write killed between saving its draft and mirroring it is repaired by the next
 * write; an older store still gets a writer that migrates it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { listMigrations } from '../../src/store/migrate.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { BIN, baseEnv, run, tempHome } from '../helpers/cli.js';
import { dbOf, dispatch, draftPathOf, readDraftJson } from '../helpers/drafts.js';

const rowJson = (home: string, id: string): any => {
  const db = new (loadSqlite())(dbOf(home), { readonly: true });
  try {
    const row = db.prepare('SELECT raw_handoff_json FROM handoffs WHERE contract_id = ?').get(id) as {
      raw_handoff_json: string;
    };
    return JSON.parse(row.raw_handoff_json);
  } finally {
    db.close();
  }
};

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('the mirror of a dispatched write', () => {
  it('a write killed (SIGKILL) after saving its draft and before its mirror lands is repaired by the next write', async () => {
    const home = tempHome();
    const { id } = dispatch(home);
    expect(run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id]).code).toBe(0);
    // Another connection holds the store's write lock, so the write below saves its draft and then waits in its
    // mirror (SQLite's busy wait): there it is killed.
    const blocker = new (loadSqlite())(dbOf(home));
    blocker.exec('BEGIN IMMEDIATE');
    let killed: boolean;
    try {
      const before = readFileSync(draftPathOf(home, id), 'utf8');
      const child = spawn(
        process.execPath,
        [BIN, 'contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', id],
        {
          env: baseEnv(home),
          cwd: home,
          stdio: 'ignore',
        },
      );
      const exited = new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, signal) => done(signal)));
      // Poll for the saved draft (a hang is caught by the test's timeout, never by a time limit here).
      while (readFileSync(draftPathOf(home, id), 'utf8') === before) await sleep(20);
      child.kill('SIGKILL');
      killed = (await exited) === 'SIGKILL';
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(killed).toBe(true);
    expect(readDraftJson(home, id).evidence_report.commands_run).toEqual(['npm test']);
    expect(rowJson(home, id).evidence_report.commands_run).toEqual([]);

    const next = run(home, ['contract', 'set', 'agent_status.next_action', 'verify', '--draft-id', id, '--json']);
    expect(next.code).toBe(0);
    expect(next.json.mirrored).toBe(true);
    const row = rowJson(home, id);
    expect(row.evidence_report.commands_run).toEqual(['npm test']);
    expect(row.agent_status.next_action).toBe('verify');
  }, 60_000);
});

describe('SQLite: a writer over the probe', () => {
  it('a probe of a current store becomes a writer on the same connection; its writes land', async () => {
    const home = tempHome();
    const { id } = dispatch(home);
    const env = baseEnv(home);
    const probe = await openStore(env, home, 'probe');
    expect(probe).not.toBeNull();
    const writer = await probe!.currentWriter!();
    expect(writer).toBeDefined();
    const json = JSON.stringify({ ...readDraftJson(home, id), work_phase: 'executing' });
    expect(await writer!.tx((t) => t.mirrorEnvelope(id, json, 1), { lock: id })).toBe('mirrored');
    await writer!.close();
    await probe!.close();
    expect(rowJson(home, id).work_phase).toBe('executing');
  });

  it('a probe of an older store gives none (the caller opens a writer, which migrates)', async () => {
    const home = tempHome();
    dispatch(home);
    const db = new (loadSqlite())(dbOf(home));
    const latest = listMigrations().length;
    db.prepare('DELETE FROM schema_version WHERE version = ?').run(latest);
    db.close();
    const probe = await openStore(baseEnv(home), home, 'probe');
    expect(await probe!.currentWriter!()).toBeUndefined();
    await probe!.close();
    expect(existsSync(dbOf(home))).toBe(true);
  });

  it('better-sqlite3 is loaded without the `bindings` lookup (its native addon is required by path)', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    // Node's module tracing is per process: this one runs as the real binary.
    const r = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id], {
      env: { NODE_DEBUG: 'module' },
      process: true,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/better-sqlite3/);
    expect(r.stderr).not.toMatch(/node_modules\/bindings/);
  });
});
