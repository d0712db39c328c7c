/**
 * The gate's watchdog thread (src/gate/watchdog.ts) costs about as much as the rest of a gate call, and no gate call
 * starts it now: the gate never migrates a store (an older one is read as it is), and its other waits are bounded by
 * the budget itself (SQLite's busy wait ends by the budget's store deadline), so a busy store still gets its answer in
 * time, from the main thread. test/cli/watchdog-answer.test.ts drives the watchdog's own answer path. More budget cases: test/cli/pg-timeouts.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { BIN, RECORDER, recordedBuiltins, REPO, baseEnv, run, tempHome } from '../helpers/cli.js';
import { dispatchJson, finalizeAs, rawStore, rejections, stopInput } from '../helpers/gate.js';

/** A hang is a failure: the child is killed after this long (a hang guard, not a speed bar). */
const HANG_MS = 60_000;

interface Recorded {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The public Node built-ins the call loaded. */
  builtins: string[];
}

/** `handoff contract gate ...args` under the module recorder (test/fixtures/record-modules.cjs). */
function recordedGate(home: string, args: string[], input: string): Recorded {
  const file = join(home, `builtins-${Math.random().toString(36).slice(2)}.txt`);
  // A TMPDIR of the call's own: the suite's shared one may hold a counter folder ($TMPDIR/handoff-gate-<uid>/) that
  // another test's strict gate made, and these calls are about a machine without one.
  const tmp = join(home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const env = baseEnv(home, {
    RECORD_MODULES_FILE: join(home, 'modules.txt'),
    RECORD_BUILTINS_FILE: file,
    TMPDIR: tmp,
  });
  const r = spawnSync(process.execPath, ['--require', RECORDER, BIN, 'contract', 'gate', ...args], {
    env,
    cwd: home,
    input,
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, builtins: recordedBuiltins(file) };
}

const hook = stopInput({ session: 'watchdog', extra: { stop_reason: 'end_turn' } });

describe('the common gate call starts no watchdog thread', () => {
  it('a block, an allow and a call without a store load no node:worker_threads; the block and the allow no node:crypto', () => {
    const home = tempHome();
    const open = dispatchJson(home, ['--goal', 'g']).contract_id as string;
    const closed = dispatchJson(home, ['--goal', 'g']).contract_id as string;
    finalizeAs(home, closed, 'BLOCKED');
    const block = recordedGate(home, ['--draft-id', open], hook);
    expect(block.code, block.stderr).toBe(2);
    expect(block.stderr).toContain('ROW_NOT_FINALIZED');
    const allow = recordedGate(home, ['--draft-id', closed], hook);
    expect(allow.code, allow.stderr).toBe(0);
    const none = recordedGate(tempHome(), ['--draft-id', open, '--on-missing', 'allow', '--json'], hook);
    expect(none.code, none.stderr).toBe(0);
    for (const r of [block, allow, none]) expect(r.builtins).not.toContain('worker_threads');
    // The breaker counts in the store: with no counter folder, no key is hashed for a file name, and node:crypto
    // (milliseconds of every stop) is not loaded.
    for (const r of [block, allow]) expect(r.builtins).not.toContain('crypto');
  });

  it('an older store is read as it is and never migrated by the gate; the next writer verb migrates it', async () => {
    const home = tempHome();
    // A store created by an earlier build: every migration but the last.
    const earlier = join(home, 'earlier-migrations');
    mkdirSync(earlier);
    const all = listMigrations();
    for (const m of all.slice(0, -1)) copyFileSync(join(REPO, 'migrations', m.name), join(earlier, m.name));
    const store = await openStore(baseEnv(home), home, 'writer', { create: true, migrationsDir: earlier });
    expect(store!.version).toBe(all.length - 1);
    await store!.close();
    const version = (): unknown => {
      const db = rawStore(home);
      try {
        return db.prepare('SELECT MAX(version) AS v FROM schema_version').get();
      } finally {
        db.close();
      }
    };

    // The gate judges (an unknown contract named by --draft-id blocks) and starts no watchdog thread: nothing to migrate.
    const r = recordedGate(home, ['--draft-id', 'a0123456789abcdef.0123456789ab', '--json'], hook);
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'block', exit: 2 });
    expect(r.builtins).not.toContain('worker_threads');
    expect(version()).toEqual({ v: all.length - 1 });

    // A writer verb migrates it as before.
    expect(run(home, ['contract', 'dispatch', '--goal', 'g', '--json']).code).toBe(0);
    expect(version()).toEqual({ v: all.length });
  });
});

describe('a busy SQLite store cannot hold the gate past its budget', () => {
  it('a capture waiting on the write lock ends with the budget: the verdict, its writes abandoned, nothing counted anywhere', async () => {
    const home = tempHome();
    const id = dispatchJson(home, ['--goal', 'g']).contract_id as string;
    // Another process holds the write lock for longer than the whole budget.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D=require('better-sqlite3');const db=new D(${JSON.stringify(join(home, 'handoff.db'))});db.exec('BEGIN IMMEDIATE');console.log('locked');setTimeout(()=>{},60000);`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let r: ReturnType<typeof run>;
    try {
      await new Promise<void>((res) =>
        holder.stdout.on('data', (b: Buffer) => b.toString().includes('locked') && res()),
      );
      r = await new Promise((done) => {
        const child = spawn(
          process.execPath,
          // Room to reach the verdict before the budget's cut-off, on a loaded machine too.
          [BIN, 'contract', 'gate', '--draft-id', id, '--json', '--timeout', '6s'],
          { env: baseEnv(home), cwd: home },
        );
        let stdout = '';
        let stderr = '';
        const guard = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.stdin.end(hook);
        child.on('close', (code) => {
          clearTimeout(guard);
          done({ code: code ?? -1, stdout, stderr, json: JSON.parse(stdout) });
        });
      });
    } finally {
      holder.kill();
    }
    expect(r.code, r.stderr).toBe(2);
    expect(r.json).toMatchObject({
      decision: 'block',
      codes: ['ROW_NOT_FINALIZED'],
      writes_abandoned: true,
      captured: false,
      attempt: null,
    });
    expect(r.stderr).toContain('its writes to the store were abandoned and this stop was not counted');
    // Not counted in the store, nor in a file under the data root instead.
    expect(rejections(home)).toEqual([]);
    expect(existsSync(join(home, 'gate'))).toBe(false);
  });
});
