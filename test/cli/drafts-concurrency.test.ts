/** Concurrency and crash safety of the per-draft lock and the atomic save (§6.3, §6.4; acceptance 11). */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run, runAsync, snapshot, tempHome } from '../helpers/cli.js';
import { draftPathOf, initDraft, readDraftJson } from '../drafts/helpers.js';

function childEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  return env;
}

describe('concurrent writers', () => {
  it('acceptance 11: 12 parallel adds to one draft → 12 exits 0 and 12 entries', async () => {
    const home = tempHome();
    const id = initDraft(home);
    const values = Array.from({ length: 12 }, (_, i) => `cmd-${i}`);
    const results = await Promise.all(values.map((v) => runAsync(home, ['contract', 'add', 'evidence_report.commands_run', v, '--draft-id', id])));
    expect(results.map((r) => r.code)).toEqual(values.map(() => 0));
    const list = readDraftJson(home, id).evidence_report.commands_run as string[];
    expect([...list].sort()).toEqual([...values].sort());
    expect(readdirSync(join(home, 'drafts')).sort()).toEqual([`${id}.json`, `${id}.meta.json`]);
  });

  it('two concurrent fills on disjoint fields both land', async () => {
    const home = tempHome();
    const id = initDraft(home);
    const [a, b] = await Promise.all([
      runAsync(home, ['contract', 'fill', '--draft-id', id, '--json', '{"evidence_report":{"key_outputs":["k"]},"report_prose":"p"}']),
      runAsync(home, ['contract', 'fill', '--draft-id', id, '--json', '{"agent_status":{"pending_steps":["s"]},"work_phase":"planning"}']),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const e = readDraftJson(home, id);
    expect([e.evidence_report.key_outputs, e.report_prose, e.agent_status.pending_steps, e.work_phase]).toEqual([['k'], 'p', ['s'], 'planning']);
  });

  it('a lock held by a live process → DRAFT_LOCKED (exit 4) after 15 s, naming its pid; nothing written', async () => {
    const home = tempHome();
    const id = initDraft(home);
    writeFileSync(join(home, 'drafts', `${id}.lock`), JSON.stringify({ pid: process.pid, host: hostname(), start: Date.now(), token: 't' }));
    const before = snapshot(home);
    const t0 = Date.now();
    const r = await runAsync(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id, '--json']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(15_000);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({ status: 'error', code: 'DRAFT_LOCKED', holder_pid: process.pid });
    expect(r.json.error).toContain(String(process.pid));
    expect(snapshot(home)).toEqual(before);
  }, 40_000);

  it('a lock left by a dead process is broken at once', () => {
    const home = tempHome();
    const id = initDraft(home);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(home, 'drafts', `${id}.lock`), JSON.stringify({ pid: dead, host: hostname(), start: Date.now(), token: 't' }));
    const t0 = Date.now();
    expect(run(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id]).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(existsSync(join(home, 'drafts', `${id}.lock`))).toBe(false);
  });
});

describe('crash safety', () => {
  it('SIGKILL at random moments (≥100 kills) never leaves an unparseable draft or a lock that blocks the next writer', async () => {
    const home = tempHome();
    const id = initDraft(home);
    // A sizeable draft makes the write window wide enough to be hit.
    run(home, ['contract', 'set', 'report_prose', 'p'.repeat(60_000), '--draft-id', id]);
    const startedAt = Date.now();
    let kills = 0;
    let batch = 0;
    while (kills < 100 && Date.now() - startedAt < 50_000) {
      batch++;
      const children = Array.from({ length: 10 }, (_, i) => {
        const child = spawn(process.execPath, [BIN, 'contract', 'add', 'evidence_report.commands_run', `b${batch}-${i}`, '--draft-id', id], {
          env: childEnv(home),
          stdio: 'ignore',
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 20 + Math.floor(Math.random() * 200));
        return new Promise<boolean>((resolve) => {
          child.on('exit', (_code, signal) => {
            clearTimeout(timer);
            resolve(signal === 'SIGKILL');
          });
        });
      });
      kills += (await Promise.all(children)).filter(Boolean).length;
      const text = readFileSync(draftPathOf(home, id), 'utf8');
      const parsed: unknown = JSON.parse(text);
      expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
      const t0 = Date.now();
      const next = run(home, ['contract', 'add', 'evidence_report.commands_run', `after-${batch}`, '--draft-id', id]);
      expect(next.code, next.stderr).toBe(0);
      expect(Date.now() - t0).toBeLessThan(5000);
    }
    expect(kills).toBeGreaterThanOrEqual(100);
    const list = readDraftJson(home, id).evidence_report.commands_run as string[];
    for (let b = 1; b <= batch; b++) expect(list).toContain(`after-${b}`);
    // Some killed-batch writers finished before their kill: the kill moments span the whole write, lock included.
    expect(list.filter((v) => v.startsWith('b')).length).toBeGreaterThan(0);
    expect(existsSync(join(home, 'drafts', `${id}.lock`))).toBe(false);
    // Stray temp files may remain (ignored by every verb, collected by gc); nothing else does but the birth record.
    const others = readdirSync(join(home, 'drafts')).filter((n) => n !== `${id}.json` && n !== `${id}.meta.json`);
    for (const n of others) expect(n).toMatch(/^\..*\.tmp$/);
    expect(run(home, ['contract', 'validate', '--draft-id', id]).code).toBe(0);
  }, 90_000);

  it('stray temp files are never candidates nor read', () => {
    const home = tempHome();
    const id = initDraft(home);
    mkdirSync(join(home, 'drafts'), { recursive: true });
    writeFileSync(join(home, 'drafts', `.${id}.123.deadbeef.tmp`), '{"half');
    expect(run(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--json']).json.draft_id).toBe(id);
  });
});
